// Package linekey names a token of a Go source file by what the code says
// rather than by where it sits, so that a name written down today (in
// scripts/mutation/allow.txt) still finds the same token after code above it
// moved, a function was moved within its file, or a block was re-indented.
//
// gremlins reports a mutant as FILE.go:LINE:COLUMN, the place of the
// operator it changes. Key turns that place into
//
//	HASH[-N]:K
//
// where HASH is the first 10 hex digits of the SHA-256 of the enclosing
// function's name and the line's tokens (comments and spacing left out), N
// (from 2, left out for the first) tells apart lines of one function whose
// tokens are the same, in source order, and K (from 1) is which token of the
// line the mutated operator is. Changing the line's code or the function's
// name gives another key: the mutant must then be looked at again.
package linekey

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// ErrNoToken means no token of the file starts at the place asked for.
var ErrNoToken = errors.New("no token starts there")

// tok is one token of a line.
type tok struct {
	col  int    // 1-based byte column
	text string // its text: the literal, or the operator's spelling
}

// File is a parsed Go source file whose tokens can be keyed. Its zero value
// holds no line; make one with Parse.
type File struct {
	name  string
	lines map[int][]tok  // by 1-based line: the tokens starting on it
	keys  map[int]string // by line: HASH[-N]
}

// Parse reads the Go source src of the file called name (used in errors).
// It fails when src is not valid Go.
func Parse(name string, src []byte) (*File, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, lines: map[int][]tok{}, keys: map[int]string{}}
	var s scanner.Scanner
	file := fset.File(af.Pos())
	s.Init(file, src, nil, 0) // comments are skipped
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		if t == token.SEMICOLON && lit == "\n" {
			continue // added by the scanner at a line end
		}
		text := lit
		if text == "" {
			text = t.String()
		}
		p := file.Position(pos)
		f.lines[p.Line] = append(f.lines[p.Line], tok{col: p.Column, text: text})
	}
	// Lines of one function with the same tokens get -2, -3, ... in
	// source order; a line outside every function has the function "".
	funcs := funcLines(fset, af)
	seen := map[string]int{}
	for line := 1; line <= file.LineCount(); line++ {
		toks, ok := f.lines[line]
		if !ok {
			continue
		}
		texts := make([]string, len(toks))
		for i, t := range toks {
			texts[i] = t.text
		}
		h := sha256.Sum256([]byte(funcs[line] + "\x00" + strings.Join(texts, " ")))
		k := hex.EncodeToString(h[:5])
		seen[k]++
		if n := seen[k]; n > 1 {
			k = fmt.Sprintf("%s-%d", k, n)
		}
		f.keys[line] = k
	}
	return f, nil
}

// Key returns the key of the token starting at line and col (1-based, col
// in bytes as go/token counts it), or an error wrapping ErrNoToken when no
// token starts there.
func (f *File) Key(line, col int) (string, error) {
	toks := f.lines[line]
	for i, t := range toks {
		if t.col != col {
			continue
		}
		return fmt.Sprintf("%s:%d", f.keys[line], i+1), nil
	}
	return "", fmt.Errorf("%s:%d:%d: %w", f.name, line, col, ErrNoToken)
}

// funcLines returns, for each line inside a top-level function or method,
// its name: "F", "(T).M" or "(*T).M" (type parameters left out).
func funcLines(fset *token.FileSet, af *ast.File) map[int]string {
	out := map[int]string{}
	for _, d := range af.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = "(" + recvName(fd.Recv.List[0].Type) + ")." + name
		}
		from, to := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		for l := from; l <= to; l++ {
			out[l] = name
		}
	}
	return out
}

// recvName spells a receiver's type: "T" or "*T", without type parameters.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.ParenExpr:
		return recvName(x.X)
	}
	return "?"
}
