package harness

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// TestFaultAndMCPDocExamplesParse parses every YAML example of
// docs/faults.md and docs/mcp.md as a scenario, so the docs cannot drift
// from the format.
func TestFaultAndMCPDocExamplesParse(t *testing.T) {
	for _, doc := range []string{"../docs/faults.md", "../docs/mcp.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := yamlBlock.FindAllSubmatch(data, -1)
		if len(blocks) == 0 {
			t.Fatalf("%s has no yaml example", doc)
		}
		for i, b := range blocks {
			s, err := scenario.Parse(b[1], doc, "example")
			if err != nil {
				t.Errorf("%s, example %d: %v", doc, i+1, err)
				continue
			}
			if len(s.Tape) == 0 || s.Expect == nil {
				continue // a live-only example: nothing to replay
			}
			// A complete example replays and its expectations hold, so
			// what the doc says it shows is what happens.
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatalf("%s, example %d: %v", doc, i+1, err)
			}
			if fails := checkAll(s, o); len(fails) > 0 || o.Unused != nil {
				t.Errorf("%s, example %d: %v %v", doc, i+1, fails, o.Unused)
			}
			if len(o.ModelRetries) > 0 && o.ModelRetries[0].Backoff.String() != "2s" {
				t.Errorf("%s, example %d: the retry waited %v; the doc says 2s", doc, i+1, o.ModelRetries[0].Backoff)
			}
		}
	}
}
