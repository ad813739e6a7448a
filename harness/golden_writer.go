package harness

import (
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/tools"
)

// directGolden writes the outcome's golden straight from its fields, byte for
// byte as yamlx.Marshal(o.Node()) does, without building nodes or running
// yaml.v3's emitter (which keeps every event of the document). ok is false
// for what it does not write (model retries, user turns, state, and scalars
// yamlx.Writer does not cover); Golden then takes the node path.
func (o *Outcome) directGolden() (out []byte, ok bool) {
	if len(o.ModelRetries) > 0 || o.State != nil {
		return nil, false
	}
	w := &yamlx.Writer{Buf: make([]byte, 0, 512+256*len(o.Turns))}
	field(w, 0, "name")
	textField(w, 0, o.Name)
	field(w, 0, "termination")
	textField(w, 0, string(o.Termination))
	if o.Error != "" {
		field(w, 0, "error")
		textField(w, 0, o.Error)
	}
	field(w, 0, "iterations")
	w.Raw(" ")
	w.Int(o.Iterations)
	w.Raw("\n")
	w.Raw("turns:")
	if len(o.Turns) == 0 {
		w.Raw(" []\n")
	} else {
		w.Raw("\n")
	}
	for i := range o.Turns {
		if !o.Turns[i].write(w) {
			return nil, false
		}
	}
	if o.Final != "" {
		field(w, 0, "final")
		textField(w, 0, o.Final)
	}
	o.writeWorkspace(w)
	if w.Failed {
		return nil, false
	}
	return w.Buf, true
}

// field starts "key:" at indent; the value follows (text, or a newline and
// a nested block).
func field(w *yamlx.Writer, indent int, key string) {
	w.Pad(indent)
	w.Key(key, false)
}

// textField finishes a block field with Text(s): " value\n", or a literal block
// indented under the key at indent.
func textField(w *yamlx.Writer, indent int, s string) {
	w.Raw(" ")
	if strings.IndexByte(s, '\n') >= 0 {
		w.Literal(s, indent+2)
	} else {
		w.Text(s, false)
	}
	w.Raw("\n")
}

// item starts a sequence item at indent: "- " and the first key of its map.
func item(w *yamlx.Writer, indent int, key string) {
	w.Pad(indent)
	w.Raw("- ")
	w.Key(key, false)
}

func (t *TurnOutcome) write(w *yamlx.Writer) bool {
	if t.User != nil {
		return false
	}
	item(w, 2, "turn")
	w.Raw(" ")
	w.Int(t.Index)
	w.Raw("\n")
	if len(t.Delivered) > 0 {
		field(w, 4, "async_results")
		w.Raw("\n")
		for _, a := range t.Delivered {
			item(w, 6, "id")
			textField(w, 8, a.ID)
			field(w, 8, "name")
			textField(w, 8, a.Name)
			field(w, 8, "result")
			textField(w, 8, a.Result)
		}
	}
	if r := t.Response; r != nil && (r.Message.Content != "" || r.FinishReason != "") {
		field(w, 4, "response")
		w.Raw("\n")
		if r.Message.Content != "" {
			field(w, 6, "content")
			textField(w, 6, r.Message.Content)
		}
		if r.FinishReason != "" {
			field(w, 6, "finish_reason")
			textField(w, 6, string(r.FinishReason))
		}
	}
	if t.Envelope != "" {
		field(w, 4, "extracted_from")
		textField(w, 4, t.Envelope)
	}
	if len(t.Calls) > 0 {
		field(w, 4, "calls")
		w.Raw("\n")
		for i := range t.Calls {
			t.Calls[i].write(w)
		}
	}
	if t.Diff != "" {
		field(w, 4, "diff")
		textField(w, 4, t.Diff)
	}
	return !w.Failed
}

// write writes the call as a sequence item at indent 6 (its fields at 8).
func (c *CallOutcome) write(w *yamlx.Writer) {
	const in = 8
	item(w, in-2, "id")
	textField(w, in, c.ID)
	field(w, in, "name")
	textField(w, in, c.Name)
	field(w, in, "arguments")
	quoted(w, c.Arguments)
	if c.showExecuted() {
		field(w, in, "executed")
		quoted(w, c.Executed)
	}
	if len(c.Repairs) > 0 {
		field(w, in, "repairs")
		w.Raw(" [")
		for i, r := range c.Repairs {
			if i > 0 {
				w.Raw(", ")
			}
			flowText(w, r)
		}
		w.Raw("]\n")
	}
	if len(c.Coercions) > 0 {
		field(w, in, "coercions")
		w.Raw("\n")
		for _, co := range c.Coercions {
			w.Pad(in + 2)
			w.Raw("- {")
			flowPair(w, "path", co.Path, false)
			flowPair(w, "from", co.From, true)
			flowPair(w, "to", co.To, true)
			w.Raw("}\n")
		}
	}
	if len(c.Retries) > 0 {
		field(w, in, "retried")
		w.Raw("\n")
		for _, r := range c.Retries {
			w.Pad(in + 2)
			w.Raw("- {")
			flowPair(w, "failure", string(r.Failure), false)
			flowPair(w, "backoff", r.Backoff.String(), true)
			flowPair(w, "result", r.Result, true)
			w.Raw("}\n")
		}
	}
	if c.Memoized {
		field(w, in, "memoized")
		w.Raw(" true\n")
	}
	if c.Async {
		field(w, in, "async")
		w.Raw(" true\n")
	}
	if c.Failure != "" {
		field(w, in, "failure")
		textField(w, in, string(c.Failure))
	}
	field(w, in, "result")
	textField(w, in, c.Result)
	if len(c.Effects) > 0 {
		field(w, in, "effects")
		w.Raw("\n")
		for _, e := range c.Effects {
			writeEffect(w, in+2, e)
		}
	}
}

// quoted finishes a block field with Quoted(s) (always on one line: text
// with a line break is left to the node path).
func quoted(w *yamlx.Writer, s string) {
	w.Raw(" ")
	w.Quoted(s, false)
	w.Raw("\n")
}

// flowText writes Text(s) inside a flow collection.
func flowText(w *yamlx.Writer, s string) { w.Text(s, true) }

// flowPair writes "key: value" inside a flow mapping, after ", " unless first.
func flowPair(w *yamlx.Writer, key, value string, comma bool) {
	if comma {
		w.Raw(", ")
	}
	w.Key(key, true)
	w.Raw(" ")
	flowText(w, value)
}

func writeEffect(w *yamlx.Writer, indent int, e tools.Effect) {
	switch {
	case e.File != nil:
		item(w, indent, "file")
		w.Raw(" {")
		flowPair(w, "op", string(e.File.Op), false)
		flowPair(w, "path", e.File.Path, true)
		if e.File.From != "" {
			flowPair(w, "from", e.File.From, true)
		}
		w.Raw(", bytes: ")
		w.Int(int(e.File.Bytes))
		w.Raw("}\n")
	case e.Process != nil:
		item(w, indent, "process")
		w.Raw(" {")
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
		w.Pad(indent)
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
		field(w, 2, path)
		if content == nil {
			w.Raw(" null\n")
			return
		}
		textField(w, 2, *content)
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
		line = appendInt(line, f.Size)
		line = append(line, " bytes, sha256 "...)
		line = append(line, f.Hash...)
		line = append(line, ')')
		w.Pad(2)
		w.Raw("- ")
		if strings.IndexByte(string(line), '\n') >= 0 {
			w.Failed = true
			return
		}
		w.Text(string(line), false)
		w.Raw("\n")
	}
}

func appendInt(b []byte, i int) []byte { return strconv.AppendInt(b, int64(i), 10) }
