package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/covermap"
)

const source = `package p

// F is a function.
func F(a, b int) bool {
	if a < b {
		return true
	}
	return a-b > 2
}
`

func TestFirstDifference(t *testing.T) {
	for _, tc := range []struct {
		name, mutated string
		line          int
	}{
		// gremlins reprints the file; spacing and comments are not a mutation.
		{"reprinted", "package p\nfunc F(a,b int) bool {\n\tif a<b { return true }\n\treturn a-b>2 }\n", 0},
		{"comment changed", "package p\n\n// G is not F.\nfunc F(a, b int) bool {\n\tif a < b {\n\t\treturn true\n\t}\n\treturn a-b > 2\n}\n", 0},
		{"operator on line 5", "package p\n\n// F is a function.\nfunc F(a, b int) bool {\n\tif a <= b {\n\t\treturn true\n\t}\n\treturn a-b > 2\n}\n", 5},
		{"last token", "package p\n\n// F is a function.\nfunc F(a, b int) bool {\n\tif a < b {\n\t\treturn true\n\t}\n\treturn a+b > 2\n}\n", 8},
		{"identifier", "package p\n\n// F is a function.\nfunc F(a, b int) bool {\n\tif a < b {\n\t\treturn true\n\t}\n\treturn a-a > 2\n}\n", 8},
	} {
		line, ok := firstDifference([]byte(source), []byte(tc.mutated))
		if line != tc.line || ok != (tc.line != 0) {
			t.Errorf("%s: firstDifference = %d, %v; want %d, %v", tc.name, line, ok, tc.line, tc.line != 0)
		}
	}
}

func TestMutatedLine(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	write := func(d, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(src, "a.go", source)
	write(dir, "a.go", "package p\n// F is a function.\nfunc F(a, b int) bool {\n\tif a < b { return true }\n\treturn a-b > 2\n}\n")
	write(src, "a_test.go", "package p\n")
	write(dir, "a_test.go", "package p\nvar x = 1\n")
	if _, _, err := mutatedLine(dir, src); !errors.Is(err, errNoMutation) {
		t.Errorf("reprinted file and a changed test file: err = %v, want errNoMutation", err)
	}
	write(src, "b.go", source)
	write(dir, "b.go", "package p\n\n// F is a function.\nfunc F(a, b int) bool {\n\tif a > b {\n\t\treturn true\n\t}\n\treturn a-b > 2\n}\n")
	if file, line, err := mutatedLine(dir, src); file != "b.go" || line != 5 || err != nil {
		t.Errorf("mutatedLine = %s, %d, %v; want b.go, 5, <nil>", file, line, err)
	}
}

func TestLookupAndWithRun(t *testing.T) {
	m := filepath.Join(t.TempDir(), "p.map")
	if err := os.WriteFile(m, []byte("a.go:1\tTestA\na.go:12\tTestA TestB\na.go:2\tTestC\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]string{"a.go:12": {"TestA", "TestB"}, "a.go:2": {"TestC"}, "a.go:3": nil, "b.go:1": nil} {
		if got, err := covermap.Lookup(m, key); !slices.Equal(got, want) || err != nil {
			t.Errorf("lookup(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	args := []string{"test", "-timeout", "30s", "-failfast", "example.com/m/p"}
	got := withRun(args, "^(TestA|TestB)$")
	want := []string{"test", "-timeout", "30s", "-failfast", "-run", "^(TestA|TestB)$", "example.com/m/p"}
	if !slices.Equal(got, want) || args[4] != "example.com/m/p" {
		t.Errorf("withRun = %q, want %q (args left as they were)", got, want)
	}
}

func TestSelectTestsPassesOtherCommandsThrough(t *testing.T) {
	for _, args := range [][]string{
		{"list", "./..."},
		{"test", "-cover", "-coverprofile", "c.out", "./p"},
		{"test", "-run", "TestA", "example.com/m/p"},
		{"test"},
	} {
		if run, ok := selectTests(args); ok {
			t.Errorf("selectTests(%q) = %q, want no selection", args, run)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		mutant bool
		code   int
		out    string
		want   int
	}{
		{true, 1, "--- FAIL: TestA (0.00s)\nFAIL\nFAIL\texample.com/m/p\t0.01s\n", 1},
		{true, 1, "# example.com/m/p\np/a.go:3:9: invalid operation\nFAIL\texample.com/m/p [build failed]\n", 2},
		{true, 1, "FAIL\t. [setup failed]\n", 2},
		{false, 1, "FAIL\texample.com/m/p [build failed]\n", 1},
		{true, 2, "", 2},
	} {
		if got := exitCode(tc.mutant, tc.code, []byte(tc.out)); got != tc.want {
			t.Errorf("exitCode(%v, %d, %q) = %d, want %d", tc.mutant, tc.code, tc.out, got, tc.want)
		}
	}
}
