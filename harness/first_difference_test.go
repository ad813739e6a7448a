package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/internal/udiff"
)

// callsGolden is a golden-like text of n calls; stale gives every call a
// different result, as a golden gets out of date when a tool's answer changes.
func callsGolden(n int, stale bool) string {
	var b strings.Builder
	b.WriteString("name: many\ntermination: final_text\nturns:\n  - turn: 1\n    calls:\n")
	for i := range n {
		result := "ok"
		if stale {
			result = "old"
		}
		fmt.Fprintf(&b, "      - id: call_%d\n        name: echo\n        result: %s %d\n", i, result, i)
	}
	b.WriteString("final: done\n")
	return b.String()
}

// TestFirstDifferenceFindsTheFirstHunk checks the first hunk, with its line
// numbers in the whole texts, wherever the first difference lies and however
// much differs after it.
func TestFirstDifferenceFindsTheFirstHunk(t *testing.T) {
	cases := []struct {
		name      string
		want, got string
		hunk      string
	}{
		{"identical", "a\nb\n", "a\nb\n", ""},
		{"first line", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n"},
		{"last line", "a\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "@@ -2,4 +2,4 @@\n b\n c\n d\n-e\n+E\n"},
		{"line added at the end", "a\nb\n", "a\nb\nc\n", "@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"line removed in the middle", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\ne\nf\ng\n", "@@ -1,7 +1,6 @@\n a\n b\n c\n-d\n e\n f\n g\n"},
		{"deep in a long text, only the first of many", callsGolden(20000, false), strings.Replace(callsGolden(20000, true), "old 0\n", "ok 0\n", 1),
			"@@ -8,6 +8,6 @@\n         result: ok 0\n       - id: call_1\n         name: echo\n-        result: ok 1\n+        result: old 1\n       - id: call_2\n         name: echo\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := udiff.FirstHunk(c.want, c.got); got != c.hunk {
				t.Errorf("FirstDifference:\n%s\nwant:\n%s", got, c.hunk)
			}
		})
	}
}

// TestFirstDifferenceIsLinear compares 100k stale calls: out of reach of a
// quadratic search, which took more than 120 s. Time here bounds only a
// runaway (the measurement is BenchmarkFirstDifference).
func TestFirstDifferenceIsLinear(t *testing.T) {
	want, got := callsGolden(100000, false), callsGolden(100000, true)
	done := make(chan string, 1)
	go func() { done <- udiff.FirstHunk(want, got) }()
	select {
	case d := <-done:
		if !strings.HasPrefix(d, "@@ -5,6 +5,6 @@\n") {
			t.Errorf("first hunk:\n%s", d)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("FirstDifference of 100k calls did not finish in 60 s")
	}
}

// BenchmarkFirstDifference compares a golden of n calls with an outcome in
// which every call's result changed.
func BenchmarkFirstDifference(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		want, got := callsGolden(n, false), callsGolden(n, true)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(want) + len(got)))
			b.ReportAllocs()
			for b.Loop() {
				udiff.FirstHunk(want, got)
			}
		})
	}
}
