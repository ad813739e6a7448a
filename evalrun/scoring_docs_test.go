package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
)

// scoringDoc documents expect.check.
const scoringDoc = "../docs/scoring.md"

// doc:begin
type refundPolicy struct {
	Max float64 `yaml:"max" fixture:"required"`
}

var refundAmount = regexp.MustCompile(`refunded \$([0-9]+(?:\.[0-9]+)?)`)

var RefundMatchesPolicy = harness.NewChecker("refund_matches_policy",
	"the refund the final text states is within the policy's maximum",
	func(o *harness.Outcome, with refundPolicy) error {
		m := refundAmount.FindStringSubmatch(o.Final)
		if m == nil {
			return fmt.Errorf("the final text states no refund: %q", o.Final)
		}
		amount, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return fmt.Errorf("the refund %q is not a number", m[1])
		}
		if amount > with.Max {
			return fmt.Errorf("refunded $%.2f, the policy allows $%.2f", amount, with.Max)
		}
		return nil
	})

// doc:end

// TestScoringDocExamples checks that the doc's Go check is the one this test
// registers, lints and replays every yaml example of the doc with it, and
// that the failure the doc quotes is what a tighter policy gives.
func TestScoringDocExamples(t *testing.T) {
	data, err := os.ReadFile(scoringDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	src, err := os.ReadFile("scoring_docs_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "// doc:begin\n")
	code, _, _ = strings.Cut(code, "\n// doc:end")
	if !strings.Contains(doc, "```go\n"+code+"```") {
		t.Errorf("%s's go block is not the check this test registers:\n%s", scoringDoc, code)
	}
	main := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb, &Options{Checks: []*harness.Checker{RefundMatchesPolicy}, Stdin: strings.NewReader("")})
		return code, out.String() + errb.String()
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatalf("%s has no yaml example", scoringDoc)
	}
	for i, b := range blocks {
		dir := filepath.Join(t.TempDir(), "scenarios")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "refund.yaml")
		if err := os.WriteFile(path, []byte(b[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := main("lint", path); code != exitOK {
			t.Errorf("yaml block %d does not lint (exit %d):\n%s", i+1, code, out)
		}
		if code, out := main("replay", "--update", dir); code != exitOK {
			t.Errorf("yaml block %d does not replay (exit %d):\n%s", i+1, code, out)
		}
		if !strings.Contains(b[1], "max: 50") {
			continue
		}
		if err := os.WriteFile(path, []byte(strings.Replace(b[1], "max: 50", "max: 30", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "expect.check[refund_matches_policy]: refunded $40.00, the policy allows $30.00"
		if code, out := main("replay", dir); code != exitFailed || !strings.Contains(out, want) {
			t.Errorf("yaml block %d with max: 30: exit %d, want %d and %q:\n%s", i+1, code, exitFailed, want, out)
		}
		if !strings.Contains(strings.Join(strings.Fields(doc), " "), want) {
			t.Errorf("%s does not quote the failure %q", scoringDoc, want)
		}
	}
}
