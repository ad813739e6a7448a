package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/scenario"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCompareGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.golden.yaml")
	golden := "name: s\ntermination: final_text\niterations: 1\nturns:\n  - turn: 1\n    response:\n      content: hello\nfinal: hello\nworkspace: {}\n"
	writeFile(t, path, golden)

	if err := CompareGolden(path, []byte(golden)); err != nil {
		t.Errorf("identical: %v", err)
	}

	got := strings.Replace(golden, "final: hello", "final: goodbye", 1)
	err := CompareGolden(path, []byte(got))
	want := "the outcome differs from the golden file " + path + ` (- golden, + outcome; first difference):
@@ -5,5 +5,5 @@
   - turn: 1
     response:
       content: hello
-final: hello
+final: goodbye
 workspace: {}
`
	if err == nil || err.Error() != want {
		t.Errorf("different:\n%v\nwant:\n%s", err, want)
	}

	// Only the first hunk is shown.
	two := strings.Replace(strings.Replace(golden, "name: s", "name: t", 1), "workspace: {}", "workspace: {a: b}", 1)
	err = CompareGolden(path, []byte(two))
	want = "the outcome differs from the golden file " + path + ` (- golden, + outcome; first difference):
@@ -1,4 +1,4 @@
-name: s
+name: t
 termination: final_text
 iterations: 1
 turns:
`
	if err == nil || err.Error() != want {
		t.Errorf("two differences:\n%v\nwant:\n%s", err, want)
	}

	missing := filepath.Join(dir, "missing.golden.yaml")
	err = CompareGolden(missing, []byte(golden))
	want = "missing golden file " + missing + ": run `evalrun replay --update` (or your test with -update) to write it, then review it"
	if !errors.Is(err, ErrNoGolden) || err.Error() != want {
		t.Errorf("missing: %v, want %s wrapping ErrNoGolden", err, want)
	}
}

func TestUpdateGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.golden.yaml")

	changed, err := updateGolden(path, []byte("a: 1\n"))
	if err != nil || !changed {
		t.Fatalf("new golden: %v, %v; want true, nil", changed, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Make a rewrite visible in the modification time.
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}

	changed, err = updateGolden(path, []byte("a: 1\n"))
	if err != nil || changed {
		t.Fatalf("same content: %v, %v; want false, nil", changed, err)
	}
	if info2, _ := os.Stat(path); !info2.ModTime().Equal(old) {
		t.Errorf("same content rewrote the file (mtime %v)", info2.ModTime())
	}

	changed, err = updateGolden(path, []byte("a: 2\n"))
	if err != nil || !changed {
		t.Fatalf("new content: %v, %v; want true, nil", changed, err)
	}
	// Atomic: a new file renamed over the golden, not the old one rewritten
	// in place (which a crash could leave truncated).
	if info2, _ := os.Stat(path); os.SameFile(info, info2) {
		t.Error("the golden was rewritten in place, not replaced")
	}
	if b, _ := os.ReadFile(path); string(b) != "a: 2\n" {
		t.Errorf("content = %q", b)
	}
	if info2, _ := os.Stat(path); info2.Mode().Perm() != info.Mode().Perm() {
		t.Errorf("mode %v, was %v", info2.Mode().Perm(), info.Mode().Perm())
	}
	// Atomic: written through a temporary file renamed over the golden, so
	// nothing is left beside it.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only s.golden.yaml", names)
	}
}

func TestUpdateGoldenIsAtomic(t *testing.T) {
	// A golden whose replacement fails part-way is left intact rather than
	// truncated, and nothing is left beside it. The write is made to fail by
	// the file-size limit, which binds root too (CI runs as root), so this
	// test always runs: a golden rewritten in place would be cut at 8 bytes.
	// The limit is set in a child process (TestHelperUpdateUnderLimit): in
	// this one it would also bind go test's own log of the files a test
	// opens, whenever that log is flushed while the limit holds.
	dir := t.TempDir()
	path := filepath.Join(dir, "s.golden.yaml")
	writeFile(t, path, "a: 1\n")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUpdateUnderLimit$")
	cmd.Env = append(os.Environ(), "TAPELOOP_FSIZE_GOLDEN="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "update failed: true") {
		t.Fatalf("the child's update (err %v) did not fail under the limit:\n%s", err, out)
	}
	if b, _ := os.ReadFile(path); string(b) != "a: 1\n" {
		t.Errorf("golden = %q after a failed update, want it unchanged", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the failed update left %d files in the folder, want only the golden", len(entries))
	}
}

// TestHelperUpdateUnderLimit is run by TestUpdateGoldenIsAtomic in a child
// process: it updates the golden TAPELOOP_FSIZE_GOLDEN names with a file-size
// limit of 8 bytes and prints the error.
func TestHelperUpdateUnderLimit(t *testing.T) {
	path := os.Getenv("TAPELOOP_FSIZE_GOLDEN")
	if path == "" {
		t.Skip("run by TestUpdateGoldenIsAtomic in a child process")
	}
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Fatal(err)
	}
	small := syscall.Rlimit{Cur: 8, Max: was.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Fatal(err)
	}
	_, err := updateGolden(path, []byte("a: 2, which is longer than eight bytes\n"))
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was); rerr != nil {
		t.Fatal(rerr)
	}
	fmt.Printf("update failed: %v\n", err != nil)
	if err == nil {
		t.Error("no error writing past the file-size limit")
	}
}

