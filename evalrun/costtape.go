package evalrun

import (
	"fmt"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// tapeCalls rebuilds the model requests a scenario's tape recorded, in
// order, as the replay follows them: the offered block, changed by each
// entry's offered changes, and the conversation, extended by each entry's
// new messages after the response before (left out of new when unchanged);
// a failed call is left out, as its retry repeats its request. A tape does
// not keep whether a tool result was an error (is_error), so that flag is
// not rebuilt.
// False when the tape does not record them whole: no offered block, or an
// entry without new messages (a hand-written tape pinning only tools or
// the last message). The calls carry no usage: what a recorded usage says
// of one tape does not hold for the other, so both are estimated alike.
func tapeCalls(s *scenario.Scenario) ([]cost.Call, bool) {
	if s.Offered == nil {
		return nil, false
	}
	offered := s.Offered.Clone()
	var calls []cost.Call
	var conv []llm.Message
	var prev *llm.Message // the response to the request before; nil when it failed
	for _, en := range s.Tape {
		if en.User != nil {
			continue // spoken by the next request, in its new messages
		}
		r := en.Request
		if r == nil || r.New == nil {
			return nil, false
		}
		if c := r.Offered; c != nil {
			if c.System != nil {
				offered.System = c.System
			}
			if c.Tools != nil {
				offered.Tools = c.Tools
			}
			if c.ResponseSchema != nil {
				offered.ResponseSchema = c.ResponseSchema
			}
			if c.Params != nil {
				offered.Params = c.Params
			}
		}
		if prev != nil && (len(r.New) == 0 || r.New[0].Role != llm.RoleAssistant) {
			conv = append(conv, *prev)
		}
		conv = append(conv, r.New...)
		req := llm.Request{Tools: offered.Tools, ResponseSchema: offered.ResponseSchema, Params: offered.Params}
		for _, sys := range offered.System {
			req.Messages = append(req.Messages, llm.SystemMessage(sys))
		}
		req.Messages = append(req.Messages, conv...)
		// The first request's breakpoints, put where they fall in this one
		// (a tape keeps only the first request's: see docs/cost.md).
		req.Cache = tape.CacheMarks(offered.Cache, &req)
		if en.Response != nil {
			// A failed call is tried again with the same request (the
			// loop reports it once), and is not billed.
			calls = append(calls, cost.Call{Request: req})
		}
		prev = nil
		if en.Response != nil {
			m := en.Response.Message
			prev = &m
		}
	}
	return calls, len(calls) > 0
}

// tapeShare is the cacheable share of the requests s's tape recorded,
// estimated under the generic rules, as "56%"; "not recorded whole" when
// the tape does not record them (tapeCalls).
func tapeShare(s *scenario.Scenario) string {
	calls, ok := tapeCalls(s)
	if !ok {
		return "not recorded whole"
	}
	run, err := cost.Analyze(calls)
	if err != nil {
		return "unreadable (" + err.Error() + ")"
	}
	return fmt.Sprintf("%.0f%%", 100*run.Share())
}

// shareChange says how a rewrite of a scenario's tape changed its
// cacheable share, for rebase and record: "cacheable share 33% before,
// 56% after (estimated from the tape's requests; `PROG cost` reads a
// scenario whole)", PROG the program the user runs, or, when there was no
// tape before (before nil), "cacheable share 56% (...)".
func shareChange(prog string, before, after *scenario.Scenario) string {
	how := " (estimated from the tape's requests; `" + prog + " cost` reads a scenario whole)"
	if before == nil {
		return "cacheable share " + tapeShare(after) + how
	}
	return "cacheable share " + tapeShare(before) + " before, " + tapeShare(after) + " after" + how
}
