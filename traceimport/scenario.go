package traceimport

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// ScenarioOptions configures Scenario. A nil *ScenarioOptions is the zero
// value: a native scenario, redacted by replay's default policy.
type ScenarioOptions struct {
	// Redactor redacts every text the scenario holds, as a recording is
	// redacted; nil means redact.Default(), the default policy.
	Redactor *redact.Redactor
	// AgentGo makes the scenario bridged, run by the Go agent registered
	// under this name (setup.agent.go); empty with AgentCommand nil means
	// native: tapeloop's loop with a recorded stand-in for each tool.
	AgentGo string
	// AgentCommand makes the scenario bridged, run by this program
	// (setup.agent.command); nil means not. At most one of AgentGo and
	// AgentCommand is set.
	AgentCommand []string
	// Source names the trace for the scenario's description; empty means
	// "a trace".
	Source string
}

// bridged reports whether the scenario is run by the user's agent.
func (o *ScenarioOptions) bridged() bool { return o.AgentGo != "" || len(o.AgentCommand) > 0 }

// Scenario returns the scenario document of run r, without an expect
// block: setup (a recorded stand-in per tool for a native scenario, the
// agent for a bridged one), input (the conversation of the first call),
// offered and the tape, built by replay.Recorder from the recorded calls
// as a recording is, so that every request is pinned and every text
// redacted. Between the calls come the tool results the agent sent (for a
// native scenario, each stand-in answers with them) and the user's turns.
//
// A run tapeloop's loop could not have made is refused for a native
// scenario with an error naming the span (bridged, the agent's own code
// runs, and only the requests are compared): a history the agent
// rewrote, a result missing for a call, a user message between a call and
// its result.
func Scenario(r *Run, opts *ScenarioOptions) (*yaml.Node, error) {
	if opts == nil {
		opts = &ScenarioOptions{}
	}
	red := opts.Redactor
	if red == nil {
		red = redact.Default()
	}
	b := &builder{run: r, opts: opts, red: red, steps: steps(r)}
	if err := b.plan(); err != nil {
		return nil, err
	}
	tp, err := b.record()
	if err != nil {
		return nil, err
	}
	return b.document(tp)
}

// builder builds one run's scenario.
type builder struct {
	run   *Run
	opts  *ScenarioOptions
	red   *redact.Redactor
	steps []step
	// users[i] is the user's turn before step i; nil when none.
	users []*llm.Message
	// results are the tool results, by call id, for the stand-ins (native).
	results map[string]llm.Message
	// retries is how often the loop must try one model call (native): 1
	// unless the agent retried a failed call.
	retries int
	// terminates names the tools whose call ended the run (native).
	terminates []string
}

// plan works out, between each step and the next, the tool results and
// the user's turn, and checks (native) that tapeloop's loop would send
// what the agent sent.
func (b *builder) plan() error {
	b.users = make([]*llm.Message, len(b.steps))
	b.results = map[string]llm.Message{}
	b.retries = 1
	run := 1
	for i := 1; i < len(b.steps); i++ {
		prev, cur := b.steps[i-1], b.steps[i]
		more, rewritten, ok := added(prev, cur)
		if !ok {
			return refuse(cur.call.Span, "the model call's input does not start with the conversation of the call before it, %s", spanRef(prev.call.Span))
		}
		if rewritten != nil && !b.opts.bridged() {
			return refuse(cur.call.Span, "the agent passed the model's answer of %s on changed (as a %s), which tapeloop's loop never does; import it bridged (--agent or --command) to replay the agent itself", spanRef(prev.call.Span), describe(*rewritten))
		}
		if prev.out == nil {
			// A failed call: the next one is the loop trying it again.
			if len(more) > 0 && !b.opts.bridged() {
				return refuse(cur.call.Span, "the call after the failed %s sent more than it (%s); tapeloop's loop tries a failed call again unchanged", spanRef(prev.call.Span), describe(more[0]))
			}
			if !b.opts.bridged() && !errorKind(prev.call).Retryable() {
				return refuse(prev.call.Span, "the agent tried the model again after this call failed with %q, which tapeloop's loop does not retry", prev.call.Err)
			}
			run++
			b.retries = max(b.retries, run)
			continue
		}
		run = 1
		calls := prev.out.ToolCalls
		var results []llm.Message
		for len(more) > 0 && more[0].Role == llm.RoleTool {
			results = append(results, more[0])
			more = more[1:]
		}
		if len(calls) > 0 && !b.opts.bridged() {
			if err := b.matchResults(prev, cur, results); err != nil {
				return err
			}
		}
		switch {
		case len(more) == 0:
		case len(more) == 1 && more[0].Role == llm.RoleUser && (len(calls) == 0 || b.opts.bridged()):
			u := more[0]
			b.users[i] = &u
		case !b.opts.bridged():
			return refuse(cur.call.Span, "the agent added %s after %s, which tapeloop's loop would not send (it adds the answer's tool results, or one user turn after a final answer)", describe(more[0]), spanRef(prev.call.Span))
		default:
			return refuse(cur.call.Span, "the agent added %s after %s: a tape gives the agent one user turn after an answer", describe(more[0]), spanRef(prev.call.Span))
		}
	}
	if b.retries > 100 {
		return refuse(b.steps[len(b.steps)-1].call.Span, "the agent tried one model call %d times, more than tapeloop's loop may (100)", b.retries)
	}
	if !b.opts.bridged() {
		return b.lastCalls()
	}
	return nil
}

