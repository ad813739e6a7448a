package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Argument preparation is a pure function of a schema and an argument text
// that parses strictly: parsing, coercion, the canonical encoding and
// validation depend on nothing else (the repairer is used only when strict
// parsing fails). A model re-reading the same file sends the same text again
// within a run, so each registration of a tool remembers the texts it found
// valid, with what preparing them gave, and prepares each again from that.
// Only valid texts are kept (a failure's report is built anew), and only
// short ones, at most maxMemoTexts of them.
//
// The table belongs to the registration (a Registry's entry), not to the
// compiled schema, which is shared by every registry in the process: a
// harness builds a registry per run, so nothing prepared in one run is
// reused by the next, and the table goes with the registry.

// maxMemoText is the longest argument text remembered.
const maxMemoText = 4 << 10

// maxMemoTexts is the most texts a registration remembers.
const maxMemoTexts = 1 << 12

// memoTable is what a registration remembers: valid argument texts and what
// preparing them gave. The zero value is empty and ready to use.
type memoTable struct {
	mu    sync.Mutex
	texts map[string]*preparedArgs
}

// preparedArgs is what preparing a valid argument text gave: its canonical
// JSON and the coercions applied. It is shared: callers get copies.
type preparedArgs struct {
	canonical json.RawMessage
	coercions []Coercion
}

// remembered returns what preparing the argument text raw gave, if t
// remembers it valid.
func (t *memoTable) remembered(raw string) (*preparedArgs, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.texts[raw]
	return a, ok
}

// remember records that the argument text raw, parsed strictly, is valid,
// prepared as canonical with coercions; a text too long, or one past
// maxMemoTexts, is not recorded.
func (t *memoTable) remember(raw string, canonical json.RawMessage, coercions []Coercion) {
	if len(raw) > maxMemoText {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.texts) >= maxMemoTexts {
		return
	}
	if t.texts == nil {
		t.texts = make(map[string]*preparedArgs)
	}
	if _, ok := t.texts[raw]; ok {
		return
	}
	t.texts[strings.Clone(raw)] = &preparedArgs{canonical: slices.Clone(canonical), coercions: slices.Clone(coercions)}
}

// apply sets p's arguments and coercions to copies of a's.
func (a *preparedArgs) apply(p *Prepared) {
	p.Arguments = slices.Clone(a.canonical)
	p.Coercions = slices.Clone(a.coercions)
}
