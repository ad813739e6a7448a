package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/report"
)

// writeRun writes an eval report of one model whose scenarios passed
// counts[name] = {passed, trials}, as compare reads it.
func writeRun(t *testing.T, path, model string, counts map[string][2]int) {
	t.Helper()
	r := &report.Eval{Format: report.EvalFormat, Models: []report.EvalModel{{Name: model}}}
	for name, c := range counts {
		r.Scenarios = append(r.Scenarios, report.EvalScenario{Name: name, Model: model, Passed: c[0], Trials: c[1], Class: eval.Class(c[1], c[0])})
	}
	writeEval(t, path, r)
}

// TestCompareSameModelNoSignificantChange is the two runs of one
// scripted model: 3/5 then 2/4, 4/5 then 3/4. Fisher's test gives p = 1 for
// both (each observed table is the likeliest of its margins) and the
// hierarchical interval holds 0: no significant change, exit 0, and the
// runs are named by their files rather than "gpt-x is better than gpt-x".
func TestCompareSameModelNoSignificantChange(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "monday.json"), filepath.Join(tmp, "tuesday.json")
	writeRun(t, a, "openai/gpt-x", map[string][2]int{"one": {3, 5}, "two": {4, 5}})
	writeRun(t, b, "openai/gpt-x", map[string][2]int{"one": {2, 4}, "two": {3, 4}})
	code, out, errOut := runCmd(t, "compare", "--fail-on", "regression", a, b)
	if code != exitOK {
		t.Fatalf("exit %d; want 0\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"change           scenario  monday.json  tuesday.json  p\n",
		"not significant  one       3/5 flaky    2/4 flaky     1 (",
		"not significant  two       4/5 flaky    3/4 flaky     1 (",
		"no significant change in any scenario",
		"tuesday.json - monday.json: pass rate -0.075, 95% CI [",
		"): no significant change\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "REGRESSED") || strings.Contains(out, "better") || strings.Contains(out, "worse") {
		t.Errorf("output claims a change:\n%s", out)
	}
	// Same base name in two folders: the paths as given.
	a2 := filepath.Join(tmp, "x", "r.json")
	b2 := filepath.Join(tmp, "y", "r.json")
	for _, p := range []string{a2, b2} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeRun(t, a2, "openai/gpt-x", map[string][2]int{"one": {3, 5}})
	writeRun(t, b2, "openai/gpt-x", map[string][2]int{"one": {2, 4}})
	if _, out, _ := runCmd(t, "compare", a2, b2); !strings.Contains(out, a2) || !strings.Contains(out, b2) {
		t.Errorf("same base names: the paths are not the labels:\n%s", out)
	}
}

// TestCompareSignificantDropFails: 3 of 5 scenarios fall from 10/10 to
// 2/10. Fisher: C(20,10) = 184756 tables with 12 passes; only x=10 and x=2
// (66 each) are as unlikely as the observed, p = 132/184756 = 0.000714,
// 0.00357 after Holm over 5 scenarios: each is a significant regression,
// and the suite's interval lies below zero. Exit 1 with --fail-on
// regression (and by default), 0 with --fail-on never.
func TestCompareSignificantDropFails(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "m", map[string][2]int{"s1": {10, 10}, "s2": {10, 10}, "s3": {10, 10}, "s4": {10, 10}, "s5": {10, 10}})
	writeRun(t, b, "m", map[string][2]int{"s1": {2, 10}, "s2": {10, 10}, "s3": {2, 10}, "s4": {10, 10}, "s5": {2, 10}})
	code, out, errOut := runCmd(t, "compare", "--fail-on", "regression", a, b)
	if code != exitFailed {
		t.Fatalf("exit %d; want 1\n%s%s", code, out, errOut)
	}
	lines := strings.Split(out, "\n")
	want := []string{
		"change     scenario  a.json      b.json      p",
		"REGRESSED  s1        10/10 pass  2/10 flaky  0.00357",
		"REGRESSED  s3        10/10 pass  2/10 flaky  0.00357",
		"REGRESSED  s5        10/10 pass  2/10 flaky  0.00357",
		"same       s2        10/10 pass  10/10 pass  1",
		"same       s4        10/10 pass  10/10 pass  1",
	}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Errorf("line %d: got %q; want %q\n%s", i+1, lines[min(i, len(lines)-1)], w, out)
		}
	}
	if !strings.Contains(out, "b.json - a.json: pass rate -0.480") || !strings.Contains(out, ": b.json is worse than a.json\n") {
		t.Errorf("suite line:\n%s", out)
	}
	if code, _, _ := runCmd(t, "compare", a, b); code != exitFailed {
		t.Errorf("default --fail-on: exit %d; want 1", code)
	}
	if code, _, _ := runCmd(t, "compare", "--fail-on", "never", a, b); code != exitOK {
		t.Errorf("--fail-on never: exit %d; want 0", code)
	}
}

// compare --detect takes a drop in pass rate from 0 (no sizing lines) to 1
// inclusive; outside that it is a usage error.
func TestCompareDetectBounds(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "openai/gpt-x", map[string][2]int{"one": {3, 5}})
	writeRun(t, b, "openai/gpt-x", map[string][2]int{"one": {2, 4}})
	for _, tc := range []struct {
		detect string
		code   int
	}{{"0", exitOK}, {"1", exitOK}, {"-0.01", exitUsage}, {"1.01", exitUsage}} {
		code, out, errOut := runCmd(t, "compare", "--detect", tc.detect, a, b)
		if code != tc.code {
			t.Errorf("--detect %s: exit %d, want %d\n%s%s", tc.detect, code, tc.code, out, errOut)
		}
		if tc.code == exitUsage && !strings.Contains(errOut, "want a drop in pass rate from 0 to 1") {
			t.Errorf("--detect %s: stderr %q does not say the range", tc.detect, errOut)
		}
	}
}

// compare --fail-on drop fails on any scenario whose pass rate fell, however
// small the drop, and only then: a pass rate that held or rose exits 0.
func TestCompareFailOnDropOnlyOnADrop(t *testing.T) {
	tmp := t.TempDir()
	base := filepath.Join(tmp, "a.json")
	writeRun(t, base, "openai/gpt-x", map[string][2]int{"one": {2, 4}, "two": {3, 4}})
	for _, tc := range []struct {
		name   string
		counts map[string][2]int
		code   int
	}{
		{"held", map[string][2]int{"one": {2, 4}, "two": {3, 4}}, exitOK},
		{"rose", map[string][2]int{"one": {3, 4}, "two": {4, 4}}, exitOK},
		{"fell by one trial", map[string][2]int{"one": {2, 4}, "two": {2, 4}}, exitFailed},
	} {
		later := filepath.Join(tmp, "b.json")
		writeRun(t, later, "openai/gpt-x", tc.counts)
		if code, out, errOut := runCmd(t, "compare", "--fail-on", "drop", base, later); code != tc.code {
			t.Errorf("pass rates %s: exit %d, want %d\n%s%s", tc.name, code, tc.code, out, errOut)
		}
	}
}
