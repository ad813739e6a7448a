package evalrun

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	_ "github.com/tapeloop/tapeloop/llm/builtin" // as cmd/evalrun: openai-compatible
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/report"
)

// TestEvalOverHTTP runs the command end to end against the scripted
// OpenAI-compatible server through the real provider (streaming): a right,
// a broken-JSON and an alternating model; the alternating model's failing
// trials are saved and replayed with no model, reproducing the failure; a
// missing key is a configuration error (exit 2).
func TestEvalOverHTTP(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, out, errOut := runCmd(t, "eval", "--model", "openai-compatible/right", "--model", "openai-compatible/broken", "--model", "openai-compatible/alternate",
		"--trials", "4", "--parallel", "3", "--save-trials", saved, "--save-trials-failed", "--json", jsonPath, dir)
	if code != exitFailed {
		t.Fatalf("exit %d; want 1 (alternate is flaky)\n%s%s", code, out, errOut)
	}
	want := "files/append  4/4 pass                 4/4 pass                  2/4 flaky  differs\n"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	r := readReport(t, jsonPath)
	if m := r.Models[0]; m.Tokens != (report.Tokens{Input: 400, Output: 80, Cached: 160}) || m.ModelCalls != 8 {
		t.Errorf("right: tokens %+v, %d calls; want 400/80/160 and 8", m.Tokens, m.ModelCalls)
	}
	// Which trials of the alternating model failed depends on the order
	// trials reached the server; each saved failure must replay as a failure.
	var failed int
	for _, tr := range r.Scenarios[2].TrialsDetail {
		if tr.Status == report.StatusFail {
			failed++
			if tr.Saved == "" {
				t.Errorf("failing trial %d was not saved", tr.Trial)
			}
		}
	}
	code, out, errOut = runCmd(t, "replay", saved)
	if code != exitFailed || failed != 2 || !strings.Contains(out, "0 passed, 2 failed") || !strings.Contains(out, `expect.files: expected notes.txt to hold "hello\nworld\n", found "world\n"`) {
		t.Errorf("replaying the saved failures: exit %d, %d failed live\n%s%s", code, failed, out, errOut)
	}
	t.Setenv("OPENAI_API_KEY", "")
	code, _, errOut = runCmd(t, "eval", "--model", "openai/gpt-4.1-mini", dir)
	if code != exitUsage || !strings.Contains(errOut, "OPENAI_API_KEY") {
		t.Errorf("a missing key: exit %d, stderr %q; want 2 naming OPENAI_API_KEY", code, errOut)
	}
}

// TestEvalUnreachableServerNamesTheCause points the OpenAI-compatible
// provider at a local port that was just closed: every trial is an error
// trial, tried twice (once retried, not three times, on a virtual clock),
// and the terminal names the cause once with its count and the URL, not
// just "(+2 err)".
func TestEvalUnreachableServerNamesTheCause(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close()
	t.Setenv("OPENAI_BASE_URL", base)
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"eval", "--model", "openai-compatible/right", "--trials", "2", "--parallel", "1", "--json", jsonPath, dir},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: clock.NewVirtual(clock.Epoch)})
	if code != exitErrored {
		t.Fatalf("exit %d; want %d (trials errored)\n%s%s", code, exitErrored, out.String(), errb.String())
	}
	want := "  error trials (openai-compatible/right): 2× model call failed: "
	line := ""
	for l := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(l, "  error trials") {
			if line != "" {
				t.Errorf("a second cause line %q after %q", l, line)
			}
			line = l
		}
	}
	if !strings.HasPrefix(line, want) || !strings.Contains(line, "unreachable: cannot reach the server at "+base) || !strings.Contains(line, "connection refused") {
		t.Errorf("cause line %q; want %q... naming %s and the refused connection\n%s", line, want, base, out.String())
	}
	r := readReport(t, jsonPath)
	for _, tr := range r.Scenarios[0].TrialsDetail {
		if tr.Status != report.StatusError || len(tr.Tape) != 1 {
			t.Errorf("trial %d: %s with %d model calls recorded; want an error trial with one (its retry folded in)", tr.Trial, tr.Status, len(tr.Tape))
		}
	}
}
