package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tapeloop/tapeloop/llm"
)

// ErrEncode is wrapped by the error Analyze returns when a request cannot be
// encoded (a tool's parameters that are not valid JSON).
var ErrEncode = errors.New("cost: request cannot be encoded")

// ErrRules is wrapped by the error Rules.Analyze returns for rules that
// cannot be applied (a negative minimum).
var ErrRules = errors.New("cost: invalid cache rules")

// Call is one model request of a run as it was sent, with the usage the
// provider reported for it and the message it answered. A zero Usage means
// none was recorded; a zero Answer (no role) means no answer, and no output.
type Call struct {
	Request llm.Request
	Usage   llm.Usage
	Answer  llm.Message
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
	// SharedTokens is the tokens the cache could read for the request: the
	// recorded CachedInputTokens when Recorded, else the estimate the Rules
	// give for the shared prefix (its bytes/4, for Generic).
	SharedTokens int
	// WriteTokens is the tokens the request writes to the cache past what
	// it reads (billed at the cache-write price): the recorded
	// CacheWriteTokens when Recorded, else an
	// estimate for rules with Breakpoints (the prefix up to the request's
	// last breakpoint, past what it reads); zero for an automatic cache,
	// whose writes cost nothing extra.
	WriteTokens int
	// OutputTokens is the tokens of the answer: the recorded OutputTokens
	// when the usage holds them, else the answer's JSON encoding's bytes/4.
	OutputTokens int
	// InputTokens is the request's input tokens: the recorded InputTokens
	// when InputRecorded, else TotalBytes/4.
	InputTokens int
	// Recorded says SharedTokens and WriteTokens came from the provider's
	// usage (it reported cached or cache-write tokens, or that both were
	// zero: llm.Usage.CacheKnown); false means they are estimates.
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
	// Rules are the cache rules the run was read with.
	Rules Rules
	Steps []Step
	// SharedTokens, InputTokens, WriteTokens and OutputTokens sum the
	// steps'.
	SharedTokens, InputTokens, WriteTokens, OutputTokens int
	// AssumedBreakpoints says that Rules with Breakpoints read a request
	// that did not record its own (llm.Request.Cache nil), and assumed the
	// two an agent is advised to set.
	AssumedBreakpoints bool
}

// Estimated reports whether any of the run's cached or input token counts
// is an estimate rather than the provider's recorded usage.
func (r Run) Estimated() bool {
	for _, s := range r.Steps {
		if !s.Recorded || !s.InputRecorded {
			return true
		}
	}
	return false
}

