package linekey

import (
	"errors"
	"strings"
	"testing"
)

// base is the code every case below edits. The mutated operator is the
// first "<" on the line "if a < b && b < limit {" in Clamp.
const base = `package p

const limit = 10

// Clamp keeps a below b.
func Clamp(a, b int) int {
	if a < b && b < limit {
		return a
	}
	return b
}

func (s *Set[T]) Has(a, b int) bool {
	if a < b && b < limit {
		return true
	}
	return false
}
`

// at returns the 1-based line and byte column of the n-th (1-based)
// occurrence of op on the line of src holding line in function fn (the
// nearest "func" line above it holds fn).
func at(t *testing.T, src, fn, line, op string, n int) (int, int) {
	t.Helper()
	in := ""
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "func ") {
			in = l
		}
		if !strings.Contains(l, line) || !strings.Contains(in, fn) {
			continue
		}
		col := 0
		for range n {
			j := strings.Index(l[col:], op)
			if j < 0 {
				t.Fatalf("%q: no %d-th %q", l, n, op)
			}
			col += j + len(op)
		}
		return i + 1, col - len(op) + 1
	}
	t.Fatalf("no line holding %q", line)
	return 0, 0
}

func key(t *testing.T, src, fn, line, op string, n int) string {
	t.Helper()
	f, err := Parse("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	l, c := at(t, src, fn, line, op, n)
	k, err := f.Key(l, c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyFollowsTheCodeNotItsLine(t *testing.T) {
	const line = "if a < b && b < limit {"
	want := key(t, base, "Clamp", line, "<", 1)
	clamp := "// Clamp keeps a below b.\nfunc Clamp(a, b int) int {\n\tif a < b && b < limit {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	for _, tc := range []struct {
		name string
		src  string
		fn   string // the function holding the mutant in src
		line string // the line holding the mutant in src
		n    int    // which "<" of the line
		same bool
	}{
		{"lines added above", strings.Replace(base, "const limit = 10\n", "const limit = 10\n\nvar x, y = 1, 2\n\n", 1), "Clamp", line, 1, true},
		{"function moved to the end", strings.Replace(base, clamp, "", 1) + "\n" + clamp, "Clamp", line, 1, true},
		{"re-indented in a new block", strings.Replace(base, "\tif a < b && b < limit {\n\t\treturn a\n\t}\n", "\t{\n\t\tif a < b && b < limit {\n\t\t\treturn a\n\t\t}\n\t}\n", 1), "Clamp", line, 1, true},
		{"spacing and a comment on the line", strings.Replace(base, "\tif a < b && b < limit {\n\t\treturn a", "\tif a<b && b<limit { // small\n\t\treturn a", 1), "Clamp", "if a<b", 1, true},
		{"the line below changed", strings.Replace(base, "\t\treturn a\n", "\t\treturn a + 1\n", 1), "Clamp", line, 1, true},
		{"the line's code changed", strings.Replace(base, "if a < b && b < limit {\n\t\treturn a", "if a < b && b <= limit {\n\t\treturn a", 1), "Clamp", "if a < b && b <= limit", 1, false},
		{"an operand renamed", strings.Replace(base, "if a < b && b < limit {\n\t\treturn a", "if a < c && b < limit {\n\t\treturn a", 1), "Clamp", "if a < c", 1, false},
		{"the function renamed", strings.Replace(base, "func Clamp(", "func Keep(", 1), "Keep", line, 1, false},
		{"the same line in a method", base, "Has", line, 1, false},
		{"the second < of the line", base, "Clamp", line, 2, false},
	} {
		got := key(t, tc.src, tc.fn, tc.line, "<", tc.n)
		if (got == want) != tc.same {
			t.Errorf("%s: key %s, base's %s; want same=%v", tc.name, got, want, tc.same)
		}
	}
}

func TestKeyTellsApartLinesAndOperators(t *testing.T) {
	f, err := Parse("p.go", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	// Every token of both if lines, and the Has method's twin of Clamp's
	// line, gets a key of its own.
	for i, l := range strings.Split(base, "\n") {
		if !strings.Contains(l, "if a < b && b < limit") {
			continue
		}
		for c := 1; c <= len(l); c++ {
			k, err := f.Key(i+1, c)
			if errors.Is(err, ErrNoToken) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			where := l[c-1:]
			if prev, dup := seen[k]; dup {
				t.Errorf("key %s for line %d %q and for %s", k, i+1, where, prev)
			}
			seen[k] = l + " @" + where
		}
	}
	if len(seen) != 2*9 { // if a < b && b < limit {: 9 tokens, two lines
		t.Errorf("got %d keys, want 18: %v", len(seen), seen)
	}
}

func TestKeyOfTwinLinesInOneFunction(t *testing.T) {
	src := "package p\n\nfunc F(err error) error {\n\tif err != nil {\n\t\treturn err\n\t}\n\terr = nil\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n"
	f, err := Parse("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.Key(4, 9)
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.Key(8, 9)
	if err != nil {
		t.Fatal(err)
	}
	// != is the line's third token.
	if first == second || !strings.HasSuffix(second, "-2:3") || !strings.HasSuffix(first, ":3") || strings.Contains(first, "-") {
		t.Errorf("twin lines keyed %s and %s; want HASH:3 and HASH-2:3", first, second)
	}
	if strings.TrimSuffix(second, "-2:3") != strings.TrimSuffix(first, ":3") {
		t.Errorf("twin lines hashed apart: %s and %s", first, second)
	}
}

func TestKeyRefusesAPlaceWithNoToken(t *testing.T) {
	f, err := Parse("p.go", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	l, c := at(t, base, "Clamp", "if a < b && b < limit {", "<", 1)
	for _, p := range [][2]int{{l, c + 1}, {l, 1}, {2, 1}, {999, 1}} {
		if k, err := f.Key(p[0], p[1]); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "p.go:") {
			t.Errorf("Key(%d, %d) = %q, %v; want an error naming p.go wrapping ErrNoToken", p[0], p[1], k, err)
		}
	}
	if _, err := Parse("bad.go", []byte("package p\nfunc {")); err == nil || !strings.Contains(err.Error(), "bad.go:2") {
		t.Errorf("Parse of bad Go: %v; want an error naming bad.go:2", err)
	}
}
