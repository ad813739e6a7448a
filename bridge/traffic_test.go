package bridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/workspace"
)

// touched returns the file effects among events: op, path and bytes (the
// file's size after the change, 0 after a delete, as tools.FileEffect
// documents).
func touched(events []agent.Event) []string {
	var out []string
	for _, e := range events {
		if e.Kind == agent.EventToolEnd && e.Result != nil {
			for _, f := range e.Result.Effects {
				out = append(out, fmt.Sprintf("%s %s %d", f.File.Op, f.File.Path, f.File.Bytes))
			}
		}
	}
	return out
}

// TestTurnEndsByStatus: a turn's end reports the files whose status
// changed and, while their last change is recent (within racyWindow of the
// previous scan), every file, since a rewrite may keep size and times; a
// file that changed long before the scan and kept its status is not
// reported.
func TestTurnEndsByStatus(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, name := range []string{"a.txt", "b.txt", "gone.txt"} {
		if err := ws.WriteFile(name, []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	var events []agent.Event
	tr, err := newTraffic(nil, ws, func(e agent.Event) { events = append(events, e) }, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The files changed long before the scan: only what changes is reported.
	tr.scanned = time.Now().Add(time.Hour)
	tr.open = true
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a.txt, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := tr.closeTurn(); err != nil {
		t.Fatal(err)
	}
	if got, want := touched(events), []string{"modify a.txt 13", "create new.txt 3", "delete gone.txt 0"}; !slices.Equal(got, want) {
		t.Errorf("long-settled files: reported %q, want %q", got, want)
	}

	// Just changed: every file is reported, changed or not.
	events = nil
	tr.open = true
	if err := tr.closeTurn(); err != nil {
		t.Fatal(err)
	}
	if got, want := touched(events), []string{"modify a.txt 13", "modify b.txt 5", "modify new.txt 3"}; !slices.Equal(got, want) {
		t.Errorf("recently changed files: reported %q, want %q", got, want)
	}
}

// TestSameSizeRewriteWithTimesKept: an agent that rewrites a file with the
// same number of bytes within a turn and sets its modification time back
// still shows the change in that turn's diff, from what the file held.
func TestSameSizeRewriteWithTimesKept(t *testing.T) {
	text := `format: tapeloop/v1
setup:
  agent: {go: rewrite}
  workspace:
    files: {note.txt: "aaaa\n"}
input:
  - {role: user, content: "Rewrite the note."}
tape: []
`
	path := filepath.Join(t.TempDir(), "rewrite.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	agentFn := func(ctx context.Context, r *Run) error {
		note := filepath.Join(r.Dir, "note.txt")
		for i, content := range []string{"bbbb\n", "cccc\n", ""} {
			resp, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json",
				strings.NewReader(fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"turn %d"}]}`, i)))
			if err != nil {
				return err
			}
			resp.Body.Close()
			if content == "" {
				return nil
			}
			fi, err := os.Stat(note)
			if err != nil {
				return err
			}
			if err := os.WriteFile(note, []byte(content), 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(note, fi.ModTime(), fi.ModTime()); err != nil {
				return err
			}
		}
		return nil
	}
	o, err := runScenario(t.Context(), s, agentFn, &runOptions{Model: llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("ok"), FinishReason: llm.FinishStop}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Turns) != 3 {
		t.Fatalf("%d turns, want 3", len(o.Turns))
	}
	// Each turn's diff goes from what the file held before it (the
	// workspace's first scan, as the recorder's baseline, for turn 1).
	for i, want := range [][]string{{"-aaaa", "+bbbb"}, {"-bbbb", "+cccc"}} {
		for _, line := range want {
			if !strings.Contains(o.Turns[i].Diff, line) {
				t.Errorf("turn %d's diff does not hold %q:\n%s", i+1, line, o.Turns[i].Diff)
			}
		}
	}
}

// TestChangedExactlyAtTheRacyWindow: a file whose status last changed
// exactly racyWindow before the previous scan may still differ (the window
// includes its edge); one that changed a nanosecond earlier and kept its
// status is settled.
func TestChangedExactlyAtTheRacyWindow(t *testing.T) {
	tr := &traffic{scanned: time.Unix(1000, 0)}
	edge := tr.scanned.Add(-racyWindow).UnixNano()
	st := fileStat{size: 1, mtime: edge, ctime: edge, ino: 7, known: true}
	if !tr.mayDiffer(st, st) {
		t.Error("a file changed exactly racyWindow before the scan is taken as unchanged")
	}
	st.mtime, st.ctime = edge-1, edge-1
	if tr.mayDiffer(st, st) {
		t.Error("a file settled before the racy window, with its status kept, is taken as changed")
	}
}

// TestTurnWithoutChangesHasNoToolEnd: a turn that changed no file ends
// with turn_end alone: an observer sees no tool_end with an empty list of
// effects.
func TestTurnWithoutChangesHasNoToolEnd(t *testing.T) {
	ws, err := workspace.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteFile("a.txt", []byte("a")); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	tr, err := newTraffic(nil, ws, func(e agent.Event) { kinds = append(kinds, string(e.Kind)) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.scanned = time.Now().Add(time.Hour) // a.txt is settled
	tr.open = true
	if err := tr.closeTurn(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kinds, " "); got != string(agent.EventTurnEnd) {
		t.Errorf("a turn that changed nothing ended with the events %q, want turn_end alone", got)
	}
}

// TestModelCallNumbersPairEvents: each model event names the call it
// belongs to; a failed call repeated unchanged is the same call (its
// retry), a new request the next.
func TestModelCallNumbersPairEvents(t *testing.T) {
	ws, err := workspace.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	fail := true
	model := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		if fail {
			fail = false
			return nil, &llm.ProviderError{Kind: llm.ErrRateLimited, Message: "slow down"}
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}}, nil
	})
	var got []string
	tr, err := newTraffic(model, ws, func(e agent.Event) {
		if strings.HasPrefix(string(e.Kind), "model_") {
			got = append(got, fmt.Sprintf("%s %d", e.Kind, e.ModelCall))
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &llm.Request{Messages: []llm.Message{llm.UserMessage("a")}}
	b := &llm.Request{Messages: []llm.Message{llm.UserMessage("b")}}
	for _, req := range []*llm.Request{a, a, b} {
		tr.Generate(context.Background(), req)
	}
	want := []string{"model_request 1", "model_error 1", "model_retry 1", "model_response 1", "model_request 2", "model_response 2"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestTurnDiffShowsLinksAndSpecialFiles: what an agent makes between two
// model calls that is not a plain file (symbolic links, a named pipe, hard
// links, a mode change) shows in that turn's diff, from the turn-end scan
// that lists them, and the content of a file linked from outside the
// workspace reaches neither the diff nor the end state.
func TestTurnDiffShowsLinksAndSpecialFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := `format: tapeloop/v1
setup:
  agent: {go: links}
  workspace:
    files: {a.txt: "alpha\n", run.sh: "echo hi\n"}
input:
  - {role: user, content: "Link things."}
tape: []
`
	path := filepath.Join(t.TempDir(), "links.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var skip error
	agentFn := func(ctx context.Context, r *Run) error {
		ask := func() error {
			resp, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"go"}]}`))
			if err != nil {
				return err
			}
			return resp.Body.Close()
		}
		if err := ask(); err != nil {
			return err
		}
		at := func(name string) string { return filepath.Join(r.Dir, name) }
		for _, step := range []func() error{
			func() error { return os.Symlink("/etc/passwd", at("esc")) },
			func() error { return syscall.Mkfifo(at("p"), 0o644) },
			func() error { return os.Link(at("a.txt"), at("b.txt")) },
			func() error { return os.Link(outside, at("out")) },
			func() error { return os.Chmod(at("run.sh"), 0o755) },
		} {
			if err := step(); err != nil {
				skip = err
				return nil
			}
		}
		return ask()
	}
	o, err := runScenario(t.Context(), s, agentFn, &runOptions{Model: llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("ok"), FinishReason: llm.FinishStop}, nil
	})})
	if skip != nil {
		t.Skipf("cannot make links here: %v", skip)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Turns) != 2 {
		t.Fatalf("%d turns, want 2", len(o.Turns))
	}
	want := `diff --git a/b.txt b/b.txt
new hard link to a.txt
diff --git a/esc b/esc
new file mode 120000
--- /dev/null
+++ b/esc
@@ -0,0 +1 @@
+/etc/passwd
\ No newline at end of file
diff --git a/out b/out
new hard link to a file outside the workspace
diff --git a/p b/p
new named pipe
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
`
	if got := o.Turns[0].Diff; got != want {
		t.Errorf("turn 1's diff:\n%s\nwant:\n%s", got, want)
	}
	g, err := o.Golden(nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(g), "s3cret") {
		t.Errorf("the golden holds the content of the file outside:\n%s", g)
	}
}

// unlistable is a workspace whose listing fails once err is set.
type unlistable struct {
	workspace.FS
	err error
}

func (u *unlistable) Walk(fn func(string, fs.DirEntry) error) error {
	if u.err != nil {
		return u.err
	}
	return u.FS.Walk(fn)
}

// TestFinishFailsWhenTheWorkspaceCannotBeListed: at the run's end the last
// turn's changes come from a scan of the workspace; when it cannot be
// listed the run fails with that error rather than leaving the turn's
// changes out of the outcome.
func TestFinishFailsWhenTheWorkspaceCannotBeListed(t *testing.T) {
	disk, err := workspace.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	ws := &unlistable{FS: disk}
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}}, nil
	})
	tr, err := newTraffic(model, ws, func(agent.Event) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("listing refused")
	ws.err = refused
	run, _, err := tr.finish(&Run{}, nil)
	if !errors.Is(err, refused) || run != nil {
		t.Errorf("finish over an unlistable workspace: run %v, error %v; want no run and the listing's error", run, err)
	}
}
