package evalrun

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEvalReportsToStdoutAndPipes: --json - writes the report on standard
// output, and --junit to a named pipe (through a link) writes into the pipe,
// which stays a pipe (issue 21, item 7).
func TestEvalReportsToStdoutAndPipes(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	fifo := filepath.Join(t.TempDir(), "junit.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	link := filepath.Join(t.TempDir(), "junit.xml")
	os.Symlink(fifo, link)
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "1", "--json", "-", "--junit", link, dir)
	if code != exitOK || !strings.Contains(out, `"format": "tapeloop-eval/v1"`) {
		t.Errorf("exit %d; want 0 with the JSON report on stdout\n%s\n%s", code, out, errOut)
	}
	if s := <-got; !strings.Contains(s, "<testsuites") {
		t.Errorf("the pipe read %q", s)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", info.Mode(), err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info.Mode(), err)
	}
}
