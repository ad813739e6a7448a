package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/llm"
)

// ErrEncode is wrapped by the error Analyze returns when a request cannot be
// encoded (a tool's parameters that are not valid JSON).
var ErrEncode = errors.New("cost: request cannot be encoded")

// Call is one model request of a run as it was sent, with the usage the
// provider reported for it. A zero Usage means none was recorded.
type Call struct {
	Request llm.Request
	Usage   llm.Usage
}

// Kind says how the element at a Breaker's place differs from the previous
// request's.
type Kind string

// The kinds of cache breaker.
const (
	// KindChanged: the element is there in both requests, with other content
	// (a system message or a tool of the same name).
	KindChanged Kind = "changed"
	// KindMoved: the same tools are offered, in another order.
	KindMoved Kind = "moved"
	// KindRewritten: a message of the previous request's history differs.
	KindRewritten Kind = "rewritten"
	// KindAdded: the element is new where the previous request had another
	// section continue (a system message or tool the previous request lacked).
	KindAdded Kind = "added"
	// KindRemoved: the previous request had an element here that this one
	// lacks, and this one goes on differently.
	KindRemoved Kind = "removed"
)

// Breaker is the first place a request's prefix differs from the previous
// request's. Part is "system", "tools" or "messages"; Index counts within the
// system messages for "system", within Request.Tools for "tools", and within
// Request.Messages (system messages included) for "messages".
type Breaker struct {
	Part  string
	Index int
	Kind  Kind
}

// String names the place, as "tools[2] moved".
func (b Breaker) String() string {
	return fmt.Sprintf("%s[%d] %s", b.Part, b.Index, b.Kind)
}

// Step is what one request shares with the previous request of its run.
type Step struct {
	// SharedBytes is the size of the shared prefix's encoding; TotalBytes
	// that of the whole request.
	SharedBytes, TotalBytes int
	// SharedTokens is the tokens the shared prefix spans: the recorded
	// CachedInputTokens when Recorded, else SharedBytes/4.
	SharedTokens int
	// InputTokens is the request's input tokens: the recorded InputTokens
	// when InputRecorded, else TotalBytes/4.
	InputTokens int
	// Recorded says SharedTokens came from the provider's usage; false means
	// it is an estimate.
	Recorded bool
	// InputRecorded says InputTokens came from the provider's usage; false
	// means it is an estimate.
	InputRecorded bool
	// Breaker is the first place the request differs from the previous one;
	// nil for the first request of a run and for one that only appends.
	Breaker *Breaker
}

// Run is the prefix stability of one run's requests, in the order sent.
type Run struct {
	Steps []Step
	// SharedTokens and InputTokens sum the steps'.
	SharedTokens, InputTokens int
}

// Share is the cacheable share of the run's input tokens, between 0 and 1; 0
// for a run without input.
func (r Run) Share() float64 {
	if r.InputTokens == 0 {
		return 0
	}
	s := float64(r.SharedTokens) / float64(r.InputTokens)
	return min(s, 1)
}

// Breakers returns the breakers of the run's steps, in order, each with the
// index of its request; nil when the prefix never breaks.
func (r Run) Breakers() []StepBreaker {
	var out []StepBreaker
	for i, s := range r.Steps {
		if s.Breaker != nil {
			out = append(out, StepBreaker{Request: i, Breaker: *s.Breaker})
		}
	}
	return out
}

// StepBreaker is a Breaker with the index of the request it was found in.
type StepBreaker struct {
	Request int
	Breaker
}

// element is one unit of the cached prefix, encoded.
type element struct {
	part  string
	index int
	name  string // a tool's name; empty for messages
	enc   []byte
}

