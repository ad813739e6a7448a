package harness

import (
	"os"
	"regexp"
	"testing"
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
			if _, err := Parse(b[1], doc, "example"); err != nil {
				t.Errorf("%s, example %d: %v", doc, i+1, err)
			}
		}
	}
}
