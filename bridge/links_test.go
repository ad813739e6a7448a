package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksAndSpecialFilesInTheGolden: a command agent that makes a
// symbolic link out of the workspace, one to a file of the workspace by
// its absolute path, a named pipe and a second name of a file, and makes
// a script executable, leaves each in the golden as what it is (the
// probe of issue 39 found the links and the pipe missing, and the run
// failed on the hard link). The goldens of two runs from two folders are
// byte-identical: the link holding the run's path shows $WORK.
func TestLinksAndSpecialFilesInTheGolden(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the command with")
	}
	for _, tool := range []string{"ln", "mkfifo", "chmod"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to run", tool)
		}
	}
	text := `format: tapeloop/v1
setup:
  agent:
    command: [sh, -c, 'ln -s /etc/passwd esc && ln -s "$PWD/a.txt" here && ln -s nowhere/x dangling && mkfifo p && ln a.txt b.txt && chmod +x run.sh']
    timeout: 30s
  workspace:
    files: {a.txt: "alpha\n", run.sh: "echo hi\n"}
input: [{role: user, content: hi}]
tape: []
`
	tmp := t.TempDir()
	a := goldenFrom(t, filepath.Join(tmp, "one"), text)
	b := goldenFrom(t, filepath.Join(tmp, "two", "deeper"), text)
	if a != b {
		t.Errorf("the goldens from two folders differ:\n%s\n---\n%s", a, b)
	}
	want := `workspace:
  b.txt: '<hard link to a.txt>'
  dangling: '<symbolic link to nowhere/x>'
  esc: '<symbolic link to /etc/passwd>'
  here: '<symbolic link to $WORK/a.txt>'
  p: '<named pipe>'
  run.sh: |
    echo hi
untouched:
  - a.txt (6 bytes, sha256 `
	if !strings.Contains(a, want) || strings.Contains(a, tmp) || strings.Contains(a, os.TempDir()+"/") {
		t.Errorf("the golden\n%s\nshould hold\n%s\nand name no folder of the machine", a, want)
	}
}
