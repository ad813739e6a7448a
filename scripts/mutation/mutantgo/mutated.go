package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// errNoMutation means no file of the package differs from its source.
var errNoMutation = errors.New("no mutated file")

// mutatedLine returns the file (base name) and line, in the source, of the
// first token that differs between the .go files of dir and those of srcDir.
func mutatedLine(dir, srcDir string) (string, int, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", 0, err
	}
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasSuffix(base, "_test.go") {
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			return "", 0, err
		}
		orig, err := os.ReadFile(filepath.Join(srcDir, base))
		if err != nil {
			return "", 0, err
		}
		if bytes.Equal(got, orig) {
			continue
		}
		line, ok := firstDifference(orig, got)
		if !ok {
			continue // reprinted, same tokens
		}
		return base, line, nil
	}
	return "", 0, fmt.Errorf("%s: %w", dir, errNoMutation)
}

// scan returns the next token of s that is not a semicolon the scanner
// added at a line end: a reprinted file may break lines elsewhere.
func scan(s *scanner.Scanner) (token.Pos, token.Token, string) {
	for {
		pos, tok, lit := s.Scan()
		if tok != token.SEMICOLON || lit != "\n" {
			return pos, tok, lit
		}
	}
}

// firstDifference returns the line in orig of the first token that differs
// from the token at the same place in mutated, ignoring spacing,
// line breaks and comments; false when the two hold the same tokens.
func firstDifference(orig, mutated []byte) (int, bool) {
	var a, b scanner.Scanner
	fa, fb := token.NewFileSet(), token.NewFileSet()
	a.Init(fa.AddFile("a", -1, len(orig)), orig, nil, 0)
	b.Init(fb.AddFile("b", -1, len(mutated)), mutated, nil, 0)
	for {
		pa, ta, la := scan(&a)
		_, tb, lb := scan(&b)
		if ta != tb || la != lb {
			return fa.Position(pa).Line, true
		}
		if ta == token.EOF {
			return 0, false
		}
	}
}
