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

// Markers around the README's first failure, which TestReadmeFailure
// writes (-update) and checks.
const (
	readmeBegin = "<!-- the output below is written by examples/notes/failure_output_test.go (TestReadmeFailure) -->\n```\n"
	readmeEnd   = "```\n<!-- end of TestReadmeFailure's output -->"
)

// TestReadmeFailure pins the failure the README opens with, as a user sees
// it: the notes agent's system prompt gained a sentence after its tape was
// recorded; go test of the example (this test binary's TestScenarios, run
// in a copy of the module's folders with that tape) fails with the
// prompt's diff and the command that accepts it; that command (rebase,
// through cmd/notesrun's options) accepts it; and the same go test then
// passes. go test -run TestReadmeFailure -update rewrites the README's
// block, with times as 0.00s.
func TestReadmeFailure(t *testing.T) {
	if os.Getenv(promptChangeDir) != "" {
		t.Skip("the child run of TestPromptChangeChild")
	}
	readme, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	scenarios := filepath.Join(root, "examples", "notes", "scenarios")
	if err := os.MkdirAll(scenarios, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"add-item.yaml", "add-item.golden.yaml"} {
		b, err := os.ReadFile(filepath.Join("scenarios", file))
		if err != nil {
			t.Fatal(err)
		}
		// The tape was recorded when the prompt was one sentence shorter.
		old := strings.Replace(string(b), "system: You keep the user's notes in files. Read a note before you change it.", "system: You keep the user's notes in files.", 1)
		if old == string(b) && file == "add-item.yaml" {
			t.Fatalf("%s: no offered.system line to change", file)
		}
		if err := os.WriteFile(filepath.Join(scenarios, file), []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func() (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestScenarios$/^add-item$")
		cmd.Dir = filepath.Dir(scenarios)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	var text strings.Builder
	const test = "$ go test ./examples/notes -run TestScenarios/add-item\n"
	failed, err := goTest()
	if err == nil {
		t.Fatalf("go test passed on the changed prompt:\n%s", failed)
	}
	text.WriteString(test + failed)

	accept := "rebase examples/notes/scenarios/add-item.yaml"
	if !strings.Contains(failed, "`"+notesrun+" "+accept+"`") {
		t.Errorf("the failure does not name the command %q", notesrun+" "+accept)
	}
	t.Chdir(root)
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), strings.Fields(accept), &out, &errb, &evalrun.Options{Agents: agents, Command: notesrun})
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", accept, code, out.String(), errb.String())
	}
	text.WriteString("$ " + notesrun + " " + accept + "\n" + out.String() + errb.String())
	passed, err := goTest()
	if err != nil {
		t.Fatalf("go test after the rebase:\n%s", passed)
	}
	text.WriteString(test + passed)

	block := regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`).ReplaceAllString(text.String(), "0.00s")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(data), readmeBegin)
	_, after, ok2 := strings.Cut(rest, readmeEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no block between %q and %q; it would hold:\n%s", readmeBegin, readmeEnd, block)
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		data = []byte(before + readmeBegin + block + readmeEnd + after)
		if err := os.WriteFile(readme, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rest = block + readmeEnd
	}
	if got, _, _ := strings.Cut(rest, readmeEnd); got != block {
		t.Errorf("README.md's first failure is not what the code prints (go test ./examples/notes -run TestReadmeFailure -update rewrites it):\n%s", block)
	}
}
