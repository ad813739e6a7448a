package evalrun

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// writeEval writes an eval report to a file.
func writeEval(t *testing.T, path string, r *report.Eval) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.WriteEval(f, r); err != nil {
		t.Fatal(err)
	}
}

// untimed zeroes what differs between two runs of the same trials: times.
func untimed(r *report.Eval) *report.Eval {
	r.Shard = nil
	r.Summary.WallMS = 0
	for i := range r.Models {
		r.Models[i].WallMS, r.Models[i].LatencyMS = 0, report.Latency{}
	}
	for i := range r.Scenarios {
		r.Scenarios[i].LatencyMS = report.Latency{}
		for j := range r.Scenarios[i].TrialsDetail {
			t := &r.Scenarios[i].TrialsDetail[j]
			t.DurationMS = 0
			for k := range t.Tape {
				t.Tape[k].LatencyMS = 0
			}
		}
	}
	return r
}

func TestEvalShardsMerged(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("files/append-%d.yaml", i)] = appendScenario
	}
	dir := newScenarios(t, files)
	tmp := t.TempDir()
	common := []string{"eval", "--model", "scripted/right", "--model", "scripted/wrong", "--trials", "2", "--parallel", "1", "--price", "scripted/right=1,2"}
	whole := filepath.Join(tmp, "whole.json")
	html, junit := filepath.Join(tmp, "whole.html"), filepath.Join(tmp, "whole.xml")
	if code, out, errOut := runCmd(t, append(common, "--json", whole, "--html", html, "--junit", junit, dir)...); code != exitFailed {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{html, junit} {
		if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), "files/append-3") {
			t.Errorf("%s lacks the scenarios (err %v)", p, err)
		}
	}
	want := readReport(t, whole)

	// Split the run's own report into shard reports whose aggregates are
	// zeroed: merging must recompute every statistic from the trials.
	var split []string
	for k := 1; k <= 3; k++ {
		sh := &report.Shard{Index: k, Total: 3}
		part := &report.Eval{Format: report.EvalFormat, Shard: sh, Scenarios: []report.EvalScenario{},
			Summary: report.EvalSummary{TrialsPerScenario: want.Summary.TrialsPerScenario, WallMS: want.Summary.WallMS}}
		for _, m := range want.Models {
			pm := report.EvalModel{Name: m.Name, WallMS: m.WallMS}
			if m.Cost != nil {
				zero := 0.0
				pm.Cost = &zero
			}
			part.Models = append(part.Models, pm)
		}
		for _, s := range want.Scenarios {
			if sh.Contains(s.Name) {
				s.PassAtK, s.PassHatK, s.Class, s.Passed, s.Trials = nil, nil, "", 0, 0
				part.Scenarios = append(part.Scenarios, s)
			}
		}
		if len(part.Scenarios) == 0 {
			t.Fatalf("shard %s is empty: the test would prove little", sh)
		}
		p := filepath.Join(tmp, fmt.Sprintf("split%d.json", k))
		writeEval(t, p, part)
		split = append(split, p)
	}
	merged := filepath.Join(tmp, "merged.json")
	code, out, errOut := runCmd(t, "merge", split[1], split[2], split[0], "--json", merged)
	if code != exitFailed || !strings.Contains(out, "merged 3 shards: 12 trials passed, 12 failed, 0 errors") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	if got := readReport(t, merged); !reflect.DeepEqual(got, want) {
		t.Errorf("the merged report differs from the whole run's:\nmodels %+v\nwant   %+v\nsummary %+v\nwant    %+v", got.Models, want.Models, got.Summary, want.Summary)
	}

	// Real shard runs, merged, give the whole run's report but for times.
	var shards []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(tmp, fmt.Sprintf("shard%d.json", k))
		if code, out, errOut := runCmd(t, append(common, "--shard", fmt.Sprintf("%d/3", k), "--json", p, dir)...); code != exitFailed {
			t.Fatalf("eval --shard %d/3: exit %d\n%s%s", k, code, out, errOut)
		}
		shards = append(shards, p)
	}
	if code, out, errOut := runCmd(t, "merge", shards[0], shards[1], shards[2], "--json", merged); code != exitFailed {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	if got := untimed(readReport(t, merged)); !reflect.DeepEqual(got, untimed(want)) {
		t.Errorf("the merged shard runs differ from the whole run: summary %+v, want %+v", got.Summary, want.Summary)
	}
	code, _, errOut = runCmd(t, "merge", shards[0], shards[1], shards[0], "--json", merged)
	if wantErr := "evalrun merge: cannot merge: shard 1/3 is given twice: " + shards[0] + " and " + shards[0] + " (overlapping shards)\n"; code != exitUsage || errOut != wantErr {
		t.Errorf("a repeated shard: exit %d, stderr %q, want %q", code, errOut, wantErr)
	}

	// A scenario moved from shard 1 to shard 2: in one shard only, but not
	// the one its name belongs to.
	one, two := readReport(t, split[0]), readReport(t, split[1])
	moved := one.Scenarios[0].Name
	var kept []report.EvalScenario
	for _, s := range one.Scenarios {
		if s.Name == moved {
			two.Scenarios = append(two.Scenarios, s)
		} else {
			kept = append(kept, s)
		}
	}
	one.Scenarios = kept
	movedFrom, movedTo := filepath.Join(tmp, "moved1.json"), filepath.Join(tmp, "moved2.json")
	writeEval(t, movedFrom, one)
	writeEval(t, movedTo, two)
	code, _, errOut = runCmd(t, "merge", movedFrom, movedTo, split[2], "--json", merged)
	if wantErr := "evalrun merge: cannot merge: " + movedTo + ": scenario \"" + moved + "\" does not belong to shard 2/3\n"; code != exitUsage || errOut != wantErr {
		t.Errorf("a scenario in another shard: exit %d, stderr %q, want %q", code, errOut, wantErr)
	}
}
