package notes_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/harness"
)

// promptChangeDir, when set, is the folder TestPromptChangeChild replays
// with harness.Test: TestPromptChangeOutput runs this test binary again on
// it to see what go test prints.
const promptChangeDir = "TAPELOOP_PROMPT_CHANGE_DIR"

// TestPromptChangeOutput pins what a user reads when their agent's system
// prompt changes by one sentence and two scenarios replay against tapes
// recorded before it: under evalrun replay and under go test
// (harness.Test), each scenario's divergence once, with the prompt's diff,
// then one line saying what was not compared; not the golden as a diff
// nor each expectation the stopped run missed; last, the command of the
// user's own program that accepts the change. The golden
// (testdata/prompt-change.txt) is written by go test -update, with the
// temporary folder as $WORK and times as 0s.
func TestPromptChangeOutput(t *testing.T) {
	if os.Getenv(promptChangeDir) != "" {
		t.Skip("the child run of TestPromptChangeChild")
	}
	dir := t.TempDir()
	for _, name := range []string{"add-item", "missing-note"} {
		for _, file := range []string{name + ".yaml", name + ".golden.yaml"} {
			b, err := os.ReadFile(filepath.Join("scenarios", file))
			if err != nil {
				t.Fatal(err)
			}
			// The tape was recorded when the prompt was one sentence shorter.
			old := strings.Replace(string(b), "system: You keep the user's notes in files. Read a note before you change it.", "system: You keep the user's notes in files.", 1)
			if old == string(b) && strings.HasSuffix(file, "item.yaml") {
				t.Fatalf("%s: no offered.system line to change", file)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	var got bytes.Buffer
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), []string{dir}, &out, &errb, &evalrun.Options{Agents: agents, Command: notesrun})
	got.WriteString("$ evalrun replay $WORK\n")
	got.WriteString(out.String())
	got.WriteString(errb.String())
	if code != 1 {
		t.Errorf("evalrun replay: exit %d, want 1", code)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestPromptChangeChild$")
	cmd.Env = append(os.Environ(), promptChangeDir+"="+dir)
	child, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("go test on the changed prompt passed:\n%s", child)
	}
	got.WriteString("\n$ go test\n")
	got.Write(child)

	text := strings.ReplaceAll(got.String(), dir, "$WORK")
	text = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`).ReplaceAllString(text, "0s")
	for i, section := range strings.Split(text, "\n$ ") {
		if n := strings.Count(section, "\n"); n > 30 {
			t.Errorf("the output of a one-line prompt change in two scenarios, under command %d, is %d lines, not at most 30", i+1, n)
		}
	}
	golden := filepath.Join("testdata", "prompt-change.txt")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestPromptChangeOutput -update writes it)", err)
	}
	if text != string(want) {
		t.Errorf("the output differs from %s (go test -run TestPromptChangeOutput -update rewrites it):\n%s", golden, text)
	}
}

// TestPromptChangeChild replays the folder TestPromptChangeOutput names,
// as a user's TestScenarios would; it is skipped otherwise.
func TestPromptChangeChild(t *testing.T) {
	dir := os.Getenv(promptChangeDir)
	if dir == "" {
		t.Skip("run by TestPromptChangeOutput only")
	}
	harness.Test(t, dir, &harness.TestOptions{Agents: agents, Command: notesrun})
}