// TestUpdateGoldenRemovesItsStaleTemps checks that updating a golden removes
// the temporary files an interrupted update of the same golden left, and no
// other golden's.
func TestUpdateGoldenRemovesItsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.golden.yaml")
	writeFile(t, path, "a: 1\n")
	mine := filepath.Join(dir, ".s.golden.yaml.tmp123")
	other := filepath.Join(dir, ".t.golden.yaml.tmp123")
	writeFile(t, mine, "a: ")
	writeFile(t, other, "b: ")
	if _, err := updateGolden(path, []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file of s is still there (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another golden's temporary file was removed: %v", err)
	}
}

// TestUpdateGoldenRefusesWhatReadingRefuses: a golden over maxGoldenSize
// would be refused by every later replay (readGolden's limit), so
// updateGolden refuses to write it, naming the file and the size, and
// leaves the old golden as it was.
func TestUpdateGoldenRefusesWhatReadingRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.golden.yaml")
	if err := os.WriteFile(path, []byte("name: big\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := bytes.Repeat([]byte("x"), maxGoldenSize+1)
	updated, err := updateGolden(path, got)
	if !errors.Is(err, regularfile.ErrTooLarge) || updated {
		t.Fatalf("updateGolden of %d bytes: updated %v, err %v; want ErrTooLarge", len(got), updated, err)
	}
	for _, want := range []string{path, "67108865 bytes", "64 MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "name: big\n" {
		t.Errorf("the old golden is now %q (%v)", data, err)
	}
	// At the limit it is written, and read back.
	got = got[:maxGoldenSize]
	if updated, err := updateGolden(path, got); err != nil || !updated {
		t.Fatalf("updateGolden of %d bytes: updated %v, err %v", len(got), updated, err)
	}
	if err := CompareGolden(path, got); err != nil {
		t.Errorf("the golden written at the limit does not read back: %v", err)
	}
}

// TestScenarioWhoseGoldenNameCannotExist: a scenario file of 250 bytes of
// name has a golden whose name (257 bytes) no file system takes; the
// replay refuses it before running it, saying by how much to shorten the
// file's name, where it said "file name too long" when reading the golden.
func TestScenarioWhoseGoldenNameCannotExist(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 245) + ".yaml" // 250 bytes: the golden's would be 257
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("format: tapeloop/v1\ninput:\n  - {role: user, content: go}\ntape:\n  - response: {content: done}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, update := range []bool{false, true} {
		v := VerifyScenario(context.Background(), s, &VerifyOptions{Update: update})
		if v.Err == nil || v.Outcome != nil || !strings.Contains(v.Err.Error(), "would be 257 bytes, more than the 255 a file name may have; rename the scenario file to at most 248 bytes") {
			t.Errorf("update %v: outcome %v, error %v; want it refused before running, with the sizes", update, v.Outcome != nil, v.Err)
		}
	}
	// At 248 bytes the golden's name is 255, and it is written.
	short := filepath.Join(dir, strings.Repeat("s", 243)+".yaml")
	if err := os.Rename(path, short); err != nil {
		t.Fatal(err)
	}
	if s, err = scenario.Load(short); err != nil {
		t.Fatal(err)
	}
	if v := VerifyScenario(context.Background(), s, &VerifyOptions{Update: true}); v.Err != nil || !v.Updated {
		t.Errorf("a 248-byte name: updated %v, error %v; want its golden written", v.Updated, v.Err)
	}
}
