package bridge_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestCompatibilityTable keeps docs/bridge.md's compatibility table true
// to the repository: each row's proof names tests that exist (a file
// holding func TestName), and every wire format has a row.
func TestCompatibilityTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Compatibility\n")
	if !ok {
		t.Fatal("docs/bridge.md has no Compatibility section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	formats := map[string]bool{}
	rows := 0
	proof := regexp.MustCompile(`^([\w./-]+_test\.go):(Test\w+)$`)
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 7 || cells[0] == "client" {
			continue
		}
		rows++
		formats[cells[1]] = true
		for _, p := range strings.Split(cells[6], ", ") {
			m := proof.FindStringSubmatch(p)
			if m == nil {
				t.Errorf("row %q: the proof %q is not FILE_test.go:TestName", cells[0], p)
				continue
			}
			src, err := os.ReadFile(filepath.Join("..", m[1]))
			if err != nil {
				t.Errorf("row %q: %v", cells[0], err)
				continue
			}
			if !strings.Contains(string(src), "func "+m[2]+"(") {
				t.Errorf("row %q: %s has no %s", cells[0], m[1], m[2])
			}
		}
	}
	if rows == 0 {
		t.Fatal("the Compatibility table has no rows")
	}
	for _, f := range wire.Formats {
		if !formats[f.String()] {
			t.Errorf("the Compatibility table has no row of the %s format", f)
		}
	}
}
