package evalrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// TestMergeRefusesInconsistentTrials: merge refuses a trial number given
// twice, an unknown status and a status that contradicts passed, instead
// of dropping or miscounting them (issue 21).
func TestMergeRefusesInconsistentTrials(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.json")
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--shard", "1/1", "--json", good, dir); code != exitOK {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		name   string
		change func(tr []report.EvalTrial)
		want   string
	}{
		{"duplicate", func(tr []report.EvalTrial) { tr[1].Trial = tr[0].Trial }, "trial 1 is listed twice"},
		{"unknown status", func(tr []report.EvalTrial) { tr[0].Status = "skipped" }, `unknown status "skipped"`},
		{"mismatch", func(tr []report.EvalTrial) { tr[0].Passed = false }, `status "pass" with passed false`},
	} {
		r := readReport(t, good)
		tc.change(r.Scenarios[0].TrialsDetail)
		bad := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "-")+".json")
		writeEval(t, bad, r)
		code, _, errOut := runCmd(t, "merge", bad, "--json", filepath.Join(tmp, "m.json"))
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 saying %q", tc.name, code, errOut, tc.want)
		}
	}
}
