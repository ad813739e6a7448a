package bridge_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// noTapeScenario is notesScenario before anything was recorded: no tape:
// key at all, so it can only run live.
var noTapeScenario = strings.Replace(notesScenario, "tape: []\n", "", 1)

// TestVerifyHints: the hints of a failing bridged scenario name the user's
// own commands, as VerifyOptions gives them: the go test command that
// writes a missing golden, and, for a scenario with no tape, the user's
// program that records one, with the scenario's path from where that
// program runs.
func TestVerifyHints(t *testing.T) {
	recorded := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	t.Chdir(filepath.Dir(filepath.Dir(recorded))) // paths start at scenarios/, as the user names them
	hints := &harness.VerifyOptions{Command: "supportrun", UpdateHint: "go test ./support -update", HintDir: "support"}

	v := verifyWith(t.Context(), load(t, filepath.Join("scenarios", filepath.Base(recorded))), newNotesAgent().agentFunc(), hints)
	if all := fmt.Sprint(v.Failure()); v.Err != nil || !strings.Contains(all, "missing golden file") || !strings.Contains(all, "run `go test ./support -update` to write it") {
		t.Errorf("a missing golden's hint (err %v):\n%s", v.Err, all)
	}

	live := filepath.Join("scenarios", "live.yaml")
	if err := os.WriteFile(live, []byte(noTapeScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	v = verifyWith(t.Context(), load(t, live), newNotesAgent().agentFunc(), hints)
	want := "record one with `supportrun record --model PROVIDER/MODEL " + filepath.Join("support", "scenarios", "live.yaml") + "`"
	if !errors.Is(v.Err, harness.ErrNoTape) || !strings.Contains(v.Err.Error(), want) {
		t.Errorf("a scenario with no tape: %v\nwant an error wrapping %q that says %q", v.Err, harness.ErrNoTape, want)
	}
}

// TestHelperBridgeTest is run by TestTestHints in a child process: it
// calls harness.Test with the notes agent on TAPELOOP_BRIDGE_DIR from
// TAPELOOP_BRIDGE_WD, with TAPELOOP_BRIDGE_COMMAND as TestOptions.Command.
func TestHelperBridgeTest(t *testing.T) {
	dir := os.Getenv("TAPELOOP_BRIDGE_DIR")
	if dir == "" {
		t.Skip("run by TestTestHints in a child process")
	}
	t.Chdir(os.Getenv("TAPELOOP_BRIDGE_WD"))
	harness.Test(t, dir, &harness.TestOptions{Command: os.Getenv("TAPELOOP_BRIDGE_COMMAND"),
		Agents: map[string]harness.Runner{"notes": bridge.Runner(newNotesAgent().agentFunc(), nil)}})
}

// TestTestHints: go test of a user's package ./support that calls
// harness.Test on bridged scenarios names that package in a missing golden's hint, and the
// user's program (TestOptions.Command) with the scenario's path from the
// module root in the hint for a scenario with no tape.
func TestTestHints(t *testing.T) {
	if os.Getenv("TAPELOOP_BRIDGE_DIR") != "" {
		t.Skip("the child process")
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/support\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "support")
	recorded := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	if err := os.MkdirAll(filepath.Join(pkg, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"ok.yaml": string(data), "live.yaml": noTapeScenario} {
		if err := os.WriteFile(filepath.Join(pkg, "scenarios", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBridgeTest$", "-test.v")
	cmd.Env = append(os.Environ(), "TAPELOOP_BRIDGE_DIR=scenarios", "TAPELOOP_BRIDGE_WD="+pkg, "TAPELOOP_BRIDGE_COMMAND=supportrun")
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	for _, want := range []string{
		"scenarios/live.yaml: the scenario has no tape to replay: record one with `supportrun record --model PROVIDER/MODEL support/scenarios/live.yaml`",
		"run `go test ./support -update` to write it",
	} {
		if !strings.Contains(string(out), filepath.FromSlash(want)) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if err == nil {
		t.Errorf("passed with a scenario that has no tape and one with no golden:\n%s", out)
	}
}
