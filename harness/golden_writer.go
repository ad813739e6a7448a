package harness

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/tools"
)

// directGolden writes the outcome's golden straight from its fields, byte for
// byte as yamlx.Marshal(o.Node()) does, without building nodes or running
// yaml.v3's emitter (which keeps every event of the document). It covers
// every shape an Outcome holds; ok is false only for what Marshal rejects (a
// workspace path or state key that is not valid UTF-8), so that Golden takes
// the node path and returns its error.
func (o *Outcome) directGolden() (out []byte, ok bool) {
	w := &yamlx.Writer{Buf: make([]byte, 0, 512+256*len(o.Turns))}
	textField(w, 0, "name", o.Name)
	textField(w, 0, "termination", string(o.Termination))
	if o.Error != "" {
		textField(w, 0, "error", o.Error)
	}
	w.Raw("iterations: ")
	w.Int(o.Iterations)
	w.Raw("\n")
	if len(o.ModelRetries) > 0 {
		w.Raw("model_retries:\n")
		for _, r := range o.ModelRetries {
			w.Raw("  - turn: ")
			w.Int(r.Turn)
			w.Raw("\n    attempt: ")
			w.Int(r.Attempt)
			w.Raw("\n")
			if r.Kind != "" {
				textField(w, 4, "kind", string(r.Kind))
			}
			textField(w, 4, "backoff", r.Backoff.String())
			textField(w, 4, "error", r.Error)
		}
	}
	if len(o.Turns) == 0 {
		w.Raw("turns: []\n")
	} else {
		w.Raw("turns:\n")
	}
	for i := range o.Turns {
		o.Turns[i].write(w)
	}
	if o.Final != "" {
		textField(w, 0, "final", o.Final)
	}
	o.writeWorkspace(w)
	if o.State != nil {
		w.Raw("state:")
		writeState(w, o.State, 0, false)
	}
	if w.Failed {
		return nil, false
	}
	return w.Buf, true
}

// textField writes "key: " and Text(s) on a line of its own, the key at
// column indent (a literal block's lines two further).
func textField(w *yamlx.Writer, indent int, key, s string) {
	w.Pad(indent)
	w.Raw(key)
	w.Raw(": ")
	w.Text(s, false, indent+2)
	w.EndLine()
}

func (t *TurnOutcome) write(w *yamlx.Writer) {
	w.Raw("  - turn: ")
	w.Int(t.Index)
	w.Raw("\n")
	if u := t.User; u != nil {
		if u.Name == "" {
			textField(w, 4, "user", u.Content)
		} else {
			w.Raw("    user:\n")
			textField(w, 6, "content", u.Content)
			textField(w, 6, "name", u.Name)
		}
	}
	if len(t.Delivered) > 0 {
		w.Raw("    async_results:\n")
		for _, a := range t.Delivered {
			w.Raw("      - id: ")
			w.Text(a.ID, false, 10)
			w.EndLine()
			textField(w, 8, "name", a.Name)
			textField(w, 8, "result", a.Result)
		}
	}
	if r := t.Response; r != nil && (r.Message.Content != "" || r.FinishReason != "") {
		w.Raw("    response:\n")
		if r.Message.Content != "" {
			textField(w, 6, "content", r.Message.Content)
		}
		if r.FinishReason != "" {
			textField(w, 6, "finish_reason", string(r.FinishReason))
		}
	}
	if t.Envelope != "" {
		textField(w, 4, "extracted_from", t.Envelope)
	}
	if len(t.Calls) > 0 {
		w.Raw("    calls:\n")
		for i := range t.Calls {
			t.Calls[i].write(w)
		}
	}
	if t.Diff != "" {
		textField(w, 4, "diff", t.Diff)
	}
}

// write writes the call as a sequence item at indent 6 (its fields at 8).
func (c *CallOutcome) write(w *yamlx.Writer) {
	const in = 8
	w.Raw("      - id: ")
	w.Text(c.ID, false, in+2)
	w.EndLine()
	textField(w, in, "name", c.Name)
	quotedField(w, in, "arguments", c.Arguments)
	if c.showExecuted() {
		quotedField(w, in, "executed", c.Executed)
	}
	if len(c.Repairs) > 0 {
		w.Raw("        repairs: [")
		for i, r := range c.Repairs {
			if i > 0 {
				w.Raw(", ")
			}
			w.Text(r, true, in+2)
		}
		w.Raw("]\n")
	}
	if len(c.Coercions) > 0 {
		w.Raw("        coercions:\n")
		for _, co := range c.Coercions {
			w.Raw("          - {")
			flowPair(w, "path", co.Path, false)
			flowPair(w, "from", co.From, true)
			flowPair(w, "to", co.To, true)
			w.Raw("}\n")
		}
	}
	if len(c.Retries) > 0 {
		w.Raw("        retried:\n")
		for _, r := range c.Retries {
			w.Raw("          - {")
			flowPair(w, "failure", string(r.Failure), false)
			flowPair(w, "backoff", r.Backoff.String(), true)
			w.Raw(", result: ")
			if strings.IndexByte(r.Result, '\n') >= 0 {
				w.DoubleQuoted(r.Result, true, in+4)
			} else {
				w.Text(r.Result, true, in+4)
			}
			w.Raw("}\n")
		}
	}
	if c.Memoized {
		w.Raw("        memoized: true\n")
	}
	if c.Async {
		w.Raw("        async: true\n")
	}
	if c.Failure != "" {
		textField(w, in, "failure", string(c.Failure))
	}
	textField(w, in, "result", c.Result)
	if len(c.Effects) > 0 {
		w.Raw("        effects:\n")
		for _, e := range c.Effects {
			writeEffect(w, in+2, e)
		}
	}
}

