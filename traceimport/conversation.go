package traceimport

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tapeloop/tapeloop/llm"
)

// step is one model call of a run as the tape replays it: the system
// prompts and the conversation it sent (call and result ids made
// consistent), and the answer.
type step struct {
	call   *Call
	system []string
	conv   []llm.Message
	out    *llm.Message // nil when the call failed
}

// ids gives tool calls and results without an id one, consistently
// across the run: a call keeps its id wherever the conversation repeats
// it, and a result takes the id of the call it answers.
type ids struct {
	next int
	used map[string]bool
}

func (x *ids) fresh() string {
	for {
		x.next++
		id := "call_" + strconv.Itoa(x.next)
		if !x.used[id] {
			x.used[id] = true
			return id
		}
	}
}

// steps returns the run's calls as steps: each call's system prompts (its
// system instructions, then the leading system messages of its input),
// its conversation with ids filled in, and its answer.
func steps(r *Run) []step {
	x := &ids{used: map[string]bool{}}
	for _, c := range r.Calls {
		for _, m := range c.Input {
			for _, tc := range m.ToolCalls {
				x.used[tc.ID] = true
			}
		}
		if c.Output != nil {
			for _, tc := range c.Output.ToolCalls {
				x.used[tc.ID] = true
			}
		}
	}
	var out []step
	var prev []llm.Message // the previous step's conversation and answer
	for _, c := range r.Calls {
		st := step{call: c, system: slices.Clone(c.System)}
		in := c.Input
		for len(in) > 0 && in[0].Role == llm.RoleSystem {
			st.system = append(st.system, in[0].Content)
			in = in[1:]
		}
		if st.system == nil {
			st.system = []string{}
		}
		conv := make([]llm.Message, len(in))
		for i, m := range in {
			m = m.Clone()
			if i < len(prev) && sameMessage(m, prev[i]) {
				m = prev[i].Clone() // the message again: its ids as given
			}
			conv[i] = m
		}
		fillIDs(conv, x)
		st.conv = conv
		if c.Output != nil {
			o := c.Output.Clone()
			for i := range o.ToolCalls {
				if o.ToolCalls[i].ID == "" {
					o.ToolCalls[i].ID = x.fresh()
				}
			}
			st.out = &o
			prev = append(slices.Clone(conv), o)
		} else {
			prev = slices.Clone(conv)
		}
		out = append(out, st)
	}
	return out
}

// fillIDs gives calls without an id a fresh one, and results without one
// the id of the first unanswered call of the latest assistant message
// before them with their tool's name (or, without a name, the first
// unanswered call).
func fillIDs(conv []llm.Message, x *ids) {
	var open []llm.ToolCall // the latest assistant message's unanswered calls
	for i := range conv {
		m := &conv[i]
		switch m.Role {
		case llm.RoleAssistant:
			for j := range m.ToolCalls {
				if m.ToolCalls[j].ID == "" {
					m.ToolCalls[j].ID = x.fresh()
				}
			}
			open = slices.Clone(m.ToolCalls)
		case llm.RoleTool:
			k := slices.IndexFunc(open, func(tc llm.ToolCall) bool {
				return m.ToolCallID != "" && tc.ID == m.ToolCallID || m.ToolCallID == "" && (m.Name == "" || tc.Name == m.Name)
			})
			if k < 0 {
				continue
			}
			if m.ToolCallID == "" {
				m.ToolCallID = open[k].ID
			}
			if m.Name == "" {
				m.Name = open[k].Name
			}
			open = slices.Delete(open, k, k+1)
		}
	}
}

// added returns what cur's conversation adds to the previous step's
// conversation and answer, and whether it starts with them at all; the
// answer is left out when the agent passed it on unchanged. rewritten is
// the answer as the agent passed it on when it changed it.
func added(prev, cur step) (more []llm.Message, rewritten *llm.Message, ok bool) {
	if len(cur.conv) < len(prev.conv) || !slices.EqualFunc(cur.conv[:len(prev.conv)], prev.conv, sameMessage) {
		return nil, nil, false
	}
	more = cur.conv[len(prev.conv):]
	if prev.out == nil || len(more) == 0 {
		return more, nil, true
	}
	if more[0].Role == llm.RoleAssistant {
		if !sameMessage(more[0], *prev.out) {
			rewritten = &more[0]
		}
		return more[1:], rewritten, true
	}
	return more, nil, true
}

// describe names a message for an error.
func describe(m llm.Message) string {
	s := string(m.Role) + " message"
	if len(m.ToolCalls) > 0 {
		s += fmt.Sprintf(" calling %s", m.ToolCalls[0].Name)
	}
	if m.ToolCallID != "" {
		s += " answering " + m.ToolCallID
	}
	if m.Content != "" {
		c := m.Content
		if len(c) > 60 {
			c = c[:60] + "..."
		}
		s += " " + strconv.Quote(c)
	}
	return s
}
