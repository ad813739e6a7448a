package traceimport

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Run is one agent run of a trace: the model calls of one conversation, in
// the order they were made, and the tool executions the trace recorded
// for them.
type Run struct {
	// ID names the run: the conversation's id (gen_ai.conversation.id) or
	// the trace's, followed by "-N" when it held several conversations.
	ID string
	// TraceIDs are the traces the run's spans came from, in order.
	TraceIDs []string
	// Agent is the agent's name (gen_ai.agent.name); empty when not
	// recorded.
	Agent string
	// Calls are the model calls, in order; never empty.
	Calls []*Call
	// Tools are the tool executions of the run's calls, in order; nil when
	// the trace recorded none.
	Tools []*ToolExec
	// Start and End bound the run's spans in Unix nanoseconds; 0 when the
	// trace recorded no times.
	Start, End int64
}

// Vocabulary names the vocabularies the run's calls were read from, in
// order of first use, joined by ", ".
func (r *Run) Vocabulary() string {
	var vs []string
	for _, c := range r.Calls {
		if !slices.Contains(vs, c.Vocabulary) {
			vs = append(vs, c.Vocabulary)
		}
	}
	return strings.Join(vs, ", ")
}

// RunsOptions configures Runs. A nil *RunsOptions is the zero value.
type RunsOptions struct {
	// ByTrace keeps each trace's runs apart even when their spans share a
	// gen_ai.conversation.id; false joins the runs of one conversation
	// across traces (an agent that starts a trace per user turn), in order.
	ByTrace bool
}

// node is a span with what this package made of it.
type node struct {
	sp     *Span
	parent *node
	call   *Call
	tool   *ToolExec
	agent  bool // an invoke_agent (or OpenInference AGENT) span
}

