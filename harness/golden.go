package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// maxGoldenSize bounds a golden file, counted on the bytes read: a larger one
// (or one that is not a regular file) is refused when compared, and replaced
// by updateGolden.
const maxGoldenSize = 64 << 20

// ErrNoGolden is wrapped by the error for a scenario whose golden file is
// missing: goldens are never created silently.
var ErrNoGolden = errors.New("missing golden file")

// CompareGolden compares the outcome with the golden file at path. It returns
// nil when they are byte-identical, an error wrapping ErrNoGolden when the file
// does not exist, and otherwise an error showing the first difference in
// context (- golden, + outcome).
func CompareGolden(path string, got []byte) error {
	return compareGolden(path, got, "`evalrun replay --update` (or your test with -update)")
}

// compareGolden is CompareGolden, a missing golden's message naming how
// (a quoted command) as what writes it.
func compareGolden(path string, got []byte, how string) error {
	want, err := readGolden(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %s: run %s to write it, then review it", ErrNoGolden, path, how)
	}
	if err != nil {
		return err
	}
	if bytes.Equal(want, got) || sameRedacted(want, got) {
		return nil
	}
	return fmt.Errorf("the outcome differs from the golden file %s (- golden, + outcome; first difference):\n%s", path, udiff.FirstHunk(string(want), string(got)))
}

// readGolden reads a golden file: a regular file of at most maxGoldenSize
// bytes. The error names the file.
func readGolden(path string) ([]byte, error) {
	// A plain regular file (the usual golden) is read with one open; a
	// link, or anything that fails, goes through the folder's root, which
	// checks where a link leads and gives the error.
	if data, err := regularfile.ReadNoFollow(path, maxGoldenSize); err == nil {
		return data, nil
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return regularfile.Read(path, maxGoldenSize) // its error names path
	}
	defer root.Close()
	data, err := regularfile.ReadIn(root, filepath.Base(path), maxGoldenSize)
	switch {
	case err == nil:
		return data, nil
	case isEscape(err):
		// A link to a file outside the scenario's folder is refused as other
		// special files are: never read, printed or replaced.
		return nil, fmt.Errorf("reading %s: %w (a symbolic link leading outside its folder); only regular files are read", path, regularfile.ErrNotRegular)
	}
	return regularfile.Read(path, maxGoldenSize) // its error names path
}

// isEscape reports whether err is an os.Root's refusal of a path leading
// out of it.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// goldenNameFits refuses a scenario file whose golden's name (its own with
// ".golden" added) is longer than a file name may be: no golden could be
// written or read for it, and the error would say only "file name too
// long" of a name of some 260 bytes.
func goldenNameFits(path string) error {
	name := filepath.Base(scenario.GoldenPath(path))
	if len(name) <= atomicfile.NameMax {
		return nil
	}
	return fmt.Errorf("%s: its golden file's name (the scenario file's with .golden added) would be %d bytes, more than the %d a file name may have; rename the scenario file to at most %d bytes",
		path, len(name), atomicfile.NameMax, atomicfile.NameMax-(len(name)-len(filepath.Base(path))))
}

// goldenMissing reports whether there is nothing at path, not even a
// broken link: a golden an update may create without reading one.
func goldenMissing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// goldenTooLarge is the error for an outcome of size (how it compares)
// maxGoldenSize that is not written: written, it would be refused by every
// replay after this one. The golden is left as it was, or not created.
func goldenTooLarge(path, size string) error {
	return fmt.Errorf("writing %s: %w: the outcome is %s a golden's limit of %d MiB; the golden is left as it was",
		path, regularfile.ErrTooLarge, size, maxGoldenSize>>20)
}

// updateGolden writes the golden file atomically if its content changed and
// reports whether it did. A golden that is not a regular file (a named pipe,
// a link to a device) is refused, not replaced; one over maxGoldenSize is
// replaced. An outcome over maxGoldenSize is refused (ErrTooLarge), as
// reading it back would be. A line the old golden redacted that still matches is kept
// redacted (keepRedactedLines). Temporary files that interrupted updates of
// the same golden left beside it are removed first.
func updateGolden(path string, got []byte) (bool, error) {
	removeStaleTemps(path)
	if len(got) > maxGoldenSize {
		return false, goldenTooLarge(path, fmt.Sprintf("%d bytes, more than", len(got)))
	}
	old, err := readGolden(path)
	switch {
	case err == nil && (bytes.Equal(old, got) || sameRedacted(old, got)):
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, regularfile.ErrTooLarge):
		return false, err
	case err == nil:
		if got = keepRedactedLines(old, got); bytes.Equal(old, got) {
			return false, nil
		}
	}
	if err := atomicfile.WriteFile(path, got); err != nil {
		return false, err
	}
	return true, nil
}

// keepRedactedLines returns got with each line that a line of old holding
// redact.Redacted matches (redact.Matches: the same line, a secret
// where old has Redacted) replaced by that line of old: an update made
// where the redaction does not know a secret the golden's writer redacted
// (its --redact-env) never writes it back. Lines that changed otherwise
// are taken as they are.
func keepRedactedLines(old, got []byte) []byte {
	if !bytes.Contains(old, []byte(redact.Redacted)) {
		return got
	}
	// The redacted lines of old, by what comes before their first
	// Redacted, which a matching line starts with.
	byPrefix := map[string][]string{}
	var lens []int
	for line := range strings.Lines(string(old)) {
		line = strings.TrimSuffix(line, "\n")
		i := strings.Index(line, redact.Redacted)
		if i < 0 {
			continue
		}
		if _, ok := byPrefix[line[:i]]; !ok && !slices.Contains(lens, i) {
			lens = append(lens, i)
		}
		byPrefix[line[:i]] = append(byPrefix[line[:i]], line)
	}
	out := make([]byte, 0, len(got))
	for line := range strings.Lines(string(got)) {
		text, nl := strings.CutSuffix(line, "\n")
		if kept := redactedLineOf(byPrefix, lens, text); kept != "" {
			text = kept
		}
		out = append(out, text...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// redactedLineOf returns the line of byPrefix that line matches, or "".
func redactedLineOf(byPrefix map[string][]string, lens []int, line string) string {
	for _, n := range lens {
		if n > len(line) {
			continue
		}
		for _, cand := range byPrefix[line[:n]] {
			if cand != line && redact.Matches(cand, line) {
				return cand
			}
		}
	}
	return ""
}

// removeStaleTemps removes the temporary files interrupted updates of the
// golden at path left beside it.
func removeStaleTemps(path string) {
	base := atomicfile.TempPrefix(filepath.Base(path))
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base) && e.Type().IsRegular() && scenario.IsStaleTemp(e.Name()) {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// sameRedacted reports whether got is the golden want where want has a
// secret redacted that got holds: line by line, each redact.Redacted of want
// standing for one secret in the same line of got (redact.Matches). A golden written where the
// redaction knew a secret (its variable was set) so still passes, and is
// not rewritten, where it does not.
func sameRedacted(want, got []byte) bool {
	if !bytes.Contains(want, []byte(redact.Redacted)) || bytes.Count(want, []byte("\n")) != bytes.Count(got, []byte("\n")) {
		return false
	}
	w, g := string(want), string(got)
	for w != "" {
		wl, wr, _ := strings.Cut(w, "\n")
		gl, gr, _ := strings.Cut(g, "\n")
		if wl != gl && !redact.Matches(wl, gl) {
			return false
		}
		w, g = wr, gr
	}
	return true
}
