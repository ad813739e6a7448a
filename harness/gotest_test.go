package harness

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// update is the flag Test looks up, declared as its doc tells users to.
var _ = flag.Bool("update", false, "rewrite the golden files")

// TestHelperHarnessTest is run by TestTest in a child process: it calls Test
// on the folder named by TAPELOOP_TEST_DIR, in TAPELOOP_TEST_WD when set,
// with TAPELOOP_TEST_COMMAND as TestOptions.Command.
func TestHelperHarnessTest(t *testing.T) {
	dir := os.Getenv("TAPELOOP_TEST_DIR")
	if dir == "" {
		t.Skip("run by TestTest in a child process")
	}
	if wd := os.Getenv("TAPELOOP_TEST_WD"); wd != "" {
		t.Chdir(wd) // where go test would run a test of that package
	}
	Test(t, dir, &TestOptions{Command: os.Getenv("TAPELOOP_TEST_COMMAND")})
}

// goTest runs this test binary's TestHelperHarnessTest on dir with the extra
// arguments, returning its verbose output and whether it passed.
func goTest(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	return goTestIn(t, "", "", dir, args...)
}

// goTestIn is goTest with the child's working directory wd ("" for this
// one's) and TestOptions.Command command.
func goTestIn(t *testing.T, wd, command, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperHarnessTest$", "-test.v"}, args...)...)
	cmd.Env = append(os.Environ(), "TAPELOOP_TEST_DIR="+dir, "TAPELOOP_TEST_WD="+wd, "TAPELOOP_TEST_COMMAND="+command)
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	return string(out), err == nil
}

func TestTest(t *testing.T) {
	if os.Getenv("TAPELOOP_TEST_DIR") != "" {
		t.Skip("the child process")
	}
	dir := filepath.Join(t.TempDir(), "scenarios")
	ok := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n"
	writeFile(t, filepath.Join(dir, "files", "ok.yaml"), ok)
	writeFile(t, filepath.Join(dir, "files", "bad.yaml"), ok+"expect: {final: {equals: bye}}\n")
	writeFile(t, filepath.Join(dir, "math", "ok.yaml"), ok)
	writeFile(t, filepath.Join(dir, "settings.yaml"), "colour: blue\n")

	// Without goldens every scenario fails; -update writes them (bad still
	// fails its expectation).
	out, passed := goTest(t, dir)
	if passed || !strings.Contains(out, "--- FAIL: TestHelperHarnessTest/files/ok") || !strings.Contains(out, "missing golden file") {
		t.Fatalf("without goldens:\n%s", out)
	}
	// The hint names this package's go test command, not tapeloop's own.
	if !strings.Contains(out, "run `go test ./harness -update` to write it") {
		t.Errorf("the missing golden's hint does not name go test ./harness:\n%s", out)
	}
	out, passed = goTest(t, dir, "-update")
	if passed || !strings.Contains(out, "updated "+filepath.Join(dir, "files", "ok.golden.yaml")) {
		t.Fatalf("-update:\n%s", out)
	}
	// -update writes a failing scenario's golden but does not bless it: the
	// scenario still fails, saying so (issue 22); the others pass.
	for _, want := range []string{
		"--- PASS: TestHelperHarnessTest/files/ok ",
		"--- FAIL: TestHelperHarnessTest/files/bad ",
		"the golden " + filepath.Join(dir, "files", "bad.golden.yaml") + " was written, but the scenario fails: it is not blessed until the failures above are fixed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-update: the output lacks %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "files", "bad.golden.yaml")); err != nil || !strings.Contains(string(data), "final: hello") {
		t.Errorf("-update did not write the failing scenario's golden (%v):\n%s", err, data)
	}
	out, passed = goTest(t, dir)
	for _, want := range []string{
		"--- PASS: TestHelperHarnessTest/files/ok ",
		"--- PASS: TestHelperHarnessTest/math/ok ",
		"--- FAIL: TestHelperHarnessTest/files/bad ",
		`expect.final: expected the final text to equal "bye", found "hello"`,
		"--- SKIP: TestHelperHarnessTest/settings ",
		"not a tapeloop scenario: it has no `format: tapeloop/v1` line",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if passed {
		t.Error("passed with a failing scenario")
	}
	// A failure points at the scenario's file and line, not at a line of
	// the library.
	at := false
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), filepath.Join(dir, "files", "bad.yaml")+":4: expect.final:") {
			at = true
		}
	}
	if !at || strings.Contains(out, "gotest.go:") {
		t.Errorf("the failure does not start with the scenario's file:line, or names gotest.go:\n%s", out)
	}

	// -run selects by scenario name, a path level at a time.
	out, passed = goTest(t, dir, "-test.run=^TestHelperHarnessTest$/^files$/^ok$")
	if !passed || !strings.Contains(out, "--- PASS: TestHelperHarnessTest/files/ok ") || strings.Contains(out, "math/ok") || strings.Contains(out, "files/bad") {
		t.Errorf("-run .../files/ok:\n%s", out)
	}

	// An orphan golden fails the test even when -run selects nothing.
	writeFile(t, filepath.Join(dir, "math", "gone.golden.yaml"), "name: gone\n")
	out, passed = goTest(t, dir, "-test.run=^TestHelperHarnessTest$/^files$/^ok$")
	if passed || !strings.Contains(out, "golden file "+filepath.Join(dir, "math", "gone.golden.yaml")+" has no scenario: delete it, or restore its scenario") {
		t.Errorf("orphan:\n%s", out)
	}
}

// TestTestHintsNameTheUsersCommand: in a user's module, go test of the
// package ./support names that package in the golden's hint, and the hint
// for a scenario without a tape names the user's program (TestOptions.Command)
// and the scenario's path from the module root, where that program runs.
func TestTestHintsNameTheUsersCommand(t *testing.T) {
	if os.Getenv("TAPELOOP_TEST_DIR") != "" {
		t.Skip("the child process")
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/support\n")
	pkg := filepath.Join(root, "support")
	writeFile(t, filepath.Join(pkg, "scenarios", "live.yaml"), "format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n")
	writeFile(t, filepath.Join(pkg, "scenarios", "ok.yaml"), "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n")
	out, passed := goTestIn(t, pkg, "supportrun", "scenarios")
	for _, want := range []string{
		"scenarios/live.yaml: the scenario has no tape to replay: record one with `supportrun record --model PROVIDER/MODEL support/scenarios/live.yaml` (or run it live with `supportrun eval`)",
		"run `go test ./support -update` to write it",
	} {
		if !strings.Contains(out, filepath.FromSlash(want)) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if passed {
		t.Error("passed with a scenario that has no tape")
	}
}