// CachedReported counts the steps whose cached tokens are the provider's
// report (Step.Recorded), zero counts included.
func (r Run) CachedReported() int {
	n := 0
	for _, s := range r.Steps {
		if s.Recorded {
			n++
		}
	}
	return n
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
// system messages and the tools (in the order rules read them), then the
// remaining messages.
func elements(r *llm.Request, rules Rules) ([]element, error) {
	var out []element
	nsys := 0
	for nsys < len(r.Messages) && r.Messages[nsys].Role == llm.RoleSystem {
		nsys++
	}
	system := func() error {
		for i := 0; i < nsys; i++ {
			b, err := json.Marshal(r.Messages[i])
			if err != nil {
				return fmt.Errorf("%w: messages[%d]: %v", ErrEncode, i, err)
			}
			out = append(out, element{part: "system", index: i, enc: b})
		}
		return nil
	}
	tools := func() error {
		for i, t := range r.Tools {
			b, err := json.Marshal(t)
			if err != nil {
				return fmt.Errorf("%w: tools[%d] %q: %v", ErrEncode, i, t.Name, err)
			}
			out = append(out, element{part: "tools", index: i, name: t.Name, enc: b})
		}
		return nil
	}
	first, second := system, tools
	if rules.ToolsFirst {
		first, second = tools, system
	}
	if err := first(); err != nil {
		return nil, err
	}
	if err := second(); err != nil {
		return nil, err
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

// Analyze compares each call's request with the one before it under the
// Generic rules. It fails only when a request cannot be encoded, naming the
// request and element.
func Analyze(calls []Call) (Run, error) { return Generic.Analyze(calls) }

// Analyze compares each call's request with the one before it, in the order
// r's cache reads a request, and counts what r's cache could read of each:
// the provider's recorded cached tokens where the usage holds some, else
// r's estimate. It fails when a request cannot be encoded, naming the
// request and element, and for rules that cannot be applied (ErrRules).
func (r Rules) Analyze(calls []Call) (Run, error) {
	if err := r.check(); err != nil {
		return Run{}, err
	}
	run := Run{Rules: r}
	var prev []element
	var prevBps []int
	for i := range calls {
		cur, err := elements(&calls[i].Request, r)
		if err != nil {
			return Run{}, fmt.Errorf("request %d: %w", i, err)
		}
		var bps []int
		if r.Breakpoints {
			var assumed bool
			bps, assumed = breakpoints(cur, calls[i].Request.Cache)
			run.AssumedBreakpoints = run.AssumedBreakpoints || assumed
		}
		step := r.compare(prev, cur, prevBps, bps, i == 0)
		u := calls[i].Usage
		if u.CacheKnown() {
			// The provider said what its cache read and wrote (zero too).
			step.SharedTokens, step.WriteTokens, step.Recorded = u.CachedInputTokens, u.CacheWriteTokens, true
		}
		if u.InputTokens > 0 {
			step.InputTokens, step.InputRecorded = u.InputTokens, true
		}
		step.OutputTokens = u.OutputTokens
		if step.OutputTokens == 0 && calls[i].Answer.Role != "" {
			b, err := json.Marshal(calls[i].Answer)
			if err != nil {
				return Run{}, fmt.Errorf("request %d: %w: answer: %v", i, ErrEncode, err)
			}
			step.OutputTokens = len(b) / 4
		}
		run.Steps = append(run.Steps, step)
		run.SharedTokens += step.SharedTokens
		run.InputTokens += step.InputTokens
		run.WriteTokens += step.WriteTokens
		run.OutputTokens += step.OutputTokens
		prev, prevBps = cur, bps
	}
	return run, nil
}

// compare measures the prefix cur shares with prev, in whole elements, and
// what r's cache could read of it; prevBps and bps are the breakpoints of
// each (see breakpoints), used by rules with Breakpoints.
func (r Rules) compare(prev, cur []element, prevBps, bps []int, first bool) Step {
	var s Step
	// upto[k] is the size of cur's first k elements' encodings.
	upto := make([]int, len(cur)+1)
	for i, e := range cur {
		upto[i+1] = upto[i] + len(e.enc)
	}
	s.TotalBytes = upto[len(cur)]
	n := 0
	for n < len(prev) && n < len(cur) && bytes.Equal(prev[n].enc, cur[n].enc) {
		n++
	}
	s.SharedBytes = upto[n]
	s.InputTokens = s.TotalBytes / 4
	if r.Breakpoints {
		s.SharedTokens, s.WriteTokens = r.readAtBreakpoints(prev != nil, prevBps, bps, n, upto)
	} else {
		s.SharedTokens = r.cacheable(s.SharedBytes / 4)
	}
	if first || n == len(prev) || n == len(cur) {
		// Nothing before, everything before kept (an append), or a request
		// that is all prefix: nothing broke.
		return s
	}
	s.Breaker = r.name(prev, cur, n)
	return s
}

// breakpoints are the ends (in elements) of the prefixes a request of els
// marks, in increasing order: those of marks, its recorded breakpoints;
// when it recorded none (marks nil), the two assumed, after its tools and
// system prompt and at its end, and assumed is true.
func breakpoints(els []element, marks []llm.CacheMark) (ends []int, assumed bool) {
	if marks == nil {
		head := 0
		for head < len(els) && els[head].part != "messages" {
			head++
		}
		if head > 0 && head < len(els) {
			return []int{head, len(els)}, true
		}
		return []int{len(els)}, true
	}
	ends = []int{}
	for _, m := range marks {
		for k, e := range els {
			if (e.part == "tools") == m.Tools && e.index == m.Index {
				ends = append(ends, k+1)
				break
			}
		}
	}
	slices.Sort(ends)
	return slices.Compact(ends), false
}

// readAtBreakpoints is what a breakpoint cache reads for a request, which
// shares its first n elements with the previous one (upto[k] the bytes of
// its first k; hasPrev false for the first request), and what it writes
// past that: the previous request kept the prefixes that end at its
// breakpoints (prevBps) and reach the minimum; this one reads the longest
// of them that it shares, when one of its own breakpoints (bps) is at most
// Lookback elements after its end, and writes up to its last breakpoint
// that reaches the minimum.
func (r Rules) readAtBreakpoints(hasPrev bool, prevBps, bps []int, n int, upto []int) (read, write int) {
	tok := func(k int) int { return upto[k] / 4 }
	if hasPrev {
		for _, kept := range prevBps {
			if kept > n || tok(kept) < r.MinTokens || tok(kept) <= read {
				continue
			}
			for _, b := range bps {
				if kept <= b && (r.Lookback == 0 || b-kept <= r.Lookback) {
					read = tok(kept)
					break
				}
			}
		}
	}
	for _, b := range bps {
		if tok(b) >= r.MinTokens && tok(b) > read {
			write = tok(b) - read
		}
	}
	return read, write
}

// name says how cur[n] breaks the prefix it would share with prev.
func (r Rules) name(prev, cur []element, n int) *Breaker {
	p, c := prev[n], cur[n]
	if p.part != c.part {
		// One request has an element of a section the other ends earlier:
		// the one whose element comes first in the order the cache reads
		// the sections gained it.
		if r.rank(c.part) < r.rank(p.part) {
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
