package report

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// TestDocumentedExample parses the replay example in docs/reports.md and
// checks that its summary is what its scenarios give, and that it renders.
func TestDocumentedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/reports.md has no ```json example")
	}
	r, err := DecodeReplay("docs/reports.md", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	again := NewReplay(r.Scenarios, r.Shard)
	if math.Abs(again.Summary.Seconds-r.Summary.Seconds) > 1e-9 {
		t.Errorf("documented seconds %v, the scenarios sum to %v", r.Summary.Seconds, again.Summary.Seconds)
	}
	again.Summary.Seconds = r.Summary.Seconds
	if again.Summary != r.Summary || len(r.Scenarios) != 2 {
		t.Errorf("documented summary %+v, the scenarios give %+v", r.Summary, again.Summary)
	}
	fail := r.Scenarios[1]
	if fail.Status != StatusFail || fail.GoldenDifference == "" || fail.Expectations[1].Passed || fail.Transcript.Turns[0].Calls[0].Coercions[0].Path != "/b" {
		t.Errorf("the documented failing scenario lost a field: %+v", fail)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
}
