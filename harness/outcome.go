package harness

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/tools"
)

// Outcome is the normalised result of running a scenario: what its golden file
// holds. Nothing in it depends on time, scheduling, the machine or the temp
// directory.
type Outcome struct {
	Name string
	// Termination is why the run ended; Error the termination's error text.
	Termination agent.Reason
	Error       string
	// Iterations counts the model calls made.
	Iterations int
	// ModelRetries are the failed model-call attempts that were retried, in
	// order; nil when none.
	ModelRetries []ModelRetryOutcome
	Turns        []TurnOutcome
	// Final is the last assistant text.
	Final string
	// Workspace is the end state, by path.
	Workspace []FileState
	// State is the end state of the worlds the run's tools shared (see
	// fixtures.World), by key, as plain JSON values (objects are
	// map[string]any, numbers float64). Nil when no tool shares a world; the
	// golden then has no state: key.
	State map[string]any
	// Run is the loop's full record, for matchers and reports; not in the golden.
	Run *agent.RunResult `yaml:"-"`
	// Diverged is set when a recorded request did not match; the scenario
	// fails whatever its golden says.
	Diverged bool `yaml:"-"`
	// Unused says what the run left of its recordings: tape entries never
	// served (replay), user turns never spoken (live), recorded stand-ins'
	// answers never given. A replay fails with each whatever its golden
	// says; nil means nothing was left.
	Unused []string `yaml:"-"`
}

// Transcript returns the conversation as tape entries, in the order it
// happened: each user turn, then each model response that followed, as
// received. It is the shape a recording writes into a scenario's tape (the
// model's responses between the user turns); a model call that failed has no
// entry.
func (o *Outcome) Transcript() []replay.Entry {
	var out []replay.Entry
	for _, t := range o.Turns {
		if t.User != nil {
			u := t.User.Clone()
			out = append(out, replay.Entry{User: &u})
		}
		if t.Response != nil {
			r := *t.Response
			r.Message = t.Response.Message.Clone()
			out = append(out, replay.Entry{Response: &r})
		}
	}
	return out
}

// TurnOutcome is one model call and what its calls did.
type TurnOutcome struct {
	Index int
	// User is the user message the conversation went on with just before
	// this turn's request; nil when the model is answering its own tool
	// results (or the input). A last turn with User set and no Response is a
	// user turn whose model call failed.
	User *llm.Message
	// Delivered are asynchronous results delivered before this turn's request.
	Delivered []AsyncOutcome
	Response  *llm.Response
	// Envelope names the text envelope the calls were extracted from, if any.
	Envelope string
	Calls    []CallOutcome
	// Diff is the turn's change to the workspace as unified diffs.
	Diff string
}

// AsyncOutcome is an asynchronous call's completion.
type AsyncOutcome struct {
	ID, Name, Result string
}

// CallOutcome is one call of a turn.
type CallOutcome struct {
	ID   string
	Name string
	// Arguments as received; Executed as executed (canonical JSON), empty when
	// the call never ran.
	Arguments string
	Executed  string
	Repairs   []string
	Coercions []tools.Coercion
	Attempts  int
	Memoized  bool
	Async     bool
	Failure   tools.FailureKind
	Result    string
	Effects   []tools.Effect
}

// FileState is one file of the workspace at the end of the run.
type FileState struct {
	Path    string
	Content string
}

// Node returns the canonical YAML of the outcome: a fixed key order, literal
// blocks for multi-line text, empty fields left out.
func (o *Outcome) Node() *yaml.Node {
	m := yamlx.Map()
	yamlx.Add(m, "name", yamlx.Text(o.Name))
	yamlx.Add(m, "termination", yamlx.Text(string(o.Termination)))
	if o.Error != "" {
		yamlx.Add(m, "error", yamlx.Text(o.Error))
	}
	yamlx.Add(m, "iterations", yamlx.Int(o.Iterations))
	if len(o.ModelRetries) > 0 {
		seq := yamlx.Seq()
		for _, r := range o.ModelRetries {
			seq.Content = append(seq.Content, r.node())
		}
		yamlx.Add(m, "model_retries", seq)
	}
	turns := yamlx.Seq()
	for _, t := range o.Turns {
		turns.Content = append(turns.Content, t.node())
	}
	yamlx.Add(m, "turns", turns)
	yamlx.Add(m, "final", yamlx.Text(o.Final))
	ws := yamlx.Map()
	for _, f := range o.Workspace {
		yamlx.Add(ws, f.Path, yamlx.Text(f.Content))
	}
	yamlx.Add(m, "workspace", ws)
	if o.State != nil {
		yamlx.Add(m, "state", stateNode(o.State))
	}
	return m
}

// Golden returns the outcome's golden file content.
func (o *Outcome) Golden() ([]byte, error) {
	return yamlx.Marshal(o.Node())
}

