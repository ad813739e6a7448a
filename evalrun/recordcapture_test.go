package evalrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// record --new --capture stores what the captured tool answered as a
// recorded stand-in in the new scenario's setup.tools.
func TestRecordNewCaptures(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "scenarios", "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scenarios", "read.yaml")
	f := scripted(callResponse("call_1", "read_file", `{"path": "notes.txt"}`), textResponse("It says hello."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--new", path, "--model", "fake/m", "--prompt", "What does notes.txt say?",
		"--tools", "read_file", "--workspace", ws, "--capture", "read_file", "--no-golden")
	data, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(data), "      fixture: recorded\n") || !strings.Contains(string(data), "content: |\n              hello\n") {
		t.Errorf("exit %d; want the read captured in\n%s\nstdout:\n%s\nstderr:\n%s", code, data, out, errOut)
	}
}

// record --capture also replaces a tool written in the long form (a
// mapping with its name), not only a bare name.
func TestRecordCapturesALongFormTool(t *testing.T) {
	scenario := `format: tapeloop/v1
setup:
  workspace:
    files: {notes.txt: "hello\n"}
  tools:
    - {name: read_file}
input:
  - {role: user, content: "What does notes.txt say?"}
tape: []
`
	dir := newScenarios(t, map[string]string{"read.yaml": scenario})
	path := filepath.Join(dir, "read.yaml")
	f := scripted(callResponse("call_1", "read_file", `{"path": "notes.txt"}`), textResponse("It says hello."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--capture", "read_file", "--no-golden", path)
	data, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(data), "  tools:\n    # Captured by evalrun record --capture; it was:\n    # {name: read_file}\n    - name: read_file\n      fixture: recorded\n") {
		t.Errorf("exit %d; want the long-form read_file replaced by its stand-in in\n%s\nstdout:\n%s\nstderr:\n%s", code, data, out, errOut)
	}
}