// elements lays a request out in the order the cache reads it: the leading
// system messages, the tools, then the remaining messages.
func elements(r *llm.Request) ([]element, error) {
	var out []element
	nsys := 0
	for nsys < len(r.Messages) && r.Messages[nsys].Role == llm.RoleSystem {
		nsys++
	}
	for i := 0; i < nsys; i++ {
		b, err := json.Marshal(r.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("%w: messages[%d]: %v", ErrEncode, i, err)
		}
		out = append(out, element{part: "system", index: i, enc: b})
	}
	for i, t := range r.Tools {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("%w: tools[%d] %q: %v", ErrEncode, i, t.Name, err)
		}
		out = append(out, element{part: "tools", index: i, name: t.Name, enc: b})
	}
	for i := nsys; i < len(r.Messages); i++ {
		b, err := json.Marshal(r.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("%w: messages[%d]: %v", ErrEncode, i, err)
		}
		out = append(out, element{part: "messages", index: i, enc: b})
	}
	return out, nil
}

// Analyze compares each call's request with the one before it. It fails only
// when a request cannot be encoded, naming the request and element.
func Analyze(calls []Call) (Run, error) {
	var run Run
	var prev []element
	for i := range calls {
		cur, err := elements(&calls[i].Request)
		if err != nil {
			return Run{}, fmt.Errorf("request %d: %w", i, err)
		}
		step := compare(prev, cur, i == 0)
		if u := calls[i].Usage; u.CachedInputTokens > 0 {
			step.SharedTokens, step.Recorded = u.CachedInputTokens, true
		}
		if u := calls[i].Usage; u.InputTokens > 0 {
			step.InputTokens, step.InputRecorded = u.InputTokens, true
		}
		run.Steps = append(run.Steps, step)
		run.SharedTokens += step.SharedTokens
		run.InputTokens += step.InputTokens
		prev = cur
	}
	return run, nil
}

// compare measures the prefix cur shares with prev, in whole elements.
func compare(prev, cur []element, first bool) Step {
	var s Step
	for _, e := range cur {
		s.TotalBytes += len(e.enc)
	}
	n := 0
	for n < len(prev) && n < len(cur) && bytes.Equal(prev[n].enc, cur[n].enc) {
		s.SharedBytes += len(cur[n].enc)
		n++
	}
	s.SharedTokens = s.SharedBytes / 4
	s.InputTokens = s.TotalBytes / 4
	if first || n == len(prev) || n == len(cur) {
		// Nothing before, everything before kept (an append), or a request
		// that is all prefix: nothing broke.
		return s
	}
	s.Breaker = name(prev, cur, n)
	return s
}

// name says how cur[n] breaks the prefix it would share with prev.
func name(prev, cur []element, n int) *Breaker {
	p, c := prev[n], cur[n]
	if p.part != c.part {
		// One request has an element of a section the other ends earlier:
		// the section order is system, tools, messages, so the one whose
		// element comes first in that order gained it.
		if order(c.part) < order(p.part) {
			return &Breaker{Part: c.part, Index: c.index, Kind: KindAdded}
		}
		return &Breaker{Part: p.part, Index: p.index, Kind: KindRemoved}
	}
	switch c.part {
	case "system":
		return &Breaker{Part: "system", Index: c.index, Kind: KindChanged}
	case "tools":
		if sameTools(prev, cur) {
			return &Breaker{Part: "tools", Index: c.index, Kind: KindMoved}
		}
		if p.name == c.name {
			return &Breaker{Part: "tools", Index: c.index, Kind: KindChanged}
		}
		if !hasTool(prev, c.name) {
			return &Breaker{Part: "tools", Index: c.index, Kind: KindAdded}
		}
		return &Breaker{Part: "tools", Index: p.index, Kind: KindRemoved}
	}
	return &Breaker{Part: "messages", Index: c.index, Kind: KindRewritten}
}

func order(part string) int {
	switch part {
	case "system":
		return 0
	case "tools":
		return 1
	}
	return 2
}

// sameTools reports whether prev and cur offer the same tool definitions, in
// any order.
func sameTools(prev, cur []element) bool {
	count := map[string]int{}
	for _, e := range prev {
		if e.part == "tools" {
			count[string(e.enc)]++
		}
	}
	for _, e := range cur {
		if e.part == "tools" {
			count[string(e.enc)]--
		}
	}
	for _, v := range count {
		if v != 0 {
			return false
		}
	}
	return true
}

func hasTool(els []element, name string) bool {
	for _, e := range els {
		if e.part == "tools" && e.name == name {
			return true
		}
	}
	return false
}
