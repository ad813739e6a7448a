package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
)

// The expect block record --new writes pins the final text with equals when
// it is one line of at most 200 bytes; a longer one is left out.
func TestExpectNodeFinalUpTo200Bytes(t *testing.T) {
	red := redact.Default()
	for _, tc := range []struct {
		final string
		want  bool
	}{{strings.Repeat("a", 200), true}, {strings.Repeat("a", 201), false}, {"two\nlines", false}} {
		n := expectNode(&harness.Outcome{Termination: "final_text", Iterations: 1, Final: tc.final}, red)
		got := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "final" {
				got = true
			}
		}
		if got != tc.want {
			t.Errorf("a final text of %d bytes: final pinned %v, want %v", len(tc.final), got, tc.want)
		}
	}
}

// record --new with only a prompt writes no setup block (no tools, no
// workspace), and the expect block of a run that changed no file has no
// files key: the scenario holds only what the run had.
func TestRecordNewWithOnlyAPrompt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "chat", "hello.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m", "--prompt", "Say hello.")
	if code != exitOK {
		t.Fatalf("--new: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.Contains(s, "setup:") || strings.Contains(s, "files:") {
		t.Errorf("the new scenario has a setup or files key for a run without tools, workspace or file changes:\n%s", s)
	}
	if want := "expect:\n  termination: final_text\n  iterations: 1\n  tool_calls: []\n  final:\n    equals: Hello.\n"; !strings.HasSuffix(s, want) {
		t.Errorf("the new scenario does not end with\n%s\nin\n%s", want, s)
	}
}

// record --new checks the scenario it is about to record against the
// tools there are before any model call: a tool no fixture or factory
// provides is a usage error naming it, and nothing is written.
func TestRecordNewRefusesAnUnknownTool(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "new.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m", "--prompt", "Hi.", "--tools", "no_such_tool")
	if code != exitUsage || !strings.Contains(errOut, "no_such_tool") {
		t.Errorf("exit %d, want 2 naming no_such_tool\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the new scenario was written: %v", err)
	}
}

// record --new writes a failed recording only with --keep-failed.
func TestRecordNewKeepsAFailedRecordingOnlyWhenAsked(t *testing.T) {
	failing := func() *fakeLive {
		return &fakeLive{answer: func(_ context.Context, n int, _ *llm.Request) (*llm.Response, error) {
			if n == 1 {
				return callResponse("call_1", "read_file", `{"path":"notes.txt"}`), nil
			}
			return nil, errors.New("503 overloaded")
		}}
	}
	dir := t.TempDir()
	for _, keep := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("keep-%v.yaml", keep))
		args := []string{"--new", path, "--model", "fake/m", "--prompt", "Read notes.txt.", "--tools", "read_file", "--no-golden"}
		if keep {
			args = append(args, "--keep-failed")
		}
		code, out, errOut := runRecordCmd(t, context.Background(), failing(), args...)
		data, err := os.ReadFile(path)
		if code != exitFailed || (err == nil) != keep || keep && !strings.Contains(string(data), "  - error: 503 overloaded\n") {
			t.Errorf("--keep-failed %v: exit %d, file %v (%v):\n%s\nstdout:\n%s\nstderr:\n%s", keep, code, err == nil, err, data, out, errOut)
		}
	}
}

// TestRecordNewNeedsAPrompt: record --new without --prompt is a usage
// error, and nothing is written.
func TestRecordNewNeedsAPrompt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "new.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m")
	if code != exitUsage || !strings.Contains(errOut, "evalrun record --new: --prompt is required") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 2: --prompt is required", code, out, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("record --new without --prompt wrote %s (%v)", path, err)
	}
}

// record --new --json says which scenario it recorded, where, with what
// status, and the calls and tokens its recording took.
func TestRecordNewJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "chat", "hello.yaml")
	code, stdout, stderr := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m", "--prompt", "Say hello.", "--json", "-")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var d recordDocument
	if err := json.Unmarshal([]byte(stdout), &d); err != nil || len(d.Scenarios) != 1 {
		t.Fatalf("%v; stdout:\n%s", err, stdout)
	}
	s := d.Scenarios[0]
	if s.Name != "chat/hello" || s.File != path || s.Status != "recorded" || s.Reason != "" || !s.Written || s.Calls != 1 || s.Tokens.Input != 150 || s.Tokens.Output != 5 {
		t.Errorf("scenario: %+v\nstdout:\n%s", s, stdout)
	}
}

// record --new with a model that cannot be opened is a usage error naming
// why, before any scenario is written.
func TestRecordNewModelNotOpened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "new.yaml")
	var out, errb bytes.Buffer
	refuse := func(context.Context, string, *llm.OpenOptions) (llm.Model, error) {
		return nil, errors.New("no provider named nosuch")
	}
	code := recordCommand(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, []string{"--new", path, "--model", "nosuch/m", "--prompt", "Hi."}, refuse)
	if code != exitUsage || !strings.Contains(errb.String(), "no provider named nosuch") {
		t.Errorf("exit %d, want 2 naming the refusal\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the new scenario was written: %v", err)
	}
}
