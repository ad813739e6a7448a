package udiff

import (
	"fmt"
	"strings"
)

// FirstWindow is how many lines past the first differing one FirstHunk
// diffs: enough to line up an insertion or deletion of that size, and a bound
// on the quadratic part of the work.
const FirstWindow = 2000

// FirstHunk returns the first change of the unified diff that turns a into b
// as one hunk: the first run of changed lines with up to Context unchanged
// lines before and after it, numbered as lines of the whole texts; "" when
// a == b. Its cost is linear in the texts' size: the common prefix is skipped
// line by line and only FirstWindow lines past it are diffed.
func FirstHunk(a, b string) string {
	if a == b {
		return ""
	}
	la, lb := splitLines(a), splitLines(b)
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	lo := max(0, p-Context)
	wa := strings.Join(la[lo:min(len(la), p+FirstWindow)], "")
	wb := strings.Join(lb[lo:min(len(lb), p+FirstWindow)], "")
	lines := diffLines(wa, wb, MaxDistinctLines)
	first := -1
	for i, l := range lines {
		if l.kind != ' ' {
			first = i
			break
		}
	}
	if first < 0 {
		return ""
	}
	last := first
	for last+1 < len(lines) && lines[last+1].kind != ' ' {
		last++
	}
	start := max(0, first-Context)
	end := last + 1
	for end < len(lines) && end <= last+Context && lines[end].kind == ' ' {
		end++
	}
	oldBefore, newBefore := lo, lo
	for _, l := range lines[:start] {
		if l.kind != '+' {
			oldBefore++
		}
		if l.kind != '-' {
			newBefore++
		}
	}
	oldCount, newCount := 0, 0
	var sb strings.Builder
	for _, l := range lines[start:end] {
		if l.kind != '+' {
			oldCount++
		}
		if l.kind != '-' {
			newCount++
		}
	}
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldBefore, oldCount), hunkRange(newBefore, newCount))
	for _, l := range lines[start:end] {
		sb.WriteByte(l.kind)
		sb.WriteString(l.text)
		if !strings.HasSuffix(l.text, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
	return sb.String()
}
