package evalrun

import (
	"strings"
	"testing"
)

// TestNamesArePrintedEscaped: a scenario name holding a terminal escape
// (from its file name) is printed escaped by lint and eval too, as replay
// and record print it (issue 21, item 9).
func TestNamesArePrintedEscaped(t *testing.T) {
	dir := newScenarios(t, map[string]string{"evil\x1b[2J.yaml": appendScenario})
	for _, args := range [][]string{
		{"lint", dir},
		{"eval", "--model", "scripted/right", "--trials", "1", dir},
		{"replay", dir},
	} {
		_, out, errOut := runCmd(t, args...)
		if strings.Contains(out+errOut, "\x1b") {
			t.Errorf("%s printed a raw escape:\n%q\n%q", args[0], out, errOut)
		}
		if !strings.Contains(out+errOut, `evil\x1b[2J`) {
			t.Errorf("%s did not print the name escaped:\n%q\n%q", args[0], out, errOut)
		}
	}
}
