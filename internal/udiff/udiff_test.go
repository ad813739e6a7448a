package udiff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestHunkRange(t *testing.T) {
	tests := []struct {
		before, count int
		want          string
	}{
		{0, 0, "0,0"},
		{4, 0, "4,0"},
		{0, 1, "1"},
		{9, 1, "10"},
		{0, 3, "1,3"},
		{9, 7, "10,7"},
	}
	for _, tt := range tests {
		if got := hunkRange(tt.before, tt.count); got != tt.want {
			t.Errorf("hunkRange(%d, %d) = %q, want %q", tt.before, tt.count, got, tt.want)
		}
	}
}

func TestWholeFileFallback(t *testing.T) {
	got := HunksLimit("a\nb\nc\n", "a\nB\nc", 4)
	want := "@@ -1,3 +1,3 @@\n-a\n-b\n-c\n+a\n+B\n+c\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("above the limit:\n%s\nwant:\n%s", got, want)
	}
	got = HunksLimit("a\nb\nc\n", "a\nB\nc", 5)
	want = "@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("at the limit:\n%s\nwant:\n%s", got, want)
	}
	if got := HunksLimit("a\nb\n", "a\nb\n", 1); got != "" {
		t.Errorf("equal texts above the limit: %q, want \"\"", got)
	}
}

// lines returns the lines first..last, each ending in "\n", with line i
// replaced by changed[i] when it has one.
func lines(first, last int, changed map[int]string) string {
	var sb strings.Builder
	for i := first; i <= last; i++ {
		if c, ok := changed[i]; ok {
			sb.WriteString(c + "\n")
			continue
		}
		sb.WriteString(strings.Repeat("x", i) + "\n")
	}
	return sb.String()
}

func TestHunks(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{name: "equal", a: "a\nb\n", b: "a\nb\n", want: ""},
		{name: "both empty", a: "", b: "", want: ""},
		{name: "from empty", a: "", b: "a\n", want: "@@ -0,0 +1 @@\n+a\n"},
		{name: "to empty", a: "a\nb\n", b: "", want: "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{
			name: "no final newline",
			a:    "a\nb", b: "a\nb\n",
			want: "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			// 6 unchanged lines between changes: the contexts touch, so,
			// like GNU diff, one hunk.
			name: "gap of 6 merges",
			a:    lines(1, 9, nil), b: lines(1, 9, map[int]string{1: "one", 8: "eight"}),
			want: "@@ -1,9 +1,9 @@\n-x\n+one\n xx\n xxx\n xxxx\n xxxxx\n xxxxxx\n xxxxxxx\n-xxxxxxxx\n+eight\n xxxxxxxxx\n",
		},
		{
			name: "gap of 7 splits",
			a:    lines(1, 10, nil), b: lines(1, 10, map[int]string{1: "one", 9: "nine"}),
			want: "@@ -1,4 +1,4 @@\n-x\n+one\n xx\n xxx\n xxxx\n" +
				"@@ -6,5 +6,5 @@\n xxxxxx\n xxxxxxx\n xxxxxxxx\n-xxxxxxxxx\n+nine\n xxxxxxxxxx\n",
		},
	}
	for _, tt := range tests {
		if got := Hunks(tt.a, tt.b); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	tests := map[string]bool{
		"":              false,
		"text\n":        false,
		"café":          false,
		"nul\x00":       true,
		"bad utf8 \xff": true,
	}
	for in, want := range tests {
		if got := IsBinary([]byte(in)); got != want {
			t.Errorf("IsBinary(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestAppendOnlyAsGoDiff checks diffLines' shortcut for lines added at the
// end or taken off it against go-diff itself, on texts built from a few
// repeated lines (so that go-diff has equal lines to line up differently if
// it would), with and without a last newline.
func TestAppendOnlyAsGoDiff(t *testing.T) {
	words := []string{"a\n", "b\n", "a\n", "\n", "a", "b"}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var sb strings.Builder
		for range n {
			w := words[rng.IntN(len(words))]
			sb.WriteString(w)
			if !strings.HasSuffix(w, "\n") {
				sb.WriteString("\n") // a line without newline only last
			}
		}
		return sb.String()
	}
	shortcuts := 0
	for i := range 3000 {
		a := text(rng.IntN(6))
		b := a + text(rng.IntN(6))
		if rng.IntN(3) == 0 {
			b += words[4+rng.IntN(2)] // end without a newline
		}
		if i%2 == 1 {
			a, b = b, a
		}
		if a == b {
			continue
		}
		got, want := diffLines(a, b, MaxDistinctLines), diffLinesDMP(a, b)
		if !slices.Equal(got, want) {
			t.Fatalf("diffLines(%q, %q) = %q\ngo-diff gives %q", a, b, got, want)
		}
		if (strings.HasPrefix(b, a) && endsLine(a)) || (strings.HasPrefix(a, b) && endsLine(b)) {
			shortcuts++
		}
	}
	if shortcuts < 1000 {
		t.Fatalf("only %d of the cases took the shortcut", shortcuts)
	}
}

// TestEndHunkAsRender checks HunksLimit's rendering of lines added at the end
// or taken off it (endHunk) against the hunks render gives for go-diff's
// line diff, on random texts with repeated lines, with and without a last
// newline, short and long enough for the context to be cut.
func TestEndHunkAsRender(t *testing.T) {
	words := []string{"a\n", "b\n", "a\n", "\n", "ccc\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	text := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(words[rng.IntN(len(words))])
		}
		return sb.String()
	}
	checked := 0
	for i := range 3000 {
		a := text(rng.IntN(9))
		b := a + text(rng.IntN(5))
		if rng.IntN(3) == 0 {
			b += "end" // a last line without a newline
		}
		if i%2 == 1 {
			a, b = b, a
		}
		if a == b {
			continue
		}
		got, ok := endHunk(a, b)
		if !ok {
			t.Fatalf("endHunk(%q, %q) refused lines added at the end", a, b)
		}
		if want := render(diffLinesDMP(a, b)); got != want {
			t.Fatalf("endHunk(%q, %q) =\n%s\ngo-diff's lines render as\n%s", a, b, got, want)
		}
		checked++
	}
	if _, ok := endHunk("a\nb\n", "a\nc\n"); ok {
		t.Error("endHunk took a change in the middle")
	}
	if _, ok := endHunk("a", "ab\n"); ok {
		t.Error("endHunk took a change of a last line without a newline")
	}
	if checked < 2000 {
		t.Fatalf("only %d cases checked", checked)
	}
}
