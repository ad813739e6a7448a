package notes_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestBridgeDocShowsThisExample: every Go block of docs/bridge.md is code
// of this example, verbatim, so the page shows what its tests run.
func TestBridgeDocShowsThisExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, f := range []string{"notes.go", "notes_test.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(b)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/bridge.md has no Go block")
	}
	for i, b := range blocks {
		if !strings.Contains(code.String(), b[1]) {
			t.Errorf("Go block %d of docs/bridge.md is not in the example:\n%s", i+1, b[1])
		}
	}
}

// TestBridgeDocScenariosLoad: every YAML block of docs/bridge.md is a
// bridged scenario that loads.
func TestBridgeDocScenariosLoad(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		s, err := scenario.Parse([]byte(b[1]), "docs/bridge.md", "doc")
		if err != nil || s.Setup.Agent == nil {
			t.Errorf("YAML block %d of docs/bridge.md: %v (bridged: %v)", i+1, err, err == nil && s.Setup.Agent != nil)
		}
	}
}