// matchResults checks that results answer each of prev's calls once, and
// keeps them for the stand-ins.
func (b *builder) matchResults(prev, cur step, results []llm.Message) error {
	calls := prev.out.ToolCalls
	for _, tc := range calls {
		k := slices.IndexFunc(results, func(m llm.Message) bool { return m.ToolCallID == tc.ID })
		if k < 0 {
			return refuse(cur.call.Span, "the model's call %s (%s) of %s has no result in the input that follows it", tc.ID, tc.Name, spanRef(prev.call.Span))
		}
		b.results[tc.ID] = results[k]
		results = slices.Delete(results, k, k+1)
	}
	if len(results) > 0 {
		return refuse(cur.call.Span, "a tool result (%s) for no call of %s", describe(results[0]), spanRef(prev.call.Span))
	}
	return nil
}

// lastCalls handles a run that ends with tool calls (native): their
// results come from the tool spans, and the tools must have ended the run
// (a hand-off, a final_answer tool), so their stand-ins terminate it.
func (b *builder) lastCalls() error {
	last := b.steps[len(b.steps)-1]
	if last.out == nil || len(last.out.ToolCalls) == 0 {
		return nil
	}
	used := map[*ToolExec]bool{}
	for _, tc := range last.out.ToolCalls {
		t := b.toolExec(tc, used)
		if t == nil || t.Result == nil && !t.Failed {
			return refuse(last.call.Span, "the run ends with the model's call %s (%s), and the trace holds no result of it: tapeloop's loop would run the tool and ask the model again", tc.ID, tc.Name)
		}
		b.results[tc.ID] = llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: textOf(t.Result), IsError: t.Failed}
		// The tool ended the run: it may be called nowhere else.
		for _, st := range b.steps[:len(b.steps)-1] {
			if st.out != nil && slices.ContainsFunc(st.out.ToolCalls, func(c llm.ToolCall) bool { return c.Name == tc.Name }) {
				return refuse(last.call.Span, "the run ends with the model's call %s (%s), though earlier calls of %s did not end it: tapeloop's loop would ask the model again", tc.ID, tc.Name, tc.Name)
			}
		}
		if !slices.Contains(b.terminates, tc.Name) {
			b.terminates = append(b.terminates, tc.Name)
		}
	}
	return nil
}

// toolExec returns the tool span of call tc: by id, else the first unused
// one of its tool.
func (b *builder) toolExec(tc llm.ToolCall, used map[*ToolExec]bool) *ToolExec {
	for _, t := range b.run.Tools {
		if !used[t] && t.ID != "" && t.ID == tc.ID {
			used[t] = true
			return t
		}
	}
	for _, t := range b.run.Tools {
		if !used[t] && t.Name == tc.Name {
			used[t] = true
			return t
		}
	}
	return nil
}

// request is what step i sent, as the tape's requests compare it.
func (b *builder) request(i int) *llm.Request {
	st := b.steps[i]
	req := &llm.Request{}
	for _, s := range st.system {
		req.Messages = append(req.Messages, llm.SystemMessage(s))
	}
	req.Messages = append(req.Messages, st.conv...)
	if st.call.Tools != nil {
		req.Tools = st.call.Tools
	} else if !b.opts.bridged() {
		req.Tools = b.standInDefs()
	}
	return req
}

// record replays the steps through replay.Recorder, so that the tape's
// offered block and requests are what a recording of the run would hold,
// redacted; the user's turns go between them.
func (b *builder) record() (*tape.Tape, error) {
	i := 0
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		st := b.steps[i]
		if st.out == nil {
			kind := errorKind(st.call)
			return nil, &llm.ProviderError{Kind: kind, StatusCode: errorStatus(st.call), Message: st.call.Err}
		}
		return &llm.Response{Message: *st.out, FinishReason: llm.FinishReason(st.call.FinishReason), Usage: st.call.Usage}, nil
	})
	rec := replay.NewRecorder(model, &replay.RecorderOptions{Redactor: b.red})
	var entries []tape.Entry
	for i = range b.steps {
		if u := b.users[i]; u != nil {
			m := u.Clone()
			b.red.RedactMessage(&m)
			entries = append(entries, tape.Entry{User: &m})
		}
		_, _ = rec.Generate(context.Background(), b.request(i))
		tp := rec.Tape()
		entries = append(entries, tp.Entries[len(tp.Entries)-1])
	}
	tp := rec.Tape()
	tp.Entries = entries
	if tp.Offered != nil && !b.toolsKnown() {
		tp.Offered.Tools = nil // not recorded: not compared
		for j := range tp.Entries {
			if rq := tp.Entries[j].Request; rq != nil && rq.Offered != nil {
				rq.Offered.Tools = nil
			}
		}
	}
	return tp, nil
}