func (t *TurnOutcome) node() *yaml.Node {
	m := yamlx.Map()
	yamlx.Add(m, "turn", yamlx.Int(t.Index))
	if t.User != nil {
		if t.User.Name == "" {
			yamlx.Add(m, "user", yamlx.Text(t.User.Content))
		} else {
			u := yamlx.Map()
			yamlx.Add(u, "content", yamlx.Text(t.User.Content))
			yamlx.Add(u, "name", yamlx.Text(t.User.Name))
			yamlx.Add(m, "user", u)
		}
	}
	if len(t.Delivered) > 0 {
		seq := yamlx.Seq()
		for _, a := range t.Delivered {
			am := yamlx.Map()
			yamlx.Add(am, "id", yamlx.Text(a.ID))
			yamlx.Add(am, "name", yamlx.Text(a.Name))
			yamlx.Add(am, "result", yamlx.Text(a.Result))
			seq.Content = append(seq.Content, am)
		}
		yamlx.Add(m, "async_results", seq)
	}
	if t.Response != nil {
		r := yamlx.Map()
		if t.Response.Message.Content != "" {
			yamlx.Add(r, "content", yamlx.Text(t.Response.Message.Content))
		}
		if t.Response.FinishReason != "" {
			yamlx.Add(r, "finish_reason", yamlx.Text(string(t.Response.FinishReason)))
		}
		yamlx.Add(m, "response", r)
	}
	if t.Envelope != "" {
		yamlx.Add(m, "extracted_from", yamlx.Text(t.Envelope))
	}
	if len(t.Calls) > 0 {
		calls := yamlx.Seq()
		for _, c := range t.Calls {
			calls.Content = append(calls.Content, c.node())
		}
		yamlx.Add(m, "calls", calls)
	}
	if t.Diff != "" {
		yamlx.Add(m, "diff", yamlx.Text(t.Diff))
	}
	return m
}

func (c *CallOutcome) node() *yaml.Node {
	m := yamlx.Map()
	yamlx.Add(m, "id", yamlx.Text(c.ID))
	yamlx.Add(m, "name", yamlx.Text(c.Name))
	yamlx.Add(m, "arguments", yamlx.Quoted(c.Arguments))
	if c.Executed != "" && c.Executed != c.Arguments {
		yamlx.Add(m, "executed", yamlx.Quoted(c.Executed))
	}
	if len(c.Repairs) > 0 {
		yamlx.Add(m, "repairs", textSeq(c.Repairs))
	}
	if len(c.Coercions) > 0 {
		seq := yamlx.Seq()
		for _, co := range c.Coercions {
			cm := yamlx.Map()
			cm.Style = yaml.FlowStyle
			yamlx.Add(cm, "path", yamlx.Text(co.Path))
			yamlx.Add(cm, "from", yamlx.Text(co.From))
			yamlx.Add(cm, "to", yamlx.Text(co.To))
			seq.Content = append(seq.Content, cm)
		}
		yamlx.Add(m, "coercions", seq)
	}
	if c.Attempts > 1 {
		yamlx.Add(m, "attempts", yamlx.Int(c.Attempts))
	}
	if c.Memoized {
		yamlx.Add(m, "memoized", yamlx.Bool(true))
	}
	if c.Async {
		yamlx.Add(m, "async", yamlx.Bool(true))
	}
	if c.Failure != "" {
		yamlx.Add(m, "failure", yamlx.Text(string(c.Failure)))
	}
	yamlx.Add(m, "result", yamlx.Text(c.Result))
	if len(c.Effects) > 0 {
		seq := yamlx.Seq()
		for _, e := range c.Effects {
			seq.Content = append(seq.Content, effectNode(e))
		}
		yamlx.Add(m, "effects", seq)
	}
	return m
}

func effectNode(e tools.Effect) *yaml.Node {
	inner := yamlx.Map()
	inner.Style = yaml.FlowStyle
	m := yamlx.Map()
	switch {
	case e.File != nil:
		yamlx.Add(inner, "op", yamlx.Text(string(e.File.Op)))
		yamlx.Add(inner, "path", yamlx.Text(e.File.Path))
		if e.File.From != "" {
			yamlx.Add(inner, "from", yamlx.Text(e.File.From))
		}
		yamlx.Add(inner, "bytes", yamlx.Int(int(e.File.Bytes)))
		yamlx.Add(m, "file", inner)
	case e.Process != nil:
		yamlx.Add(inner, "command", yamlx.Text(e.Process.Command))
		yamlx.Add(inner, "exit_code", yamlx.Int(e.Process.ExitCode))
		if e.Process.Background {
			yamlx.Add(inner, "background", yamlx.Bool(true))
		}
		if e.Process.TimedOut {
			yamlx.Add(inner, "timed_out", yamlx.Bool(true))
		}
		yamlx.Add(m, "process", inner)
	}
	return m
}

func textSeq(items []string) *yaml.Node {
	seq := yamlx.FlowSeq()
	for _, s := range items {
		seq.Content = append(seq.Content, yamlx.Text(s))
	}
	return seq
}

// displayContent is a file's content for the golden: text as is, binary as a
// placeholder with its size.
func displayContent(b []byte) string {
	if utf8.Valid(b) && !strings.ContainsRune(string(b), 0) {
		return string(b)
	}
	return "<binary, " + strconv.Itoa(len(b)) + " bytes>"
}
