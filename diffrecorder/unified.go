package diffrecorder

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// contextLines is how many unchanged lines surround each change in a hunk.
const contextLines = 3

// maxDistinctLines bounds the number of distinct lines (both texts together)
// handed to go-diff's line mode. go-diff v1.4.0 encodes each distinct line as
// one rune and panics past 1,112,060 of them; above this bound the diff falls
// back to replacing the whole file, which is still a correct patch.
const maxDistinctLines = 1_000_000

// diffLine is one line of a line diff: kind is ' ' (kept), '-' (deleted) or
// '+' (inserted); text includes its "\n" unless it is a last line without one.
type diffLine struct {
	kind byte
	text string
}

// isBinary reports whether data is not text: it is not valid UTF-8 or it
// holds a NUL byte.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// splitLines splits s after every "\n"; a last line without "\n" is kept.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns the line diff of a and b, computed by go-diff in line
// mode with no time limit, so the result depends only on the texts. Above
// limit distinct lines it deletes every line of a and inserts every line of b.
func diffLines(a, b string, limit int) []diffLine {
	var out []diffLine
	add := func(kind byte, text string) {
		for _, l := range splitLines(text) {
			out = append(out, diffLine{kind, l})
		}
	}
	if tooManyLines(a, b, limit) {
		add('-', a)
		add('+', b)
		return out
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	chars1, chars2, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(chars1, chars2, false), lines)
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			add(' ', d.Text)
		case diffmatchpatch.DiffDelete:
			add('-', d.Text)
		case diffmatchpatch.DiffInsert:
			add('+', d.Text)
		}
	}
	return out
}

// tooManyLines reports whether a and b together hold more than limit
// distinct lines. It counts only when the line count alone exceeds limit.
func tooManyLines(a, b string, limit int) bool {
	if strings.Count(a, "\n")+strings.Count(b, "\n")+2 <= limit {
		return false
	}
	seen := make(map[string]struct{})
	for _, s := range [2]string{a, b} {
		for _, l := range splitLines(s) {
			seen[l] = struct{}{}
			if len(seen) > limit {
				return true
			}
		}
	}
	return false
}

// writeHunks writes the unified-diff hunks that turn a into b, with
// contextLines of context; changes whose contexts touch or overlap share a
// hunk. It writes nothing when a == b.
func writeHunks(sb *strings.Builder, a, b string, limit int) {
	lines := diffLines(a, b, limit)
	var changes []int
	for i, l := range lines {
		if l.kind != ' ' {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 {
		return
	}
	// oldBefore[i] and newBefore[i] count the old and new lines before lines[i].
	oldBefore := make([]int, len(lines)+1)
	newBefore := make([]int, len(lines)+1)
	for i, l := range lines {
		oldBefore[i+1], newBefore[i+1] = oldBefore[i], newBefore[i]
		if l.kind != '+' {
			oldBefore[i+1]++
		}
		if l.kind != '-' {
			newBefore[i+1]++
		}
	}
	emit := func(first, last int) {
		lo := max(0, first-contextLines)
		hi := min(len(lines), last+contextLines+1)
		fmt.Fprintf(sb, "@@ -%s +%s @@\n",
			hunkRange(oldBefore[lo], oldBefore[hi]-oldBefore[lo]),
			hunkRange(newBefore[lo], newBefore[hi]-newBefore[lo]))
		for _, l := range lines[lo:hi] {
			sb.WriteByte(l.kind)
			sb.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	first, last := changes[0], changes[0]
	for _, c := range changes[1:] {
		if c-last-1 > 2*contextLines {
			emit(first, last)
			first = c
		}
		last = c
	}
	emit(first, last)
}

// hunkRange formats one side of a hunk header: "start,count", with start the
// 1-based first line; a count of 1 is left out, and an empty range (count 0)
// starts at the line before it, 0 at the top of the file.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}
