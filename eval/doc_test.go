package eval

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// TestDocExample parses the example report in docs/eval.md and checks that
// its figures agree with each other and with this package's statistics, so
// that the documented contract stays true.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/eval.md")
	if err != nil {
		t.Fatal(err)
	}
	// The json block that is an eval report (another is a comparison).
	_, rest, ok := strings.Cut(string(doc), "```json\n{\n  \"format\": \""+report.EvalFormat+"\"")
	block, _, closed := strings.Cut(rest, "\n```")
	if !ok || !closed {
		t.Fatal("docs/eval.md has no ```json block of an eval report")
	}
	block = "{\n  \"format\": \"" + report.EvalFormat + "\"" + block
	r, err := report.ReadEval(strings.NewReader(block))
	if err != nil {
		t.Fatalf("docs/eval.md's example: %v", err)
	}
	if len(r.Models) == 0 || len(r.Scenarios) == 0 {
		t.Fatal("the example has no model or no scenario")
	}
	var sum report.EvalSummary
	for _, s := range r.Scenarios {
		n, c, e := 0, 0, 0
		failures := map[string]int{}
		var tokens report.Tokens
		for _, tr := range s.TrialsDetail {
			switch tr.Status {
			case report.StatusPass:
				n, c = n+1, c+1
			case report.StatusFail:
				n++
				for _, k := range dedupe(tr.FailureKeys) {
					failures[k]++
				}
				if len(tr.Failures) != len(tr.FailureKeys) || len(tr.Failures) == 0 {
					t.Errorf("%s trial %d: %d failures, %d keys", s.Name, tr.Trial, len(tr.Failures), len(tr.FailureKeys))
				}
			case report.StatusError:
				e++
			default:
				t.Errorf("%s trial %d: status %q", s.Name, tr.Trial, tr.Status)
			}
			if tr.Passed != (tr.Status == report.StatusPass) {
				t.Errorf("%s trial %d: passed %v but status %s", s.Name, tr.Trial, tr.Passed, tr.Status)
			}
			tokens = tokens.Add(tr.Tokens)
		}
		if s.Trials != n || s.Passed != c || s.Errors != e || s.Class != Class(n, c) {
			t.Errorf("%s: trials %d passed %d errors %d class %s; the details say %d, %d, %d, %s", s.Name, s.Trials, s.Passed, s.Errors, s.Class, n, c, e, Class(n, c))
		}
		if !reflect.DeepEqual(s.PassAtK, kValues(n, c, PassAtK)) || !reflect.DeepEqual(s.PassHatK, kValues(n, c, PassHatK)) {
			t.Errorf("%s: pass@k %v pass^k %v; want %v and %v", s.Name, s.PassAtK, s.PassHatK, kValues(n, c, PassAtK), kValues(n, c, PassHatK))
		}
		if !reflect.DeepEqual(s.Failures, failures) {
			t.Errorf("%s: failures %v; the details say %v", s.Name, s.Failures, failures)
		}
		if s.Tokens != tokens {
			t.Errorf("%s: tokens %+v; the details sum to %+v", s.Name, s.Tokens, tokens)
		}
		sum.Trials += n
		sum.Passed += c
		sum.Failed += n - c
		sum.Errors += e
	}
	got := r.Summary
	if got.Trials != sum.Trials || got.Passed != sum.Passed || got.Failed != sum.Failed || got.Errors != sum.Errors {
		t.Errorf("summary %d/%d/%d/%d; the scenarios say %d/%d/%d/%d", got.Trials, got.Passed, got.Failed, got.Errors, sum.Trials, sum.Passed, sum.Failed, sum.Errors)
	}
	for _, m := range r.Models {
		if m.Trials > 0 && m.PassRate != float64(m.Passed)/float64(m.Trials) {
			t.Errorf("model %s: pass rate %v with %d/%d", m.Name, m.PassRate, m.Passed, m.Trials)
		}
	}
}
