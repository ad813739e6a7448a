package evalrun

import (
	"bufio"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
)

// doneScenario is one model call a trial passes by answering "done".
const doneScenario = `format: tapeloop/v1
input:
  - {role: user, content: "Say done."}
tape: []
expect:
  termination: final_text
  final: {contains: "done"}
`

var evalrunBinary struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// TestMain removes the evalrun binary buildEvalrun built (114 MB in the
// temporary directory, left behind by every run of this package before)
// and the RSS launcher buildLauncher built.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range []string{evalrunBinary.path, launcher.path} {
		if p != "" {
			os.RemoveAll(filepath.Dir(p))
		}
	}
	os.Exit(code)
}

// buildEvalrun builds cmd/evalrun once per test binary, for the tests that
// signal a real process.
func buildEvalrun(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build cmd/evalrun with")
	}
	evalrunBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "tapeloop-evalrun-bin-")
		if err != nil {
			evalrunBinary.err = err
			return
		}
		evalrunBinary.path = filepath.Join(dir, "evalrun")
		evalrunBinary.out, evalrunBinary.err = exec.Command(goTool, "build", "-o", evalrunBinary.path, "../cmd/evalrun").CombinedOutput()
	})
	if evalrunBinary.err != nil {
		t.Fatalf("building cmd/evalrun: %v\n%s", evalrunBinary.err, evalrunBinary.out)
	}
	return evalrunBinary.path
}

// heldModel answers "done" to every trial but the one numbered hold (in
// the order trials start), whose request it reports on held and keeps
// until release is closed (never, when release is nil).
type heldModel struct {
	hold    int
	held    chan struct{}
	release chan struct{}

	mu     sync.Mutex
	trials int
}

func newHeldModel(hold int, release chan struct{}) *heldModel {
	return &heldModel{hold: hold, held: make(chan struct{}), release: release}
}

func (m *heldModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	m.trials++
	n := m.trials
	m.mu.Unlock()
	if n == m.hold {
		close(m.held)
		select {
		case <-m.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop}, nil
}

func (m *heldModel) started() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.trials
}

// evalChild is a running evalrun eval whose standard error is read line
// by line.
type evalChild struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr strings.Builder
	done   chan struct{}
}

