package evalrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/tools"
)

// formatDoc is the format's specification.
const formatDoc = "../docs/scenario-format.md"

// TestFormatDocExamplesLint writes every yaml block of the format's doc to a
// scenario file and runs evalrun lint on each: every example must be a valid
// scenario.
func TestFormatDocExamplesLint(t *testing.T) {
	data, err := os.ReadFile(formatDoc)
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	if len(blocks) < 8 {
		t.Fatalf("%s has %d yaml blocks; want an example per feature", formatDoc, len(blocks))
	}
	dir := t.TempDir()
	for i, b := range blocks {
		path := filepath.Join(dir, "example-"+strconv.Itoa(i+1)+".yaml")
		if err := os.WriteFile(path, []byte(b[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCmd(t, "lint", path); code != exitOK {
			t.Errorf("yaml block %d of %s does not pass lint (exit %d):\n%s%s\n%s", i+1, formatDoc, code, out, errOut, b[1])
		}
	}
}

// TestFormatDocIsComplete checks that the doc names every fixture, failure
// kind, termination reason, repair fix and text-call format the code knows.
func TestFormatDocIsComplete(t *testing.T) {
	data, err := os.ReadFile(formatDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	var names []string
	names = append(names, fixtures.Names()...)
	for _, k := range tools.FailureKinds {
		names = append(names, string(k))
	}
	for _, r := range agent.Reasons {
		names = append(names, string(r))
	}
	names = append(names, repair.Fixes()...)
	names = append(names, textcalls.Envelopes()...)
	for _, n := range names {
		if !strings.Contains(doc, "`"+n+"`") {
			t.Errorf("%s does not name `%s`", formatDoc, n)
		}
	}
}
