package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"
)

// Argument preparation is a pure function of a schema and an argument text
// that parses strictly: parsing, coercion, the canonical encoding and
// validation depend on nothing else (the repairer is used only when strict
// parsing fails). A replayed suite and a model re-reading the same file
// prepare the same text again and again, so a Schema remembers the texts it
// found valid, with what preparing them gave, and prepares each again from
// that. Only valid texts are kept (a failure's report is built anew), and
// only short ones. What a schema remembers is memory the garbage collector
// takes back (a weak pointer, cleared by every collection, as a sync.Pool
// is): it never keeps a finished run's texts alive.

// maxMemoText is the longest argument text remembered.
const maxMemoText = 4 << 10

// maxMemoTexts is the most texts a schema remembers between two
// collections.
const maxMemoTexts = 1 << 12

// memoTable is what a schema remembers: valid argument texts and what
// preparing them gave.
type memoTable struct {
	texts sync.Map // argument text -> *preparedArgs
	n     atomic.Int32
}

// preparedArgs is what preparing a valid argument text gave: its canonical
// JSON and the coercions applied. It is shared: callers get copies.
type preparedArgs struct {
	canonical json.RawMessage
	coercions []Coercion
}

// memoOf returns s's table, creating it when create is set and the garbage
// collector took the last one (or there was none); nil otherwise.
func (s *Schema) memoOf(create bool) *memoTable {
	s.memoMu.Lock()
	defer s.memoMu.Unlock()
	t := s.memo.Value()
	if t == nil && create {
		t = new(memoTable)
		s.memo = weak.Make(t)
	}
	return t
}

// remembered returns what preparing the argument text raw against s gave,
// if s remembers it valid.
func (s *Schema) remembered(raw string) (*preparedArgs, bool) {
	t := s.memoOf(false)
	if t == nil {
		return nil, false
	}
	v, ok := t.texts.Load(raw)
	if !ok {
		return nil, false
	}
	return v.(*preparedArgs), true
}

// remember records that the argument text raw, parsed strictly, is valid
// against s, prepared as canonical with coercions; a text too long, or one
// past maxMemoTexts, is not recorded.
func (s *Schema) remember(raw string, canonical json.RawMessage, coercions []Coercion) {
	if len(raw) > maxMemoText {
		return
	}
	t := s.memoOf(true)
	if t.n.Add(1) > maxMemoTexts {
		return
	}
	p := &preparedArgs{canonical: slices.Clone(canonical), coercions: slices.Clone(coercions)}
	t.texts.LoadOrStore(strings.Clone(raw), p)
}

// apply sets p's arguments and coercions to copies of a's.
func (a *preparedArgs) apply(p *Prepared) {
	p.Arguments = slices.Clone(a.canonical)
	p.Coercions = slices.Clone(a.coercions)
}
