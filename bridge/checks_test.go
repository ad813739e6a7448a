package bridge_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
)

// wroteLines is a check of the user's own: the file holds with.lines lines.
type wroteLines struct {
	Path  string `yaml:"path" fixture:"required"`
	Lines int    `yaml:"lines" fixture:"required"`
}

var wroteLinesCheck = harness.NewChecker("wrote_lines", "the file holds with.lines lines", func(o *harness.Outcome, with wroteLines) error {
	i := slices.IndexFunc(o.Workspace, func(f harness.FileState) bool { return f.Path == with.Path })
	if i < 0 {
		return fmt.Errorf("no file %s", with.Path)
	}
	if n := strings.Count(o.Workspace[i].Content, "\n"); n != with.Lines {
		return fmt.Errorf("%s holds %d lines, want %d", with.Path, n, with.Lines)
	}
	return nil
})

// TestBridgedCustomCheck runs expect.check on a bridged agent's outcome:
// it passes, and fails with its message at its line.
func TestBridgedCustomCheck(t *testing.T) {
	for _, c := range []struct {
		lines int
		want  string
	}{{lines: 2}, {lines: 3, want: "notes.yaml:$LINE: expect.check[wrote_lines]: notes.txt holds 2 lines, want 3"}} {
		text := notesScenario + fmt.Sprintf("  check: {name: wrote_lines, with: {path: notes.txt, lines: %d}}\n", c.lines)
		path := record(t, text, newNotesAgent().agentFunc(), notesScript())
		v := verifyWith(t.Context(), load(t, path), newNotesAgent().agentFunc(), &harness.VerifyOptions{Update: true, Checks: []*harness.Checker{wroteLinesCheck}})
		if v.Err != nil {
			t.Fatal(v.Err)
		}
		var got []string
		for _, f := range v.Failures {
			got = append(got, strings.TrimPrefix(f.Error(), strings.TrimSuffix(path, "notes.yaml")))
		}
		recorded, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The check's line in the recorded file (the tape went in above it).
		line := slices.IndexFunc(strings.Split(string(recorded), "\n"), func(l string) bool { return strings.HasPrefix(l, "  check:") }) + 1
		c.want = strings.Replace(c.want, "$LINE", strconv.Itoa(line), 1)
		if c.want == "" && len(got) > 0 || c.want != "" && !slices.Equal(got, []string{c.want}) {
			t.Errorf("lines %d: failures %q, want %q", c.lines, got, c.want)
		}
	}
}
