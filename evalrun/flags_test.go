package evalrun

import (
	"flag"
	"strings"
	"testing"
)

// A subcommand's usage shows its description after the usage line, set off
// by a blank line, and no blank paragraph when it has none.
func TestUsageShowsTheDescription(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	for _, tc := range []struct{ description, want string }{
		{"Does y.", "usage: evalrun x\n\nDoes y.\n" + exitCodes + "\n"},
		{"", "usage: evalrun x\n" + exitCodes + "\n"},
	} {
		var b strings.Builder
		printUsage(&b, fs, "evalrun x", tc.description)
		if b.String() != tc.want {
			t.Errorf("description %q: usage\n%q\nwant\n%q", tc.description, b.String(), tc.want)
		}
	}
}

// Flags may come before and after the paths in one command line: a flag
// after a path is still a flag when another flag came first, and after --
// every word is a path, a flag-looking one included.
func TestFlagsBeforeAndAfterPaths(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	code, out, errOut := runCmd(t, "replay", "--update", dir, "--run", "^math/")
	if code != exitOK || !strings.Contains(out, "math/add") || strings.Contains(out, "files/read") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("replay --update DIR --run ^math/: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCmd(t, "lint", "--", dir, "--strict-requests")
	if code != exitUsage || !strings.Contains(errOut, "--strict-requests: no such file or directory") {
		t.Errorf("lint -- DIR --strict-requests: exit %d, want 2 naming the path --strict-requests\n%s", code, errOut)
	}
}
