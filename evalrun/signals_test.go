package evalrun

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
)

// sigtermAt is the context of the SIGTERM test's run; the "sigterm"
// provider sends the process SIGTERM on its first call and answers once
// the signal has reached it.
var sigtermAt struct {
	mu  sync.Mutex
	ctx context.Context
}

func init() {
	llm.Register("sigterm", llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		calls := 0
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			sigtermAt.mu.Lock()
			calls++
			first, sig := calls == 1, sigtermAt.ctx
			sigtermAt.mu.Unlock()
			if first {
				syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
				<-sig.Done() // the run is stopping; this trial goes on in its grace period
				return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`}),
					FinishReason: llm.FinishToolCalls}, nil
			}
			return &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop}, nil
		}), nil
	}))
}

// TestEvalStopsOnSIGTERM: SIGTERM stops eval as Ctrl-C does: no trial
// starts, the running one finishes in its grace period, the report and the
// saved trial are written, and the exit status is 1 (issue 21, item 10).
func TestEvalStopsOnSIGTERM(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	saved := filepath.Join(dir, "saved")
	ctx, stop := NotifyContext(context.Background())
	defer stop()
	sigtermAt.mu.Lock()
	sigtermAt.ctx = ctx
	sigtermAt.mu.Unlock()
	var outb, errb bytes.Buffer
	code := run(ctx, []string{"eval", "--model", "sigterm/x", "--trials", "3", "--parallel", "1", "--json", jsonPath, "--save-trials", saved, dir}, &env{stdin: strings.NewReader(""), stdout: &outb, stderr: &errb})
	out, errOut := outb.String(), errb.String()
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	r := readReport(t, jsonPath)
	if r.Summary.Stopped != report.StoppedInterrupted || r.Summary.Passed != 1 || r.Summary.NotRun != 2 {
		t.Errorf("summary %+v; want interrupted, 1 passed, 2 not run", r.Summary)
	}
	if tr := r.Scenarios[0].TrialsDetail; len(tr) != 1 || tr[0].Saved == "" {
		t.Errorf("the finished trial was not saved: %+v", tr)
	}
}