// quotedField is textField for Quoted(s).
func quotedField(w *yamlx.Writer, indent int, key, s string) {
	w.Pad(indent)
	w.Raw(key)
	w.Raw(": ")
	w.Quoted(s, false, indent+2)
	w.EndLine()
}

// flowPair writes "key: value" inside a flow mapping, after ", " unless first.
func flowPair(w *yamlx.Writer, key, value string, comma bool) {
	if comma {
		w.Raw(", ")
	}
	w.FlowKey(key)
	w.Raw(" ")
	w.Text(value, true, 0)
}

func writeEffect(w *yamlx.Writer, indent int, e tools.Effect) {
	w.Pad(indent)
	switch {
	case e.File != nil:
		w.Raw("- file: {")
		flowPair(w, "op", string(e.File.Op), false)
		flowPair(w, "path", e.File.Path, true)
		if e.File.From != "" {
			flowPair(w, "from", e.File.From, true)
		}
		w.Raw(", bytes: ")
		w.Int(int(e.File.Bytes))
		w.Raw("}\n")
	case e.Process != nil:
		w.Raw("- process: {")
		flowPair(w, "command", e.Process.Command, false)
		w.Raw(", exit_code: ")
		w.Int(e.Process.ExitCode)
		if e.Process.Background {
			w.Raw(", background: true")
		}
		if e.Process.TimedOut {
			w.Raw(", timed_out: true")
		}
		w.Raw("}\n")
	default:
		w.Raw("- {}\n")
	}
}

// writeWorkspace writes the workspace: and untouched: keys as
// workspaceNodes renders them.
func (o *Outcome) writeWorkspace(w *yamlx.Writer) {
	deleted := o.Deleted
	wroteWS := false
	ws := func(path string, content *string) {
		if !wroteWS {
			w.Raw("workspace:\n")
			wroteWS = true
		}
		w.Pad(2)
		w.Key(path, 2)
		w.Raw(" ")
		if content == nil {
			w.Raw("null")
		} else {
			w.Text(*content, false, 4)
		}
		w.EndLine()
	}
	untouched := 0
	for i := range o.Workspace {
		f := &o.Workspace[i]
		if f.Untouched {
			untouched++
			continue
		}
		for len(deleted) > 0 && deleted[0] < f.Path {
			ws(deleted[0], nil)
			deleted = deleted[1:]
		}
		ws(f.Path, &f.Content)
	}
	for _, p := range deleted {
		ws(p, nil)
	}
	if untouched == 0 {
		return
	}
	w.Raw("untouched:\n")
	var line []byte
	for _, f := range o.Workspace {
		if !f.Untouched {
			continue
		}
		line = append(line[:0], f.Path...)
		line = append(line, " ("...)
		line = strconv.AppendInt(line, int64(f.Size), 10)
		line = append(line, " bytes, sha256 "...)
		line = append(line, f.Hash...)
		line = append(line, ')')
		w.Raw("  - ")
		w.Text(string(line), false, 4)
		w.EndLine()
	}
}

// writeState writes the JSON value v as stateNode renders it, as the value
// of a key or a sequence item of the block collection at column indent. The
// cursor is after the key's ":" or the item's "-"; inline says a block
// collection starts on that line (after "-", or a complex key's ":").
func writeState(w *yamlx.Writer, v any, indent int, inline bool) {
	in := indent + 2
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			w.Raw(" {}\n")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i == 0 && inline {
				w.Raw(" ")
			} else {
				w.EndLine()
				w.Pad(in)
			}
			complex := w.Key(k, in)
			writeState(w, v[k], in, complex)
		}
	case []any:
		if len(v) == 0 {
			w.Raw(" []\n")
			return
		}
		for i, item := range v {
			if i == 0 && inline {
				w.Raw(" ")
			} else {
				w.EndLine()
				w.Pad(in)
			}
			w.Raw("-")
			writeState(w, item, in, true)
		}
	case string:
		w.Raw(" ")
		w.Text(v, false, in)
		w.EndLine()
	case bool:
		w.Raw(" ")
		w.Bool(v)
		w.Raw("\n")
	case float64:
		s, tag := stateNumber(v)
		w.Raw(" ")
		w.Number(s, tag, false, in)
		w.Raw("\n")
	default: // nil, as stateNode
		w.Raw(" null\n")
	}
}
