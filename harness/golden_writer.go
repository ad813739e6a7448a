package harness

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/tools"
)

// writeGolden writes the outcome's golden straight from its fields, in the
// golden format (see golden_scalar.go): a fixed key order, empty fields left
// out. The error wraps errGoldenText.
func (o *Outcome) writeGolden() ([]byte, error) {
	w := &goldenWriter{buf: make([]byte, 0, o.goldenSize())}
	if err := o.writeGoldenTo(w); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// goldenSize is about the size of the outcome's golden: room for what each
// turn and call takes, so that a golden built whole is not built by
// doubling.
func (o *Outcome) goldenSize() int {
	// Room for about what each turn and call takes (a call's keys,
	// indentation and quotes are ~70 bytes besides its texts), so that a
	// golden is not built by doubling, which leaves up to twice its size
	// allocated and as much again as garbage. Texts are counted with the
	// indentation of their lines as literal blocks (a diff, a file read),
	// which in a small golden is as much again as the text.
	size := 256 + len(o.Final) + 96*len(o.Turns)
	for i := range o.Turns {
		t := &o.Turns[i]
		if t.Response != nil {
			size += blockSize(t.Response.Message.Content, 8)
		}
		size += blockSize(t.Diff, 6)
		for _, c := range t.Calls {
			size += 72 + len(c.ID()) + len(c.Name()) + len(c.Arguments()) + blockSize(c.Result(), 10) + 64*len(c.Effects())
		}
	}
	for i := range o.Workspace {
		if o.Workspace[i].Untouched {
			size += 64 + len(o.Workspace[i].Path) // listed by size and hash
			continue
		}
		size += 16 + len(o.Workspace[i].Path) + blockSize(o.Workspace[i].Content, 4)
	}
	return size
}

// writeGoldenTo writes the outcome's golden (writeGolden) to w, handing
// w's whole lines on (goldenWriter.spill) after each turn and call when w
// streams. The error wraps errGoldenText.
func (o *Outcome) writeGoldenTo(w *goldenWriter) error {
	textField(w, 0, "name", o.Name)
	textField(w, 0, "termination", string(o.Termination))
	if o.Error != "" {
		textField(w, 0, "error", o.Error)
	}
	w.raw("iterations: ")
	w.int(o.Iterations)
	w.raw("\n")
	if len(o.ModelRetries) > 0 {
		w.raw("model_retries:\n")
		for _, r := range o.ModelRetries {
			w.raw("  - turn: ")
			w.int(r.Turn)
			w.raw("\n    attempt: ")
			w.int(r.Attempt)
			w.raw("\n")
			if r.Kind != "" {
				textField(w, 4, "kind", string(r.Kind))
			}
			textField(w, 4, "backoff", r.Backoff.String())
			textField(w, 4, "error", r.Error)
		}
	}
	if len(o.Turns) == 0 {
		w.raw("turns: []\n")
	} else {
		w.raw("turns:\n")
	}
	for i := range o.Turns {
		o.Turns[i].write(w)
		w.spill()
	}
	if o.Final != "" {
		textField(w, 0, "final", o.Final)
	}
	o.writeWorkspace(w)
	if o.State != nil {
		w.raw("state:")
		writeState(w, o.State, 0, false)
	}
	return w.err
}

// blockSize is about what s takes written as a literal block whose lines
// are indented by indent.
func blockSize(s string, indent int) int {
	return len(s) + strings.Count(s, "\n")*indent
}

// textField writes "key: " and Text(s) on a line of its own, the key at
// column indent (a literal block's lines two further).
func textField(w *goldenWriter, indent int, key, s string) {
	w.pad(indent)
	w.raw(key)
	w.raw(": ")
	w.text(s, false, indent+2)
	w.endLine()
}

func (t *TurnOutcome) write(w *goldenWriter) {
	w.raw("  - turn: ")
	w.int(t.Index)
	w.raw("\n")
	if u := t.User; u != nil {
		if u.Name == "" {
			textField(w, 4, "user", u.Content)
		} else {
			w.raw("    user:\n")
			textField(w, 6, "content", u.Content)
			textField(w, 6, "name", u.Name)
		}
	}
	if len(t.Delivered) > 0 {
		w.raw("    async_results:\n")
		for _, a := range t.Delivered {
			w.raw("      - id: ")
			w.text(a.ID, false, 10)
			w.endLine()
			textField(w, 8, "name", a.Name)
			textField(w, 8, "result", a.Result)
		}
	}
	if r := t.Response; r != nil && (r.Message.Content != "" || r.FinishReason != "") {
		w.raw("    response:\n")
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
		w.raw("    calls:\n")
		for i := range t.Calls {
			t.Calls[i].write(w)
			w.spill()
		}
	}
	if t.Diff != "" {
		textField(w, 4, "diff", t.Diff)
	}
	if len(t.Answered) > 0 {
		w.raw("    answered:\n")
		for _, a := range t.Answered {
			w.raw("      - ")
			w.text(a, false, 8)
			w.endLine()
		}
	}
}

// write writes the call as a sequence item at indent 6 (its fields at 8).
func (c *CallOutcome) write(w *goldenWriter) {
	const in = 8
	w.raw("      - id: ")
	w.text(c.ID(), false, in+2)
	w.endLine()
	textField(w, in, "name", c.Name())
	textField(w, in, "arguments", c.Arguments())
	if c.showExecuted() {
		textField(w, in, "executed", c.Executed())
	}
	if len(c.Repairs()) > 0 {
		w.raw("        repairs: [")
		for i, r := range c.Repairs() {
			if i > 0 {
				w.raw(", ")
			}
			w.text(r, true, in+2)
		}
		w.raw("]\n")
	}
	if len(c.Coercions()) > 0 {
		w.raw("        coercions:\n")
		for _, co := range c.Coercions() {
			w.raw("          - {")
			flowPair(w, "path", co.Path, false)
			flowPair(w, "from", co.From, true)
			flowPair(w, "to", co.To, true)
			w.raw("}\n")
		}
	}
	if retries := c.Retries(); len(retries) > 0 {
		w.raw("        retried:\n")
		for _, r := range retries {
			w.raw("          - {")
			flowPair(w, "failure", string(r.Failure), false)
			flowPair(w, "backoff", r.Backoff.String(), true)
			w.raw(", result: ")
			w.text(r.Result, true, in+4)
			w.raw("}\n")
		}
	}
	if c.Memoized() {
		w.raw("        memoized: true\n")
	}
	if c.Async() {
		w.raw("        async: true\n")
	}
	if c.Failure() != "" {
		textField(w, in, "failure", string(c.Failure()))
	}
	textField(w, in, "result", c.Result())
	if len(c.Effects()) > 0 {
		w.raw("        effects:\n")
		for _, e := range c.Effects() {
			writeEffect(w, in+2, e)
		}
	}
}

// flowPair writes "key: value" inside a flow mapping, after ", " unless first.
func flowPair(w *goldenWriter, key, value string, comma bool) {
	if comma {
		w.raw(", ")
	}
	w.key(key, true, 0)
	w.raw(" ")
	w.text(value, true, 0)
}

func writeEffect(w *goldenWriter, indent int, e tools.Effect) {
	w.pad(indent)
	switch {
	case e.File != nil:
		w.raw("- file: {")
		flowPair(w, "op", string(e.File.Op), false)
		flowPair(w, "path", e.File.Path, true)
		if e.File.From != "" {
			flowPair(w, "from", e.File.From, true)
		}
		w.raw(", bytes: ")
		w.int(int(e.File.Bytes))
		w.raw("}\n")
	case e.Process != nil:
		w.raw("- process: {")
		flowPair(w, "command", e.Process.Command, false)
		w.raw(", exit_code: ")
		w.int(e.Process.ExitCode)
		if e.Process.Background {
			w.raw(", background: true")
		}
		if e.Process.TimedOut {
			w.raw(", timed_out: true")
		}
		w.raw("}\n")
	default:
		w.raw("- {}\n")
	}
}

// writeWorkspace writes the workspace: and untouched: keys as
// workspaceNodes renders them.
func (o *Outcome) writeWorkspace(w *goldenWriter) {
	deleted := o.Deleted
	wroteWS := false
	ws := func(path string, content *string) {
		if !wroteWS {
			w.raw("workspace:\n")
			wroteWS = true
		}
		w.pad(2)
		w.key(path, false, 2)
		w.raw(" ")
		if content == nil {
			w.raw("null")
		} else {
			w.text(*content, false, 4)
		}
		w.endLine()
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
	w.raw("untouched:\n")
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
		w.raw("  - ")
		w.text(string(line), false, 4)
		w.endLine()
	}
}

// writeState writes the JSON value v as stateNode renders it, as the value
// of a key or a sequence item of the block collection at column indent. The
// cursor is after the key's ":" or the item's "-"; inline says a block
// collection starts on that line (after "-", or a complex key's ":").
func writeState(w *goldenWriter, v any, indent int, inline bool) {
	in := indent + 2
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			w.raw(" {}\n")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i == 0 && inline {
				w.raw(" ")
			} else {
				w.endLine()
				w.pad(in)
			}
			complex := w.key(k, false, in)
			writeState(w, v[k], in, complex)
		}
	case []any:
		if len(v) == 0 {
			w.raw(" []\n")
			return
		}
		for i, item := range v {
			if i == 0 && inline {
				w.raw(" ")
			} else {
				w.endLine()
				w.pad(in)
			}
			w.raw("-")
			writeState(w, item, in, true)
		}
	case string:
		w.raw(" ")
		w.text(v, false, in)
		w.endLine()
	case bool:
		w.raw(" ")
		w.raw(strconv.FormatBool(v))
		w.raw("\n")
	case float64:
		w.raw(" ")
		w.raw(stateNumber(v))
		w.raw("\n")
	default: // nil, as stateNode
		w.raw(" null\n")
	}
}
