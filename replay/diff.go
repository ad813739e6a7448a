package replay

import (
	"strconv"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// diffOp is one line of an edit script: ' ' kept, '-' only in a, '+' only in b.
type diffOp struct {
	kind byte
	text string
}

// unifiedDiff returns a unified diff of the lines of a (labelled "recorded")
// against those of b (labelled "actual"), or "" when they are equal.
func unifiedDiff(a, b string) string {
	if a == b {
		return ""
	}
	ops := lineOps(splitLines(a), splitLines(b))
	// aLine[i], bLine[i]: how many lines of a and b come before ops[i].
	aLine := make([]int, len(ops)+1)
	bLine := make([]int, len(ops)+1)
	for i, o := range ops {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if o.kind != '+' {
			aLine[i+1]++
		}
		if o.kind != '-' {
			bLine[i+1]++
		}
	}
	var out strings.Builder
	out.WriteString("--- recorded\n+++ actual\n")
	for i := 0; i < len(ops); {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		last := i // the last changed op of the hunk
		for k := i; k < len(ops) && k-last <= 2*diffContext; k++ {
			if ops[k].kind != ' ' {
				last = k
			}
		}
		stop := min(last+diffContext+1, len(ops))
		out.WriteString("@@ -")
		out.WriteString(hunkRange(aLine[start], aLine[stop]-aLine[start]))
		out.WriteString(" +")
		out.WriteString(hunkRange(bLine[start], bLine[stop]-bLine[start]))
		out.WriteString(" @@\n")
		for _, o := range ops[start:stop] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		i = stop
	}
	return out.String()
}

// hunkRange formats a hunk's "start,count" the way diff -u does.
func hunkRange(before, count int) string {
	if count == 0 {
		return strconv.Itoa(before) + ",0"
	}
	if count == 1 {
		return strconv.Itoa(before + 1)
	}
	return strconv.Itoa(before+1) + "," + strconv.Itoa(count)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lineOps returns an edit script turning a into b: common prefix and suffix,
// and a longest common subsequence of the middle (or, when the middle is too
// large for that, all of it removed then added).
func lineOps(a, b []string) []diffOp {
	var pre, suf int
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if n*m > 1<<22 {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		// lcs[i*(m+1)+j] is the LCS length of ma[i:] and mb[j:].
		lcs := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
				} else {
					lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', ma[i]})
				i++
				j++
			case j == m || i < n && lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
				ops = append(ops, diffOp{'-', ma[i]})
				i++
			default:
				ops = append(ops, diffOp{'+', mb[j]})
				j++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}
