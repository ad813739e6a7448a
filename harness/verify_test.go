package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

func TestVerify(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/m\n") // names are relative to the module root
	path := filepath.Join(root, "g", "demo.yaml")
	writeFile(t, path, strings.Replace(demoScenario, "name: matchers/demo\n", "", 1)+"expect: {iterations: 2}\n")

	v := Verify(ctx, path, &VerifyOptions{})
	want := "missing golden file " + scenario.GoldenPath(path) + ": run `evalrun replay --update` to write it, then review it"
	if v.Passed() || v.Err != nil || len(v.Failures) != 1 || v.Failures[0].Error() != want || v.Name != "g/demo" {
		t.Fatalf("no golden: %+v", v)
	}
	if err := v.Failure(); !errors.Is(err, ErrNoGolden) || err.Error() != want {
		t.Errorf("no golden: Failure() = %v, want the missing golden's failure", err)
	}
	// The hint names the user's own command.
	v = Verify(ctx, path, &VerifyOptions{Command: "supportrun"})
	if want := "run `supportrun replay --update` to write it"; len(v.Failures) != 1 || !strings.Contains(v.Failures[0].Error(), want) {
		t.Fatalf("Command supportrun: %q; want %q", v.Failures, want)
	}
	v = Verify(ctx, path, &VerifyOptions{UpdateHint: "go test ./support -update"})
	if want := "run `go test ./support -update` to write it"; len(v.Failures) != 1 || !strings.Contains(v.Failures[0].Error(), want) {
		t.Fatalf("UpdateHint: %q; want %q", v.Failures, want)
	}

	v = Verify(ctx, path, &VerifyOptions{Update: true})
	if !v.Passed() || !v.Updated {
		t.Fatalf("update: passed %v, updated %v, %v %v", v.Passed(), v.Updated, v.Err, v.Failures)
	}
	v = Verify(ctx, path, &VerifyOptions{Update: true})
	if !v.Passed() || v.Updated {
		t.Fatalf("second update: passed %v, updated %v (want no rewrite)", v.Passed(), v.Updated)
	}
	v = Verify(ctx, path, &VerifyOptions{Perturb: 7})
	if !v.Passed() || v.Failure() != nil {
		t.Fatalf("after update: %v", v.Failure())
	}

	// Expectations are checked in update mode too.
	writeFile(t, path, strings.Replace(demoScenario, "name: matchers/demo\n", "", 1)+"expect: {iterations: 3}\n")
	v = Verify(ctx, path, &VerifyOptions{Update: true})
	want = path + ":" + strconv.Itoa(strings.Count(demoScenario, "\n")) + ": expect.iterations: expected 3 model calls, found 2"
	if len(v.Failures) != 1 || v.Failures[0].Error() != want || v.Failures[0].File != path || v.Failures[0].Key != "expect.iterations" || !errors.Is(v.Failure(), ErrExpectation) {
		t.Errorf("update with a failed expectation: %q, want %q", v.Failures, want)
	}
}

func TestVerifyDivergence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "diverge.yaml")
	writeFile(t, path, `format: tapeloop/v1
input: [{role: user, content: hi}]
tape:
  - response: {content: hello}
    request: {last_message: {role: user, content: bye}}
`)
	v := Verify(context.Background(), path, &VerifyOptions{Update: true})
	// The divergence, then one line for what followed; not the golden's
	// difference, nor the expectations the stopped run missed.
	if v.Err != nil || len(v.Failures) != 3 || !strings.HasPrefix(v.Failures[0].Error(), path+": the run diverged from the tape: ") ||
		v.Failures[1].Error() != path+": the run stopped at turn 1; the golden was not compared" ||
		v.Failures[2].Error() != path+": to accept the change offline: `evalrun rebase "+path+"` (if rebase refuses, record it again: `evalrun record --mode all --model PROVIDER/MODEL "+path+"`)" {
		t.Fatalf("diverged: %v %q", v.Err, v.Failures)
	}
	if v.Outcome == nil || !v.Outcome.Diverged {
		t.Errorf("outcome not marked diverged")
	}
	if _, err := os.Stat(scenario.GoldenPath(path)); !errors.Is(err, os.ErrNotExist) || v.Updated {
		t.Errorf("a diverged run was blessed with a golden (updated=%v, stat: %v)", v.Updated, err)
	}
	// The line after the divergence counts the expectations not compared.
	for expect, want := range map[string]string{
		"expect: {final: {contains: hello}}\n":                          "1 expectation and the golden were",
		"expect: {termination: final_text, final: {contains: hello}}\n": "2 expectations and the golden were",
	} {
		data, _ := os.ReadFile(path)
		other := filepath.Join(t.TempDir(), "diverge.yaml")
		writeFile(t, other, string(data)+expect)
		v := Verify(context.Background(), other, nil)
		if len(v.Failures) != 3 || v.Failures[1].Error() != other+": the run stopped at turn 1; "+want+" not compared" {
			t.Errorf("with %s: failures %q, want the second to say %q", strings.TrimSpace(expect), v.Failures, want)
		}
	}
}

