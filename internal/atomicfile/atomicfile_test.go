package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteReplacesWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden.yaml")
	if err := WriteFile(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteFile(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Errorf("file holds %q", got)
	}
}

func TestPendingCleanupWithoutCommitLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tape.yaml")
	p, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "never committed")
	p.Cleanup()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if _, err := Create(filepath.Join(dir, "missing", "t.yaml")); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
}

// TestWriteLongName: a file whose name is as long as a name may be (up to
// NAME_MAX, 255 bytes) is written atomically through a temporary file
// whose name fits too, in the same folder; TempPrefix keeps a short
// name's ".NAME.tmp" and a long name's last 16 bytes (a golden's
// ".golden.yaml"), and two long names that differ only in their middle get
// different prefixes.
func TestWriteLongName(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{240, 250, 255} {
		name := strings.Repeat("é", (n-12)/2) + strings.Repeat("a", (n-12)%2) + ".golden.yaml"
		if len(name) != n {
			t.Fatalf("the name is %d bytes, want %d", len(name), n)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
			t.Skipf("this file system refuses a %d-byte name: %v", n, err)
		}
		if err := WriteFile(path, []byte("new\n")); err != nil {
			t.Errorf("%d bytes: %v", n, err)
		}
		if got, _ := os.ReadFile(path); string(got) != "new\n" {
			t.Errorf("%d bytes: the file holds %q", n, got)
		}
		p := TempPrefix(name)
		if len(p)+10 > 255 || !strings.HasPrefix(p, ".") || !strings.HasSuffix(p, ".golden.yaml.tmp") || !utf8.ValidString(p) {
			t.Errorf("%d bytes: TempPrefix = %q (%d bytes)", n, p, len(p))
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if p := TempPrefix("a.yaml"); p != ".a.yaml.tmp" {
		t.Errorf("TempPrefix(a.yaml) = %q", p)
	}
	long := strings.Repeat("x", 120)
	if TempPrefix(long+"1"+long+".yaml") == TempPrefix(long+"2"+long+".yaml") {
		t.Error("two long names share a TempPrefix")
	}
}
