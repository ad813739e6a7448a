package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func writeText(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// TestOutputReplacesOnlyRegularFiles: a regular file is replaced; a link
// to one keeps being a link; a named pipe, a link to it and a /proc path to
// a pipe (as /dev/stdout is) are written through, never replaced (issue 21,
// item 7).
func TestOutputReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "r.xml")
	os.WriteFile(reg, []byte("old"), 0o644)
	if err := Output(reg, writeText("new")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(reg); string(data) != "new" {
		t.Errorf("regular file holds %q", data)
	}

	link := filepath.Join(dir, "link.xml")
	os.Symlink(reg, link)
	if err := Output(link, writeText("via link")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a %v", info.Mode())
	}
	if data, _ := os.ReadFile(reg); string(data) != "via link" {
		t.Errorf("the link's target holds %q", data)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	os.Symlink(fifo, fifoLink)
	for _, p := range []string{fifo, fifoLink} {
		got := make(chan string)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			data, _ := io.ReadAll(f)
			// Closed before answering: a reader still open when the
			// next Output opens the pipe would take its write, and the
			// next reader would wait for a writer forever.
			f.Close()
			got <- string(data)
		}()
		if err := Output(p, writeText("through "+p)); err != nil {
			t.Fatal(err)
		}
		if s := <-got; s != "through "+p {
			t.Errorf("the pipe read %q", s)
		}
		if info, _ := os.Lstat(fifo); info.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s was replaced by a %v", p, info.Mode())
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	proc := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	if _, err := os.Lstat(proc); err != nil {
		w.Close()
		t.Skipf("no %s: %v", proc, err)
	}
	if err := Output(proc, writeText("to the pipe")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if data, _ := io.ReadAll(r); string(data) != "to the pipe" {
		t.Errorf("the pipe behind %s read %q", proc, data)
	}
}