// toolsKnown reports whether every call recorded the tools it offered.
func (b *builder) toolsKnown() bool {
	for _, st := range b.steps {
		if st.call.Tools == nil {
			return false
		}
	}
	return true
}

// errorKind classifies a failed call by its error type: an HTTP status,
// or a gRPC code name.
func errorKind(c *Call) llm.ErrorKind {
	if s := errorStatus(c); s != 0 {
		return llm.KindForStatus(s, c.Err)
	}
	switch strings.ToUpper(c.Span.str("error.type")) {
	case "RESOURCE_EXHAUSTED", "RATELIMITERROR":
		return llm.ErrRateLimited
	case "UNAVAILABLE", "INTERNAL", "INTERNALSERVERERROR", "APICONNECTIONERROR":
		return llm.ErrOverloaded
	case "DEADLINE_EXCEEDED", "TIMEOUT", "APITIMEOUTERROR":
		return llm.ErrTimeout
	case "UNAUTHENTICATED", "PERMISSION_DENIED", "AUTHENTICATIONERROR":
		return llm.ErrAuth
	}
	return llm.ErrBadRequest
}

// errorStatus is the HTTP status a failed call's error type names; 0
// when it names none.
func errorStatus(c *Call) int {
	n, err := strconv.Atoi(c.Span.str("error.type"))
	if err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

// document assembles the scenario document.
func (b *builder) document(tp *tape.Tape) (*yaml.Node, error) {
	root := yamlx.Map()
	yamlx.Add(root, "format", yamlx.Text(scenario.Format))
	yamlx.Add(root, "description", yamlx.Text(b.red.Redact(b.description())))
	setup := yamlx.Map()
	switch {
	case b.opts.AgentGo != "":
		yamlx.Add(setup, "agent", yamlx.Add(yamlx.Map(), "go", yamlx.Text(b.opts.AgentGo)))
	case len(b.opts.AgentCommand) > 0:
		cmd := yamlx.FlowSeq()
		for _, a := range b.opts.AgentCommand {
			cmd.Content = append(cmd.Content, yamlx.Text(a))
		}
		yamlx.Add(setup, "agent", yamlx.Add(yamlx.Map(), "command", cmd))
	default:
		tools, err := b.standInNodes()
		if err != nil {
			return nil, err
		}
		if len(tools.Content) > 0 {
			yamlx.Add(setup, "tools", tools)
		}
		if b.retries > 1 {
			loop := yamlx.Map()
			yamlx.Add(loop, "model_retry", yamlx.Add(yamlx.Map(), "attempts", yamlx.Int(b.retries)))
			yamlx.Add(setup, "loop", loop)
		}
	}
	if len(setup.Content) > 0 {
		yamlx.Add(root, "setup", setup)
	}
	input, err := b.input()
	if err != nil {
		return nil, err
	}
	yamlx.Add(root, "input", input)
	if tp.Offered != nil {
		yamlx.Add(root, "offered", tape.EncodeOffered(tp.Offered))
	}
	entries, err := tape.EncodeEntries(tp.Entries)
	if err != nil {
		return nil, err
	}
	yamlx.Add(root, "tape", entries)
	return root, nil
}

// description says where the scenario came from.
func (b *builder) description() string {
	src := b.opts.Source
	if src == "" {
		src = "a trace"
	}
	s := "Imported from " + src + ": run " + b.run.ID
	if b.run.Agent != "" {
		s += " of agent " + b.run.Agent
	}
	s += ", " + plural(len(b.run.Calls), "model call") + " (" + b.run.Vocabulary()
	if c := b.run.Calls[0]; c.Model != "" {
		s += "; model " + c.Model
		if c.Provider != "" {
			s += " of " + c.Provider
		}
	}
	return s + ")."
}

// input is the conversation of the first call: for a native scenario with
// its system prompts first (tapeloop's loop sends them), for a bridged one
// without (the agent sends its own).
func (b *builder) input() (*yaml.Node, error) {
	first := b.steps[0]
	var ms []llm.Message
	if !b.opts.bridged() {
		for _, s := range first.system {
			ms = append(ms, llm.SystemMessage(s))
		}
	}
	for _, m := range first.conv {
		m = m.Clone()
		b.red.RedactMessage(&m)
		ms = append(ms, m)
	}
	for i := range ms {
		if ms[i].Role == llm.RoleSystem {
			ms[i].Content = b.red.Redact(ms[i].Content)
		}
	}
	n, err := tape.EncodeRequest(&tape.RequestSummary{Messages: ms})
	if err != nil {
		return nil, err
	}
	seq := n.Content[1]
	if len(ms) == 0 {
		seq = yamlx.FlowSeq()
	}
	return seq, nil
}

// IsRefusal reports whether err is a trace this package refuses (no
// content, or a run it cannot import) rather than a file it cannot read.
func IsRefusal(err error) bool {
	return errors.Is(err, ErrRefused) || errors.Is(err, ErrNoContent)
}

// plural returns "1 model call" or "N model calls".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
