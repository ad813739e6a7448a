package replay

import (
	"slices"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// exchange follows the requests of one run, so that each is summarised
// relative to the one before it: what it offered, and what it added to the
// conversation. A Recorder and a Model follow a run the same way, so that
// what one records the other compares.
type exchange struct {
	first    *tape.Offered // what the first request offered; nil before it
	current  *tape.Offered // what the latest request offered
	prevConv []llm.Message // the latest request's conversation (a shallow copy)
	prevResp *llm.Message  // the response to it; nil when it failed
	// prevEntry is the tape entry that served the latest request (set by a
	// Model through served).
	prevEntry int

	// threads, when set (a Model), lets a request that does not extend the
	// latest request's conversation extend an earlier one's: requests sent
	// at once (parallel sub-agents) arrive in any order, and each is
	// summarised against its own thread as it was recorded. heads are the
	// last maxHeads conversations with their responses, latest last.
	threads bool
	heads   []head
}

// head is a request's conversation, the response to it, and the tape entry
// that served it.
type head struct {
	conv  []llm.Message
	resp  *llm.Message
	entry int
}

// maxHeads bounds the conversations an exchange remembers for threads.
const maxHeads = 8

// step is one request as an exchange saw it.
type step struct {
	// offered is what the request offered, in full.
	offered *tape.Offered
	// change holds the parts of offered that differ from the request
	// before; nil for the first request and when nothing changed.
	change *tape.Offered
	// added holds the messages the request added to the conversation (see
	// RequestSummary.New), copied; nil when the conversation does not
	// extend the previous request's (it was rewritten).
	added []llm.Message
	// thread is set when added is relative to an earlier request's
	// conversation than the previous one (exchange.threads).
	thread bool
	// fromStart is set with thread when the request extends no earlier
	// conversation: added is its whole conversation, as the first
	// request's is.
	fromStart bool
	// base is the tape entry that served the request whose conversation
	// this one extends (see exchange.served); -1 when that conversation is
	// empty (the first request's, or fromStart).
	base int
	// answer is the response to the request whose conversation this one
	// extends, which it may send back; nil when none, or it failed.
	answer *llm.Message
	// reencoded is answer as the request sent it back when its calls'
	// arguments came back as the same JSON values in other bytes (see
	// echoes): left out of added like an answer sent back as served, kept
	// here for tapes that recorded it (see Model.try); nil otherwise.
	reencoded *llm.Message
}

// next summarises req relative to the request before it and makes it the
// latest.
//
// When req offers exactly what the latest request did, step.offered is that
// request's Offered itself, not a new copy: an Offered is never changed
// once built (whoever changes one changes a Clone), so the two are
// interchangeable, and a Model that found it matched the tape need not
// compare it again.
func (x *exchange) next(req *llm.Request) step {
	st := step{offered: x.current}
	switch {
	case x.first == nil:
		st.offered = tape.OfferedOf(req)
		x.first = st.offered
	case !offeredBy(x.current, req):
		st.offered = tape.OfferedOf(req)
		st.change = changes(x.current, st.offered, nil)
	}
	x.current = st.offered
	conv := tape.Conversation(req)
	base, resp, ok := x.prevConv, x.prevResp, extends(conv, x.prevConv)
	st.base = x.prevEntry
	if !ok && x.threads {
		// The longest earlier conversation it extends, or none (the
		// start, as the first request's).
		base, resp, ok, st.thread = nil, nil, true, true
		for _, h := range x.heads {
			if len(h.conv) > len(base) && extends(conv, h.conv) {
				base, resp, st.base = h.conv, h.resp, h.entry
			}
		}
		st.fromStart = len(base) == 0
	}
	if len(base) == 0 {
		st.base = -1
	}
	if ok {
		st.extend(conv, base, resp)
	}
	x.prevConv = slices.Clone(conv)
	x.prevResp = nil
	if x.threads {
		if len(x.heads) == maxHeads {
			x.heads = slices.Delete(x.heads, 0, 1)
		}
		x.heads = append(x.heads, head{conv: x.prevConv, entry: -1})
	}
	return st
}

// extend sets st's answer, added and reencoded for a request whose
// conversation conv extends base, the conversation of a request answered
// resp (nil when it failed).
func (st *step) extend(conv, base []llm.Message, resp *llm.Message) {
	st.answer, st.reencoded = resp, nil
	added := conv[len(base):]
	if len(added) > 0 && resp != nil && added[0].Role == llm.RoleAssistant && echoes(added[0], *resp) {
		if !equalMessage(added[0], *resp) {
			m := added[0].Clone()
			st.reencoded = &m
		}
		added = added[1:]
	}
	st.added = llm.CloneMessages(added)
	if st.added == nil {
		st.added = []llm.Message{}
	}
}

// after returns st summarised against the conversation of the request that
// tape entry k served instead, and true, when conv (the request's) extends
// it and the exchange still remembers it (one of the last maxHeads); st and
// false otherwise.
func (x *exchange) after(st step, conv []llm.Message, k int) (step, bool) {
	for _, h := range x.heads {
		if h.entry == k && k >= 0 && extends(conv, h.conv) {
			st.extend(conv, h.conv, h.resp)
			st.base, st.thread, st.fromStart = k, true, false
			return st, true
		}
	}
	return st, false
}

// echoes reports whether sent, a message a request added first, is served,
// the answer to the request before it, sent back: equal to it, except that
// each call's arguments need only be the same JSON value (sameArguments),
// for an SDK that parses them and encodes them again (google.golang.org/genai
// sends them back with their keys sorted). Everything else, signatures and
// reasoning included, compares as equalMessage does.
func echoes(sent, served llm.Message) bool {
	if equalMessage(sent, served) {
		return true
	}
	if !sameVisible(sent, served) || !sameReasoning(sent.Reasoning, served.Reasoning) {
		return false
	}
	for i, c := range sent.ToolCalls {
		if c.Signature != served.ToolCalls[i].Signature {
			return false
		}
	}
	return true
}

// sameArguments reports whether two tool calls' arguments are the same: the
// same bytes, or JSON texts of the same value (objects compared key by key
// in any order, arrays element by element, numbers as written, strings once
// unescaped, spacing ignored; see jsonvalue.SameText). Text that is not JSON compares
// as bytes, so any difference of value still differs.
func sameArguments(a, b string) bool {
	return a == b || jsonvalue.SameText([]byte(a), []byte(b))
}

// extends reports whether conv starts with base.
func extends(conv, base []llm.Message) bool {
	return len(conv) >= len(base) && slices.EqualFunc(conv[:len(base)], base, equalMessage)
}

// served records that tape entry i served the latest request: a Model's
// steps name the entry their conversation extends (step.base).
func (x *exchange) served(i int) {
	x.prevEntry = i
	if n := len(x.heads); n > 0 {
		x.heads[n-1].entry = i
	}
}

// answered records the response to the latest request; nil means it failed.
func (x *exchange) answered(resp *llm.Response) {
	if resp == nil {
		x.prevResp = nil
		if n := len(x.heads); n > 0 {
			x.heads[n-1].resp = nil
		}
		return
	}
	m := resp.Message.Clone()
	m.Role = llm.RoleAssistant
	x.prevResp = &m
	if n := len(x.heads); n > 0 {
		x.heads[n-1].resp = &m
	}
}

// recorded is what a Recorder keeps of the step: the change of what was
// offered, the messages added, or the whole message list when the
// conversation was rewritten. All is set by RecorderOptions.RecordMessages.
func (st step) recorded(req *llm.Request, all bool) *tape.RequestSummary {
	var s *tape.RequestSummary
	if all {
		s = summarizeAll(req)
	} else {
		s = &tape.RequestSummary{}
		if st.added == nil {
			s.Messages = llm.CloneMessages(req.Messages)
			if s.Messages == nil {
				s.Messages = []llm.Message{}
			}
		}
	}
	s.Offered, s.New = st.change.Clone(), llm.CloneMessages(st.added)
	return s
}

// summarizeAll returns Summarize(req) plus a copy of the whole message list.
func summarizeAll(req *llm.Request) *tape.RequestSummary {
	s := tape.Summarize(req)
	if req != nil {
		s.Messages = llm.CloneMessages(req.Messages)
	}
	if s.Messages == nil {
		s.Messages = []llm.Message{}
	}
	return s
}
