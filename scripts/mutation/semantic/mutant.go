package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The kinds of mutant, each a bug a careful engineer could write.
const (
	// StatementRemove deletes a statement that acts (a call, an assignment,
	// an increment, a send): a counter not reset, a field not set.
	StatementRemove = "STATEMENT_REMOVE"
	// BranchRemove empties one branch of an if, else or case: a check
	// skipped on one branch, a duplicate accepted.
	BranchRemove = "BRANCH_REMOVE"
	// FieldSwap stores a value in another field of the same type, the
	// nearest before or after it in the struct.
	FieldSwap = "FIELD_SWAP"
	// ArgSwap swaps two neighbouring arguments whose parameters have the
	// same type.
	ArgSwap = "ARG_SWAP"
	// AnchorRemove unanchors a match: HasPrefix or HasSuffix becomes
	// Contains, a regexp loses its ^ or $.
	AnchorRemove = "ANCHOR_REMOVE"
	// TrimRemove drops a Trim call: a line ending or a space kept.
	TrimRemove = "TRIM_REMOVE"
	// EarlyReturn returns (with nil for an error) before a function's last
	// step; EarlyContinue skips the last step of each loop iteration.
	EarlyReturn   = "EARLY_RETURN"
	EarlyContinue = "EARLY_CONTINUE"
	// DeferRemove drops a deferred call: a Close, an Unlock, a cleanup.
	DeferRemove = "DEFER_REMOVE"
	// AppendWrong appends to another slice of the same type that the
	// function also appends to.
	AppendWrong = "APPEND_WRONG"
)

// Mutant is one change to a package's source, switched on in the test
// binary by its ID.
type Mutant struct {
	ID   int    // 1-based: the value of TAPELOOP_MUTANT that switches it on
	Kind string // one of the constants above
	File string // the file's base name
	Line int
	Col  int
	Func string // the enclosing function ("f", "(*T).m", "f.func1"); "var" for a package variable
	Orig string // the code as written, on one line
	Mut  string // the code as mutated, on one line
	// Key names the mutant independently of its line: it stays the same
	// when code above it moves (see key).
	Key string
}

// Pos returns "FILE.go:LINE:COL".
func (m *Mutant) Pos() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Col) }

// describe describes m, of the package in folder dir, on one line.
func (m *Mutant) describe(dir string) string {
	mut := short(m.Mut)
	if mut == "" {
		mut = "(removed)"
	}
	return fmt.Sprintf("%s at %s/%s in %s: %s  →  %s", m.Kind, dir, m.Pos(), m.Func, short(m.Orig), mut)
}

// oneLine collapses every run of white space in s to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// short returns s on one line, cut to 100 runes.
func short(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > 100 {
		return string(r[:97]) + "..."
	}
	return s
}

// keys sets each mutant's Key: a hash of its package folder, file, function,
// kind, and its code before and after (white space collapsed), so that it
// does not depend on line numbers; the second and later mutants with the same
// hash get "-2", "-3", ... in source order.
func keys(pkgDir string, ms []*Mutant) {
	seen := map[string]int{}
	for _, m := range ms {
		h := sha256.Sum256([]byte(strings.Join([]string{pkgDir, m.File, m.Func, m.Kind, oneLine(m.Orig), oneLine(m.Mut)}, "\x00")))
		k := hex.EncodeToString(h[:5])
		seen[k]++
		if n := seen[k]; n > 1 {
			k = fmt.Sprintf("%s-%d", k, n)
		}
		m.Key = k
	}
}
