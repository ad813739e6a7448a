package evalrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// TestCompareJSON: --json FILE writes the comparison the text shows, per
// scenario and for the suite, with the rule's verdict; --json - puts it on
// standard output and the text on standard error.
func TestCompareJSON(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "m", map[string][2]int{"s1": {10, 10}, "s2": {10, 10}, "s3": {10, 10}, "s4": {10, 10}, "s5": {10, 10}, "gone": {1, 2}})
	writeRun(t, b, "m", map[string][2]int{"s1": {2, 10}, "s2": {10, 10}, "s3": {2, 10}, "s4": {10, 10}, "s5": {2, 10}})
	out := filepath.Join(tmp, "cmp.json")
	code, text, errOut := runCmd(t, "compare", "--json", out, a, b)
	if code != exitFailed {
		t.Fatalf("exit %d; want 1\n%s%s", code, text, errOut)
	}
	if !strings.Contains(text, "REGRESSED  s1") {
		t.Errorf("the text is not on stdout:\n%s", text)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := report.ReadCompare(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.A.File != a || c.B.File != b || c.A.Model != "m" || c.A.Label != "a.json" || c.B.Label != "b.json" {
		t.Errorf("runs: %+v, %+v", c.A, c.B)
	}
	if c.FailOn != "regression" || !c.Failed || c.Significant != 3 {
		t.Errorf("fail_on %q, failed %v, significant %d; want regression, true, 3", c.FailOn, c.Failed, c.Significant)
	}
	var names, changes []string
	for _, s := range c.Scenarios {
		names = append(names, s.Name)
		changes = append(changes, s.Change)
	}
	if got, want := strings.Join(names, " "), "s1 s3 s5 s2 s4 gone"; got != want {
		t.Errorf("scenario order %q; want %q", got, want)
	}
	if got, want := strings.Join(changes, " "), "regressed regressed regressed same same removed"; got != want {
		t.Errorf("changes %q; want %q", got, want)
	}
	s1 := c.Scenarios[0]
	// p = 132/184756 = 0.000714456, 0.00357228 after Holm over 5.
	if s1.A == nil || s1.A.Passed != 10 || s1.B.Passed != 2 || s1.B.Trials != 10 || s1.B.PassRate != 0.2 ||
		s1.Delta != -0.8 || s1.P != 0.000714456 || s1.PAdjusted != 0.00357228 || !s1.Significant || s1.TrialsToDetect != 0 {
		t.Errorf("s1: %+v (a %+v, b %+v)", s1, s1.A, s1.B)
	}
	if gone := c.Scenarios[5]; gone.B != nil || gone.A == nil || gone.P != 1 {
		t.Errorf("removed scenario: %+v", gone)
	}
	if c.Comparison == nil || c.Comparison.Better != "a" || c.Comparison.Scenarios != 5 {
		t.Errorf("suite: %+v", c.Comparison)
	}
	if d := c.Detect; d == nil || d.Drop != 0.1 || d.Power != 0.8 || d.Alpha != 0.05 || d.PassRate != 1 || d.ScenarioTrials == 0 || d.SuiteTrials == 0 {
		t.Errorf("detect: %+v", c.Detect)
	}
	if !strings.Contains(text, "needs "+strconv.Itoa(c.Detect.SuiteTrials)+" trials per scenario and run for the suite's test") {
		t.Errorf("the text does not give the suite's sizing %d:\n%s", c.Detect.SuiteTrials, text)
	}

	code, stdout, stderr := runCmd(t, "compare", "--json", "-", "--fail-on", "never", a, b)
	if code != exitOK {
		t.Fatalf("--json - --fail-on never: exit %d\n%s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc["format"] != report.CompareFormat || doc["failed"] != false {
		t.Errorf("--json -: stdout is not the comparison (%v):\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "REGRESSED  s1") {
		t.Errorf("--json -: the text is not on stderr:\n%s", stderr)
	}
}

// TestCompareJSONRedacted: a key in a report (here in a scenario's name)
// does not reach the comparison file.
func TestCompareJSONRedacted(t *testing.T) {
	const key = "sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "m", map[string][2]int{"leak " + key: {3, 5}})
	writeRun(t, b, "m", map[string][2]int{"leak " + key: {2, 5}})
	out := filepath.Join(tmp, "cmp.json")
	if code, _, errOut := runCmd(t, "compare", "--json", out, a, b); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(key)) || !bytes.Contains(data, []byte("[REDACTED]")) {
		t.Errorf("the key is not redacted:\n%s", data)
	}
}

// evalDocPath is the eval and compare documentation.
const evalDocPath = "../docs/eval.md"

// TestCompareJSONDoc: the comparison documented in docs/eval.md, its text
// and its JSON, is what compare writes for the documented reports, and the
// JSON decodes into report.Compare with no key left over; the doc names
// every key.
func TestCompareJSONDoc(t *testing.T) {
	doc := absDoc(t, evalDocPath)
	wantText := docBlock(t, doc, "", "tuesday.json - monday.json")
	dir := t.TempDir()
	t.Chdir(dir)
	writeRun(t, "monday.json", "openai/gpt-x", map[string][2]int{"one": {3, 5}, "two": {4, 5}})
	writeRun(t, "tuesday.json", "openai/gpt-x", map[string][2]int{"one": {2, 4}, "two": {3, 4}})
	code, out, errOut := runCmd(t, "compare", "--json", "compare.json", "monday.json", "tuesday.json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if out != wantText {
		t.Errorf("compare prints:\n%s\nthe doc shows:\n%s", out, wantText)
	}
	got, err := os.ReadFile("compare.json")
	if err != nil {
		t.Fatal(err)
	}
	var c report.Compare
	checkDocJSON(t, doc, report.CompareFormat, got, &c)
	if len(c.Scenarios) != 2 || c.Detect == nil || c.Comparison == nil {
		t.Errorf("the documented comparison: %+v", c)
	}
}