func startEval(t *testing.T, bin string, args ...string) *evalChild {
	t.Helper()
	c := &evalChild{cmd: exec.Command(bin, append([]string{"eval"}, args...)...), lines: make(chan string, 100), done: make(chan struct{})}
	c.cmd.Stdout = io.Discard
	pipe, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		s := bufio.NewScanner(pipe)
		for s.Scan() {
			c.stderr.WriteString(s.Text() + "\n")
			select {
			case c.lines <- s.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

// waitLine waits for a line of standard error containing s.
func (c *evalChild) waitLine(t *testing.T, s string) {
	t.Helper()
	for {
		select {
		case line := <-c.lines:
			if strings.Contains(line, s) {
				return
			}
		case <-c.done:
			t.Fatalf("evalrun eval ended without printing %q:\n%s", s, c.stderr.String())
		}
	}
}

// waitHeld waits until the process's trial reaches model's held call.
func (c *evalChild) waitHeld(t *testing.T, model *heldModel) {
	t.Helper()
	select {
	case <-model.held:
	case <-c.done:
		code, stderr := c.wait(t)
		t.Fatalf("eval ended (exit %d) before its trial %d:\n%s", code, model.hold, stderr)
	}
}

// wait waits for the process and returns its exit code and standard error.
func (c *evalChild) wait(t *testing.T) (int, string) {
	t.Helper()
	<-c.done
	err := c.cmd.Wait()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return c.cmd.ProcessState.ExitCode(), c.stderr.String()
}

// checkpointTrials counts the finished trials a checkpoint file holds, and
// fails on a line that is not a whole JSON line.
func checkpointTrials(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s ends with a half-written line: %q", path, data)
	}
	return strings.Count(string(data), `"trial":{`)
}

// TestEvalSIGTERMCheckpointsAndResumes: a real evalrun eval stopped by
// SIGTERM says so at once, lets the running trial finish, keeps every
// finished trial in its --checkpoint file, writes its report and exits 1;
// the same command run again resumes from the checkpoint and runs only the
// trial that never ran (issue 39, item 9).
func TestEvalSIGTERMCheckpointsAndResumes(t *testing.T) {
	bin := buildEvalrun(t)
	dir := newScenarios(t, map[string]string{"s/done.yaml": doneScenario})
	release := make(chan struct{})
	model := newHeldModel(2, release)
	srv := httptest.NewServer(bridge.Handler(model, nil))
	defer srv.Close()
	tmp := t.TempDir()
	ckpt, jsonPath := filepath.Join(tmp, "eval.checkpoint"), filepath.Join(tmp, "r.json")
	args := []string{"--model", "openai-compatible/gpt-test", "--base-url", srv.URL + "/v1", "--trials", "3", "--parallel", "1",
		"--checkpoint", ckpt, "--json", jsonPath, dir}

	c := startEval(t, bin, args...)
	c.waitHeld(t, model)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.waitLine(t, "interrupted")
	close(release) // the running trial finishes in its grace period
	code, stderr := c.wait(t)
	if code != exitFailed {
		t.Fatalf("the interrupted eval: exit %d, want 1\n%s", code, stderr)
	}
	r := readReport(t, jsonPath)
	if r.Summary.Stopped != report.StoppedInterrupted || r.Summary.Passed != 2 || r.Summary.NotRun != 1 {
		t.Errorf("the interrupted report's summary %+v; want interrupted, 2 passed, 1 not run", r.Summary)
	}
	if n := checkpointTrials(t, ckpt); n != 2 {
		t.Errorf("the checkpoint holds %d trials, want the 2 finished", n)
	}

	before := model.started()
	c = startEval(t, bin, args...)
	code, stderr = c.wait(t)
	if code != exitOK {
		t.Fatalf("the rerun: exit %d, want 0\n%s", code, stderr)
	}
	if n := model.started() - before; n != 1 {
		t.Errorf("the rerun ran %d trials, want only the 1 not run", n)
	}
	if r := readReport(t, jsonPath); r.Summary.Passed != 3 || r.Summary.Stopped != "" {
		t.Errorf("the rerun's summary %+v; want 3 passed", r.Summary)
	}
}

// TestEvalKill9LeavesACheckpoint: after kill -9 in the middle of a trial,
// the checkpoint holds every finished trial and nothing half-written, and
// the rerun with it resumes (issue 39, item 9).
func TestEvalKill9LeavesACheckpoint(t *testing.T) {
	bin := buildEvalrun(t)
	dir := newScenarios(t, map[string]string{"s/done.yaml": doneScenario})
	model := newHeldModel(3, nil) // the third trial hangs until the process dies
	srv := httptest.NewServer(bridge.Handler(model, nil))
	defer srv.Close()
	ckpt := filepath.Join(t.TempDir(), "eval.checkpoint")
	args := []string{"--model", "openai-compatible/gpt-test", "--base-url", srv.URL + "/v1", "--trials", "3", "--parallel", "1", "--checkpoint", ckpt, dir}

	c := startEval(t, bin, args...)
	c.waitHeld(t, model)
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.wait(t)
	if n := checkpointTrials(t, ckpt); n != 2 {
		t.Fatalf("after kill -9 the checkpoint holds %d trials, want the 2 finished", n)
	}
	before := model.started()
	c = startEval(t, bin, args...)
	if code, stderr := c.wait(t); code != exitOK || !strings.Contains(stderr, "resum") {
		t.Fatalf("the rerun: exit %d, want 0 and a word that it resumed\n%s", code, stderr)
	}
	if n := model.started() - before; n != 1 {
		t.Errorf("the rerun ran %d trials, want only the 1 the kill cut short", n)
	}
}

// TestEvalDrainIsBounded: a trial that never ends does not hold up an
// interrupted eval past its grace period: the trial is cancelled, the
// finished one is kept and the report is written (issue 39, item 9).
func TestEvalDrainIsBounded(t *testing.T) {
	bin := buildEvalrun(t)
	dir := newScenarios(t, map[string]string{"s/done.yaml": doneScenario})
	model := newHeldModel(2, nil)
	srv := httptest.NewServer(bridge.Handler(model, nil))
	defer srv.Close()
	tmp := t.TempDir()
	ckpt, jsonPath := filepath.Join(tmp, "eval.checkpoint"), filepath.Join(tmp, "r.json")
	c := startEval(t, bin, "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1", "--trials", "3", "--parallel", "1",
		"--checkpoint", ckpt, "--json", jsonPath, "--grace", "1ms", dir)
	c.waitHeld(t, model)
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, stderr := c.wait(t)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if r := readReport(t, jsonPath); r.Summary.Passed != 1 || r.Summary.NotRun != 2 {
		t.Errorf("summary %+v; want 1 passed, 2 not run (one cancelled)", r.Summary)
	}
	if n := checkpointTrials(t, ckpt); n != 1 {
		t.Errorf("the checkpoint holds %d trials, want 1", n)
	}
}