func TestVerifyLoadError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, path, "format: tapeloop/v1\nexpcet: 1\n")
	v := Verify(context.Background(), path, nil)
	if !errors.Is(v.Err, scenario.ErrScenario) || v.Name != path || v.Scenario != nil || v.Outcome != nil || v.Passed() {
		t.Errorf("load error: %+v", v)
	}
	if _, err := os.Stat(scenario.GoldenPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a golden was written for a scenario that does not load")
	}
}

func TestCheckTerminationShowsError(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  termination: final_text\n"), "x.yaml", "x")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := checkAll(s, o)
	want := "x.yaml:5: expect.termination: expected final_text, found model_error (" + o.Error + ")"
	if len(got) != 1 || got[0] != want || o.Error == "" {
		t.Errorf("Check = %q, want [%q]", got, want)
	}
}

// TestVerifyNoTape: a scenario written for live runs (no tape: key) does
// not replay: the error says how to record its tape, with the user's
// command.
func TestVerifyNoTape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.yaml")
	writeFile(t, path, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n")
	v := Verify(context.Background(), path, &VerifyOptions{Command: "supportrun"})
	want := path + ": the scenario has no tape to replay: record one with `supportrun record --model PROVIDER/MODEL " + path + "` (or run it live with `supportrun eval`)"
	if !errors.Is(v.Err, ErrNoTape) || v.Err.Error() != want {
		t.Errorf("got %v; want %s", v.Err, want)
	}
}

// TestVerifyEmptyTape: `tape: []`, as the README has a user write before
// recording, is a scenario to record, not one whose golden is missing: its
// verdict gives the record hint, with the user's command and path.
func TestVerifyEmptyTape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.yaml")
	writeFile(t, path, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect: {termination: final_text}\n")
	v := Verify(context.Background(), path, &VerifyOptions{Command: "supportrun"})
	want := path + ": the scenario has no tape to replay: record one with `supportrun record --model PROVIDER/MODEL " + path + "` (or run it live with `supportrun eval`)"
	if !errors.Is(v.Err, ErrNoTape) || v.Err.Error() != want || len(v.Failures) != 0 {
		t.Errorf("got %v, failures %q; want %s", v.Err, v.Failures, want)
	}
}

// TestGoTestHint: go test runs in the package's folder; the hint names it
// relative to the module root.
func TestGoTestHint(t *testing.T) {
	if got := goTestHint(); got != "go test ./harness -update" {
		t.Errorf("goTestHint() = %q; want go test ./harness -update", got)
	}
}

// TestGoTestHintAtTheModuleRootAndWithoutAModule: a package at the module
// root is `go test .`, and without a go.mod above the working directory
// the hint is plain `go test -update`; either way the no-tape hint names
// the scenario from that folder.
func TestGoTestHintAtTheModuleRootAndWithoutAModule(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/m\n")
	t.Chdir(root)
	if got := goTestHint(); got != "go test . -update" {
		t.Errorf("at the module root: goTestHint() = %q; want go test . -update", got)
	}
	loose := t.TempDir()
	t.Chdir(loose)
	if _, err := os.Stat(filepath.Join(filepath.Dir(loose), "go.mod")); err == nil {
		t.Skipf("%s has a go.mod above it", loose)
	}
	if got := goTestHint(); got != "go test -update" {
		t.Errorf("without a go.mod: goTestHint() = %q; want go test -update", got)
	}
}

// TestGoTestHintsNameTheScenarioFromTheModuleRoot: the options Test
// verifies with make the no-tape hint name the scenario by its path from
// the module root, where the user's program runs, and the golden's hint
// the package's go test command.
func TestGoTestHintsNameTheScenarioFromTheModuleRoot(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/support\n")
	pkg := filepath.Join(root, "support")
	writeFile(t, filepath.Join(pkg, "scenarios", "live.yaml"), "format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n")
	writeFile(t, filepath.Join(pkg, "scenarios", "ok.yaml"), "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n")
	t.Chdir(pkg)
	opts := goTestHints("supportrun")
	live := Verify(context.Background(), filepath.Join("scenarios", "live.yaml"), opts)
	want := filepath.FromSlash("scenarios/live.yaml: the scenario has no tape to replay: record one with `supportrun record --model PROVIDER/MODEL support/scenarios/live.yaml` (or run it live with `supportrun eval`)")
	if live.Err == nil || live.Err.Error() != want {
		t.Errorf("no tape: %v; want %s", live.Err, want)
	}
	ok := Verify(context.Background(), filepath.Join("scenarios", "ok.yaml"), opts)
	if len(ok.Failures) != 1 || !strings.Contains(ok.Failures[0].Error(), "run `go test ./support -update` to write it") {
		t.Errorf("no golden: %q; want the hint to name go test ./support", ok.Failures)
	}
}

