package scenario

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTapeReadEntryByEntry checks that Parse, which reads a tape one entry at
// a time, gives every bundled scenario exactly what reading it whole gives,
// and that a tape that cannot be read in pieces (an alias to an anchor
// outside it) is read whole, with the same result or error.
func TestTapeReadEntryByEntry(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".golden.yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		whole, werr := parse(data, path, "s", false)
		if werr != nil || whole.NoTape {
			return nil // not a scenario, or one of a test of bad input
		}
		cut, cerr := parseCutFrom(data, path, "s", 0)
		if cerr != nil || !reflect.DeepEqual(cut, whole) {
			t.Errorf("%s: read entry by entry, it differs from reading it whole (%v)", path, cerr)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("only %d scenarios with a tape found", n)
	}
	for _, src := range []string{
		"format: tapeloop/v1\ninput: &in [{role: user, content: go}]\ntape:\n  - user: *in\n  - response: {content: a}\n",
		"format: tapeloop/v1\ninput: &in [{role: user, content: go}]\ntape:\n  - response: {content: a}\n  - response: {content: *in}\n",
	} {
		whole, werr := parse([]byte(src), "s.yaml", "s", false)
		cut, cerr := parseCutFrom([]byte(src), "s.yaml", "s", 0)
		if werr == nil || cerr == nil || cerr.Error() != werr.Error() || cut != nil || whole != nil {
			t.Errorf("%q:\nread in pieces: %v\nread whole: %v", src, cerr, werr)
		}
	}
}
