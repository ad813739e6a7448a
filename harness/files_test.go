package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// strangeFiles makes, under dir, each kind of file that is not what its name
// says: links to endless devices, a named pipe (which blocks a reader until a
// writer comes), a directory, and a sparse file far over any limit (4 GiB that
// Stat reports, none of it stored). It returns their paths by case, each
// named base plus the case; kinds the machine cannot make are left out.
func strangeFiles(t *testing.T, dir, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, target := range map[string]string{"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom"} {
		if _, err := os.Stat(target); err == nil {
			p := filepath.Join(dir, name+base)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			out[name] = p
		}
	}
	if p := filepath.Join(dir, "fifo"+base); syscall.Mkfifo(p, 0o644) == nil {
		out["fifo"] = p
	}
	if p := filepath.Join(dir, "dir"+base); os.Mkdir(p, 0o755) == nil {
		out["directory"] = p
	}
	p := filepath.Join(dir, "sparse"+base)
	if f, err := os.Create(p); err == nil {
		if f.Truncate(4<<30) == nil {
			out["sparse"] = p
		}
		f.Close()
	}
	return out
}

// wantRefused checks err refuses the file at path for the reason its case
// stands for, naming the file.
func wantRefused(t *testing.T, kind, path string, err error) {
	t.Helper()
	want := regularfile.ErrNotRegular
	if kind == "sparse" {
		want = regularfile.ErrTooLarge
	}
	if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
		t.Errorf("%s: got %v; want an error naming %s wrapping %v", kind, err, path, want)
	}
}

// TestScenarioAndGoldenFilesMustBeRegular checks every way a scenario or
// golden file is read (Load, CompareGolden, updateGolden, MatchGolden)
// against each kind of file that is not a regular file of bounded size: each
// is refused with an error naming the file and why, instead of running out of
// memory or blocking forever.
func TestScenarioAndGoldenFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	for kind, p := range strangeFiles(t, dir, ".yaml") {
		t.Run("scenario/"+kind, func(t *testing.T) {
			_, err := scenario.Load(p)
			wantRefused(t, kind, p, err)
			if !errors.Is(err, scenario.ErrScenario) {
				t.Errorf("%v does not wrap ErrScenario", err)
			}
		})
	}
	o := &Outcome{Name: "s", Termination: "final_text"}
	got, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	for kind, p := range strangeFiles(t, dir, scenario.GoldenSuffix) {
		t.Run("golden/"+kind, func(t *testing.T) {
			wantRefused(t, kind, p, CompareGolden(p, got))
			if kind == "sparse" {
				// An oversized golden is simply replaced.
				if changed, err := updateGolden(p, got); err != nil || !changed {
					t.Errorf("updateGolden over a huge golden = %v, %v; want it replaced", changed, err)
				}
				return
			}
			changed, err := updateGolden(p, got)
			if changed {
				t.Errorf("updateGolden replaced %s", kind)
			}
			wantRefused(t, kind, p, err)
		})
	}
}