// TestVerifyInterruptedLeavesTheGolden: a run cut short by its context is
// interrupted, says so, and is neither judged nor blessed, even with
// Update.
func TestVerifyInterruptedLeavesTheGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.yaml")
	writeFile(t, path, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\nexpect: {final: {equals: bye}}\n")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal"))
	v := Verify(ctx, path, &VerifyOptions{Update: true})
	want := path + ": interrupted before the run ended (interrupt signal); its golden is untouched"
	if !v.Interrupted || v.Err != nil || v.Updated || len(v.Failures) != 1 || v.Failures[0].Error() != want {
		t.Errorf("interrupted: %v, err %v, updated %v, failures %q; want only %q", v.Interrupted, v.Err, v.Updated, v.Failures, want)
	}
	if _, err := os.Stat(scenario.GoldenPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run wrote its golden (stat: %v)", err)
	}
}

// TestVerifyForceKeepsTheFailuresApart: with Update and Force the golden
// is written and the failed expectations are the verdict's Forced, not
// its Failures; with Update alone they fail it.
func TestVerifyForceKeepsTheFailuresApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forced.yaml")
	writeFile(t, path, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\nexpect: {final: {equals: bye}}\n")
	want := path + `:4: expect.final: expected the final text to equal "bye", found "hello"`
	v := Verify(context.Background(), path, &VerifyOptions{Update: true, Force: true})
	if v.Err != nil || !v.Updated || len(v.Failures) != 0 || len(v.Forced) != 1 || v.Forced[0].Error() != want {
		t.Errorf("forced: err %v, updated %v, failures %q, forced %q; want only %q forced", v.Err, v.Updated, v.Failures, v.Forced, want)
	}
	v = Verify(context.Background(), path, &VerifyOptions{Update: true})
	if len(v.Forced) != 0 || len(v.Failures) != 1 || v.Failures[0].Error() != want {
		t.Errorf("not forced: failures %q, forced %q; want %q failing", v.Failures, v.Forced, want)
	}
}

// TestVerifyUnchangedGolden: a golden found unchanged (compared as it is
// written, not whole) passes, is not rewritten by an update, and the
// update still removes the temporary files an interrupted update left
// beside it; a golden changed by a byte fails with the first difference.
func TestVerifyUnchangedGolden(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "same.yaml")
	writeFile(t, path, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n")
	if v := Verify(ctx, path, &VerifyOptions{Update: true}); !v.Passed() || !v.Updated {
		t.Fatalf("first update: %v %v", v.Err, v.Failures)
	}
	golden := scenario.GoldenPath(path)
	written, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".same.golden.yaml.tmp123")
	writeFile(t, stale, "name: sa")
	if v := Verify(ctx, path, &VerifyOptions{}); !v.Passed() {
		t.Fatalf("replay of an unchanged golden: %v %v", v.Err, v.Failures)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("a replay removed the temporary file: %v", err)
	}
	if v := Verify(ctx, path, &VerifyOptions{Update: true}); !v.Passed() || v.Updated {
		t.Fatalf("update of an unchanged golden: updated %v, %v %v", v.Updated, v.Err, v.Failures)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("an update of an unchanged golden left the temporary file (%v)", err)
	}
	writeFile(t, golden, strings.Replace(string(written), "hello", "hellO", 1))
	v := Verify(ctx, path, &VerifyOptions{})
	if len(v.Failures) != 1 || !strings.Contains(v.Failures[0].Error(), "-      content: hellO\n+      content: hello\n") {
		t.Errorf("a changed golden: %q", v.Failures)
	}
}

// pwScenario reads a file holding a password written with characters no
// token holds; its tape recorded the tool result with the password
// redacted, as record does under a policy that knows it.
const pwScenario = `format: tapeloop/v1
setup:
  workspace:
    files: {login.txt: "The password is hunter2!&x#pw(1).\n"}
  tools: [read_file]
input:
  - {role: user, content: "What is in login.txt?"}
tape:
  - response:
      tool_calls:
        - {id: r1, name: read_file, arguments: {path: login.txt}}
  - response: {content: "It holds a password."}
    request:
      new:
        - role: tool
          content: |
            The password is [REDACTED].
          tool_call_id: r1
          name: read_file
`

// TestVerifyWithoutRedactorUsesTheEnvironmentsPolicy: Verify with no
// Redactor (a Go test's default) replays with redact.Default(), the
// environment's policy, so a password that APP_PASSWORD holds matches the
// tape's [REDACTED] whatever characters it has, for an update and a
// replay alike; a run whose environment does not know it diverges.
func TestVerifyWithoutRedactorUsesTheEnvironmentsPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pw.yaml")
	writeFile(t, path, pwScenario)
	t.Setenv("APP_PASSWORD", "hunter2!&x#pw(1)")
	if v := Verify(context.Background(), path, &VerifyOptions{Update: true}); v.Err != nil || !v.Passed() {
		t.Fatalf("update: %v, %v", v.Err, v.Failure())
	}
	if v := Verify(context.Background(), path, nil); v.Err != nil || !v.Passed() {
		t.Errorf("replay: %v, %v", v.Err, v.Failure())
	}
	t.Setenv("APP_PASSWORD", "")
	if v := Verify(context.Background(), path, nil); v.Passed() || !strings.Contains(fmt.Sprint(v.Failure()), "new differs") {
		t.Errorf("a replay whose environment does not know the password: %v, want a divergence in new", v.Failure())
	}
}