// Runs finds the agent runs of spans: the model calls under one agent
// invocation (or, without one, one trace) and of one conversation, in
// order, each conversation its own run. The model calls an agent made from
// inside a tool (an agent used as a tool) are a run of their own. A
// trace none of whose spans is a model call, a model call recorded without
// its messages (ErrNoContent), a tool execution no model call asked for, or
// model calls whose order the trace does not tell, is an error naming the
// span; no run is returned then.
func Runs(spans []*Span, opts *RunsOptions) ([]*Run, error) {
	if opts == nil {
		opts = &RunsOptions{}
	}
	nodes := make(map[string]*node, len(spans))
	var order []*node
	for _, sp := range spans {
		key := sp.TraceID + "/" + sp.SpanID
		if _, dup := nodes[key]; dup {
			return nil, refuse(sp, "the span appears twice in the trace")
		}
		n := &node{sp: sp}
		nodes[key] = n
		order = append(order, n)
	}
	var calls, tools int
	for _, n := range order {
		sp := n.sp
		if sp.ParentID != "" {
			n.parent = nodes[sp.TraceID+"/"+sp.ParentID]
		}
		var err error
		switch {
		case isGenAIModel(sp):
			n.call, err = genAICall(sp)
			calls++
		case oiKind(sp) == "LLM":
			n.call, err = openInferenceCall(sp)
			calls++
		case isGenAITool(sp):
			n.tool, err = genAITool(sp)
			tools++
		case oiKind(sp) == "TOOL":
			n.tool, err = openInferenceTool(sp)
			tools++
		case sp.str(gaOperation) == "invoke_agent" || oiKind(sp) == "AGENT":
			n.agent = true
		}
		if err != nil {
			return nil, err
		}
	}
	if calls > MaxCalls {
		return nil, &Error{File: spans[0].File, Err: ErrFormat, Problem: fmt.Sprintf("%d model calls, more than the %d one file may hold", calls, MaxCalls)}
	}
	if calls == 0 {
		file := ""
		if len(spans) > 0 {
			file = spans[0].File
		}
		return nil, &Error{File: file, Err: ErrRefused, Problem: "no span is a model call: want a GenAI inference span (gen_ai.operation.name chat, generate_content or text_completion) or an OpenInference LLM span (openinference.span.kind LLM)" + vercelHint(spans)}
	}
	// Group the calls and tools by the run that owns them.
	groups := map[string]*group{}
	var keys []string
	for _, n := range order {
		if n.call == nil && n.tool == nil {
			continue
		}
		key, id, agent := ownerKey(n, opts.ByTrace)
		g := groups[key]
		if g == nil {
			g = &group{key: key, id: id, agent: agent}
			groups[key] = g
			keys = append(keys, key)
		}
		if n.call != nil {
			g.calls = append(g.calls, n.call)
		} else {
			g.tools = append(g.tools, n.tool)
		}
	}
	var runs []*Run
	for _, k := range keys {
		g := groups[k]
		if len(g.calls) == 0 {
			return nil, refuse(g.tools[0].Span, "a tool execution (%s) with no model call in its run that asked for it", g.tools[0].Name)
		}
		rs, err := g.runs()
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

// vercelHint says what the spans are when they are the Vercel AI SDK's.
func vercelHint(spans []*Span) string {
	for _, sp := range spans {
		if strings.HasPrefix(sp.Name, "ai.") && sp.Attrs["ai.operationId"] != nil {
			return "; these are the Vercel AI SDK's ai.* spans, which are not a vocabulary this importer reads"
		}
	}
	return ""
}

// ownerKey returns the key of the run n belongs to, the run's id and its
// agent's name. The owner is the nearest agent or tool span above n: an
// agent's calls are its run's; a call made inside a tool without an agent
// of its own belongs to that tool. The key is the owner's conversation id
// (unless byTrace, or the owner runs inside a tool), else its trace and
// span; the id is the conversation's or the trace's (with the owner's span
// when it runs inside a tool).
func ownerKey(n *node, byTrace bool) (key, id, agent string) {
	agent = n.sp.str("gen_ai.agent.name")
	owner := n.parent
	for owner != nil && !owner.agent && owner.tool == nil {
		owner = owner.parent
	}
	if owner == nil {
		conv := n.sp.str("gen_ai.conversation.id")
		if conv != "" && !byTrace {
			return "conversation " + conv, conv, agent
		}
		return "trace " + n.sp.TraceID, n.sp.TraceID, agent
	}
	if a := owner.sp.str("gen_ai.agent.name"); a != "" {
		agent = a
	}
	nested := false
	for p := owner.parent; p != nil; p = p.parent {
		if p.tool != nil {
			nested = true
			break
		}
	}
	if conv := owner.sp.str("gen_ai.conversation.id"); conv != "" && !byTrace && !nested && owner.agent {
		return "conversation " + conv + " agent " + agent, conv, agent
	}
	id = owner.sp.TraceID
	if nested {
		id += "/" + owner.sp.SpanID
	}
	return "span " + owner.sp.TraceID + "/" + owner.sp.SpanID, id, agent
}

// group is the calls and tools of one owner, before they are ordered and
// split into conversations.
type group struct {
	key   string
	id    string
	agent string
	calls []*Call
	tools []*ToolExec
}

// runs orders the group's calls, splits them into conversations (a call
// goes on the conversation whose last call's input its own input extends)
// and gives each its tool executions.
func (g *group) runs() ([]*Run, error) {
	if err := orderCalls(g.calls); err != nil {
		return nil, err
	}
	var threads [][]*Call
	for _, c := range g.calls {
		best := -1
		for i, t := range threads {
			if last := t[len(t)-1]; extends(c.Input, last.Input) || last.Output == nil && slices.EqualFunc(c.Input, last.Input, sameMessage) {
				best = i // the latest conversation it extends
			}
		}
		if best < 0 {
			threads = append(threads, []*Call{c})
			continue
		}
		threads[best] = append(threads[best], c)
	}
	id := g.id
	runs := make([]*Run, len(threads))
	for i, t := range threads {
		r := &Run{ID: id, Agent: g.agent, Calls: t}
		if len(threads) > 1 {
			r.ID += "-" + strconv.Itoa(i+1)
		}
		for _, c := range t {
			if !slices.Contains(r.TraceIDs, c.Span.TraceID) {
				r.TraceIDs = append(r.TraceIDs, c.Span.TraceID)
			}
			if c.Span.Start != 0 && (r.Start == 0 || c.Span.Start < r.Start) {
				r.Start = c.Span.Start
			}
			r.End = max(r.End, c.Span.End)
		}
		runs[i] = r
	}
	// A call that failed and was made again with the same input goes on
	// the same conversation (above): the loop retried it.
	// Each tool execution goes to the run of the call that asked for it:
	// by the call's id, else the next call of that name in order.
	used := map[*Run]map[string]int{}
	for _, t := range g.tools {
		r := runOfTool(runs, t, used)
		if r == nil {
			return nil, refuse(t.Span, "a result of tool %s that no model call asked for (no call in the trace's model responses has its id %q or, in order, its name)", t.Name, t.ID)
		}
		r.Tools = append(r.Tools, t)
	}
	return runs, nil
}

// runOfTool finds the run whose calls asked for t.
func runOfTool(runs []*Run, t *ToolExec, used map[*Run]map[string]int) *Run {
	if t.ID != "" {
		for _, r := range runs {
			for _, c := range r.Calls {
				if c.Output != nil && slices.ContainsFunc(c.Output.ToolCalls, func(tc llm.ToolCall) bool { return tc.ID == t.ID }) {
					return r
				}
			}
		}
	}
	for _, r := range runs {
		n := 0
		for _, c := range r.Calls {
			if c.Output == nil {
				continue
			}
			for _, tc := range c.Output.ToolCalls {
				if tc.Name == t.Name {
					n++
				}
			}
		}
		if used[r] == nil {
			used[r] = map[string]int{}
		}
		if used[r][t.Name] < n {
			used[r][t.Name]++
			return r
		}
	}
	return nil
}

// orderCalls sorts calls by start time. Calls without times (a span tree
// without them) keep the file's order; two calls that started at the same
// time, or a call without a time beside calls with one, cannot be ordered.
func orderCalls(calls []*Call) error {
	timed := 0
	for _, c := range calls {
		if c.Span.Start != 0 {
			timed++
		}
	}
	if timed == 0 {
		slices.SortStableFunc(calls, func(a, b *Call) int { return cmp.Compare(a.Span.Seq, b.Span.Seq) })
		return nil
	}
	for _, c := range calls {
		if c.Span.Start == 0 {
			return refuse(c.Span, "the model call has no start time (startTimeUnixNano) while other calls of its run have one, so the order of the calls is not known")
		}
	}
	slices.SortStableFunc(calls, func(a, b *Call) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
	for i := 1; i < len(calls); i++ {
		if a, b := calls[i-1], calls[i]; a.Span.Start == b.Span.Start {
			return refuse(b.Span, "the model call started at the same time as %s (%d ns), so the order of the calls is not known", spanRef(a.Span), a.Span.Start)
		}
	}
	return nil
}

// extends reports whether conversation in starts with prev: every message
// of prev again, in order, the ids of calls and results aside (some
// instrumentations record them, some do not).
func extends(in, prev []llm.Message) bool {
	return len(in) > len(prev) && slices.EqualFunc(in[:len(prev)], prev, sameMessage)
}

// sameMessage reports whether a and b are the same message, ids aside.
func sameMessage(a, b llm.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && (a.Name == b.Name || a.Name == "" || b.Name == "") &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y llm.ToolCall) bool { return x.Name == y.Name && x.Arguments == y.Arguments })
}

// String names the run for messages: its id, agent and number of calls.
func (r *Run) String() string {
	s := r.ID
	if r.Agent != "" {
		s += " (agent " + r.Agent + ")"
	}
	return s + ": " + plural(len(r.Calls), "model call")
}
