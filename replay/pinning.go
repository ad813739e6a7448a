package replay

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/tape"
)

// Pinning says which parts of a tape's requests are pinned, that is
// recorded and so compared on replay. A tape written by hand usually pins
// little; one written by a recording (or by evalrun rebase --all) pins all.
type Pinning struct {
	// System is set when the tape's offered block states the system
	// prompts.
	System bool
	// Tools is set when the offered block states the tools with their
	// descriptions and schemas.
	Tools bool
	// Params is set when the offered block states the request parameters
	// that change the model's behaviour (offered.params: a bridged agent's
	// model, tool choice, temperature, ...; a native scenario's
	// setup.loop.request, which is all tapeloop's own loop sends).
	Params bool
	// ToolNames counts the model calls whose request pins only the names
	// of the offered tools (request.tools), when Tools is not set.
	ToolNames int
	// Calls counts the model calls (response and error entries).
	Calls int
	// Messages counts the model calls whose messages are pinned
	// (request.new or request.messages).
	Messages int
	// LastMessage counts the model calls that pin only their last message.
	LastMessage int
	// Unpinned lists the indexes of the model entries whose messages are
	// not pinned, in order.
	Unpinned []int
}

// PinningOf reports which parts of t's requests are pinned; a nil t pins
// nothing.
func PinningOf(t *tape.Tape) Pinning {
	var p Pinning
	if t == nil {
		return p
	}
	p.System = t.Offered != nil && t.Offered.System != nil
	p.Tools = t.Offered != nil && t.Offered.Tools != nil
	p.Params = t.Offered != nil && t.Offered.Params != nil
	for i, e := range t.Entries {
		if e.User != nil {
			continue
		}
		p.Calls++
		r := e.Request
		switch {
		case r != nil && (r.New != nil || r.Messages != nil):
			p.Messages++
		default:
			p.Unpinned = append(p.Unpinned, i)
			if r != nil && r.LastMessage != nil {
				p.LastMessage++
			}
		}
		if !p.Tools && r != nil && r.Tools != nil {
			p.ToolNames++
		}
	}
	return p
}

// All reports whether every part of every request is pinned.
func (p Pinning) All() bool {
	return p.System && p.Tools && len(p.Unpinned) == 0
}

// String says what is pinned: "system prompt pinned, tools pinned,
// messages pinned on 3 of 3 model calls", or what is not, and ",
// parameters pinned" when the request parameters are.
func (p Pinning) String() string {
	parts := make([]string, 0, 3)
	if p.System {
		parts = append(parts, "system prompt pinned")
	} else {
		parts = append(parts, "system prompt not pinned")
	}
	switch {
	case p.Tools:
		parts = append(parts, "tools pinned")
	case p.ToolNames > 0:
		parts = append(parts, fmt.Sprintf("tools: names only, on %d of %d model calls", p.ToolNames, p.Calls))
	default:
		parts = append(parts, "tools not pinned")
	}
	msg := fmt.Sprintf("messages pinned on %d of %d model calls", p.Messages, p.Calls)
	if p.LastMessage > 0 {
		msg += fmt.Sprintf(" (the last message only on %d)", p.LastMessage)
	}
	parts = append(parts, msg)
	if p.Params {
		parts = append(parts, "parameters pinned")
	}
	return strings.Join(parts, ", ")
}
