package evalrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompareRefusesBrokenReports: compare validates a report as it loads
// it (an error naming the file and the key, exit 2), bounds its work,
// refuses --detect NaN, prints no control character of a name raw, and
// stops on a signal (issue 39, item 11).
func TestCompareRefusesBrokenReports(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.json")
	writeRun(t, good, "m/x", map[string][2]int{"one": {3, 5}})
	report := func(scenario string) string {
		return `{"format": "tapeloop-eval/v1", "models": [{"name": "m/x", "trials": 5, "passed": 3}], "scenarios": [` + scenario + `]}`
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"passes over trials", report(`{"name": "one", "model": "m/x", "trials": 5, "passed": 7}`), "scenarios[0] (one): passed 7 is more than trials 5"},
		{"a negative count", report(`{"name": "one", "model": "m/x", "trials": -5, "passed": 0}`), "scenarios[0] (one): trials -5 is negative"},
		{"nothing at all", report(`{"name": "one", "model": "m/x", "trials": 0, "passed": 0}`), "scenarios[0] (one): no trial scored, errored or left unrun"},
		{"two billion trials", report(`{"name": "one", "model": "m/x", "trials": 2000000000, "passed": 1000000000}`), "scenarios[0] (one): trials 2000000000 is more than 100000"},
		{"a negative model count", `{"format": "tapeloop-eval/v1", "models": [{"name": "m/x", "trials": 5, "passed": -1}], "scenarios": []}`, "models[0] (m/x): passed -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-")+".json")
			os.WriteFile(bad, []byte(tc.doc), 0o644)
			done := make(chan struct{})
			var code int
			var out, errOut string
			go func() {
				defer close(done)
				code, out, errOut = runCmd(t, "compare", good, bad)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute): // a guard against the old endless loop, not a timing
				t.Fatal("compare did not return")
			}
			if code != exitUsage || !strings.Contains(errOut, bad) || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want 2 with an error naming %s and saying %q\n%s%s", code, bad, tc.want, out, errOut)
			}
		})
	}
	if code, _, errOut := runCmd(t, "compare", "--detect", "NaN", good, good); code != exitUsage || !strings.Contains(errOut, "--detect") {
		t.Errorf("--detect NaN: exit %d, want 2\n%s", code, errOut)
	}
	odd := filepath.Join(tmp, "odd.json")
	writeRun(t, odd, "m/x", map[string][2]int{"one\x1b[2J\rfake PASS": {3, 5}})
	if code, out, errOut := runCmd(t, "compare", odd, odd); code != exitOK || strings.ContainsAny(out+errOut, "\x1b\r") {
		t.Errorf("a name with control characters: exit %d, printed raw:\n%q\n%q", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"compare", good, good}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != exitFailed || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("compare after a signal: exit %d, want 1 saying it was interrupted\n%s%s", code, out.String(), errb.String())
	}
}
