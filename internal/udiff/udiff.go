// Package udiff renders the hunks of a unified diff between two texts, the
// way GNU diff -u does: three lines of context, hunks whose contexts touch or
// overlap merged, "@@ -l,s +l,s @@" headers with a count of 1 left out, and
// "\ No newline at end of file" after a last line without one.
//
//	fmt.Print("--- want\n+++ got\n" + udiff.Hunks("a\nb\n", "a\nc\n"))
//	// --- want
//	// +++ got
//	// @@ -1,2 +1,2 @@
//	//  a
//	// -b
//	// +c
//
// Line diffs come from github.com/sergi/go-diff in line mode with no time
// limit, so the same change always renders the same way on every machine.
package udiff

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Context is how many unchanged lines surround each change in a hunk.
const Context = 3

// MaxDistinctLines is the number of distinct lines (both texts together) up
// to which Hunks diffs line by line. go-diff v1.4.0 encodes each distinct
// line as one rune and panics past 1,112,060 of them; above this bound Hunks
// replaces the whole text instead, which is still a correct patch.
const MaxDistinctLines = 1_000_000

// Hunks returns the hunks of the unified diff that turns a into b, without
// file headers, or "" when a == b. It is HunksLimit(a, b, MaxDistinctLines).
func Hunks(a, b string) string {
	return HunksLimit(a, b, MaxDistinctLines)
}

// HunksLimit is Hunks with limit in place of MaxDistinctLines: when a and b
// together hold more than limit distinct lines, its one hunk deletes every
// line of a and inserts every line of b.
func HunksLimit(a, b string, limit int) string {
	if a == b {
		return ""
	}
	if !tooManyLines(a, b, limit) {
		if h, ok := endHunk(a, b); ok {
			return h
		}
	}
	return render(diffLines(a, b, limit))
}

// endHunk renders the one hunk of lines added at the end of a or taken off
// it, as render would render diffLines' lines for them, without splitting
// the texts into lines; ok is false for any other change.
func endHunk(a, b string) (string, bool) {
	kind, common, changed := byte('+'), a, b[min(len(a), len(b)):]
	switch {
	case len(a) < len(b) && strings.HasPrefix(b, a) && endsLine(a):
	case len(b) < len(a) && strings.HasPrefix(a, b) && endsLine(b):
		kind, common, changed = '-', b, a[len(b):]
	default:
		return "", false
	}
	// The context: the last Context lines of the common part.
	n := strings.Count(common, "\n")
	ctx := len(common)
	for k := 0; k < Context && ctx > 0; k++ {
		ctx = strings.LastIndexByte(common[:ctx-1], '\n') + 1
	}
	lo := n - min(n, Context)
	m := strings.Count(changed, "\n")
	if !strings.HasSuffix(changed, "\n") {
		m++
	}
	oldCount, newCount := n-lo, n-lo+m
	if kind == '-' {
		oldCount, newCount = newCount, oldCount
	}
	var sb strings.Builder
	sb.Grow(40 + 2*(len(common)-ctx) + len(changed) + m + 30)
	sb.WriteString("@@ -")
	sb.WriteString(hunkRange(lo, oldCount))
	sb.WriteString(" +")
	sb.WriteString(hunkRange(lo, newCount))
	sb.WriteString(" @@\n")
	writeLines(&sb, ' ', common[ctx:])
	writeLines(&sb, kind, changed)
	return sb.String(), true
}

// writeLines writes the lines of text to sb, each behind kind, as render
// writes them.
func writeLines(sb *strings.Builder, kind byte, text string) {
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		sb.WriteByte(kind)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// render renders the hunks of a line diff.
func render(lines []diffLine) string {
	var changes []int
	for i, l := range lines {
		if l.kind != ' ' {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 {
		return ""
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
	var sb strings.Builder
	emit := func(first, last int) {
		lo := max(0, first-Context)
		hi := min(len(lines), last+Context+1)
		sb.WriteString("@@ -")
		sb.WriteString(hunkRange(oldBefore[lo], oldBefore[hi]-oldBefore[lo]))
		sb.WriteString(" +")
		sb.WriteString(hunkRange(newBefore[lo], newBefore[hi]-newBefore[lo]))
		sb.WriteString(" @@\n")
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
		if c-last-1 > 2*Context {
			emit(first, last)
			first = c
		}
		last = c
	}
	emit(first, last)
	return sb.String()
}

// IsBinary reports whether data is not text, so that a line diff of it means
// nothing: it is not valid UTF-8 or it holds a NUL byte.
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// diffLine is one line of a line diff: kind is ' ' (kept), '-' (deleted) or
// '+' (inserted); text includes its "\n" unless it is a last line without one.
type diffLine struct {
	kind byte
	text string
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
	if tooManyLines(a, b, limit) {
		return appendLines(appendLines(nil, '-', a), '+', b)
	}
	// Lines added at the end or taken off it (a log appended to, say): the
	// common part is whole lines, and go-diff finds exactly that equality
	// and that one insertion or deletion (TestAppendOnlyAsGoDiff), so skip
	// it.
	switch {
	case len(a) < len(b) && strings.HasPrefix(b, a) && endsLine(a):
		return appendLines(appendLines(nil, ' ', a), '+', b[len(a):])
	case len(b) < len(a) && strings.HasPrefix(a, b) && endsLine(b):
		return appendLines(appendLines(nil, ' ', b), '-', a[len(b):])
	}
	return diffLinesDMP(a, b)
}

// appendLines appends the lines of text to out as lines of the given kind.
func appendLines(out []diffLine, kind byte, text string) []diffLine {
	for _, l := range splitLines(text) {
		out = append(out, diffLine{kind, l})
	}
	return out
}

// endsLine reports whether s is empty or ends with a newline: whole lines.
func endsLine(s string) bool { return s == "" || s[len(s)-1] == '\n' }

// diffLinesDMP returns the line diff of a and b by go-diff.
func diffLinesDMP(a, b string) []diffLine {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	chars1, chars2, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(chars1, chars2, false), lines)
	var out []diffLine
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			out = appendLines(out, ' ', d.Text)
		case diffmatchpatch.DiffDelete:
			out = appendLines(out, '-', d.Text)
		case diffmatchpatch.DiffInsert:
			out = appendLines(out, '+', d.Text)
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

// hunkRange formats one side of a hunk header: "start,count", with start the
// 1-based first line; a count of 1 is left out, and an empty range (count 0)
// starts at the line before it, 0 at the top of the file.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(before) + ",0"
	case 1:
		return strconv.Itoa(before + 1)
	}
	return strconv.Itoa(before+1) + "," + strconv.Itoa(count)
}
