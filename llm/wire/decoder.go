package wire

import (
	"bytes"
	"encoding/json"
	"hash"
	"maps"
	"slices"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
)

// Decoder decodes requests as Decode does, remembering the last request of
// each format so that the next one costs only what it adds. An agent sends
// its whole conversation every call, the previous call's messages first:
// a message whose bytes equal the one at the same place in the last
// request, with every message before it equal too, decodes to what that
// one did (decoding is a function of those bytes and of the messages
// before it), so its decoded value is reused; so are the tools when their
// bytes equal the last request's; and the elements it repeats are not
// even scanned again when that provably changes nothing (see skip.go).
// Everything else is decoded, and the result is the same as Decode's,
// value for value. A reused value is a copy: changing a decoded request
// changes nothing a later one gets.
//
// The zero Decoder is ready to use; its methods are safe for concurrent use
// (requests of other conversations only make it reuse less).
type Decoder struct {
	mu   sync.Mutex
	last map[Format]*decoded
	kept map[string][]llm.Message // by response id: the conversations Keep was told of
}

// decoded is what a request's messages and tools decoded to, element by
// element.
type decoded struct {
	head    []byte            // the body up to its messages array's '[' (see skip.go); nil when unknown
	raw     []json.RawMessage // each element of messages, as sent
	tail    []byte            // the body from its messages array's ']' on (see skip.go)
	req     any               // the request struct as decoded from head and tail, messages aside
	skipped int               // how many of raw were not scanned again (see skip.go)
	at      int               // where the skipped elements end in the body, when skipped > 0
	sum     hash.Hash         // the body's SHA-256 up to its elements' end (see digest.go); nil when not kept
	sumLen  int               // how many bytes sum has read
	pre     []any             // by index, an element of raw already decoded (see between); nil where not
	once    int               // how many elements were made from pre, each scanned once
	kept    bool              // req was the previous request's: only the new messages were scanned
	msgs    [][]llm.Message   // what each became (a Messages user turn may become several)
	marks   [][]int           // each one's cache breakpoints, per elements.marks; nil for a format without
	names   map[string]string // call id -> tool name of every call in msgs; never changed once kept
	tools   json.RawMessage   // the tools array, as sent
	defs    []llm.ToolDefinition
}

// Decode decodes body in the format path names, as the package's Decode,
// but for a Responses request continuing a previous_response_id: the
// conversation of that response (see Keep) comes before its input, after
// its instructions. An id Keep was not told of is an error wrapping
// ErrRequest.
func (d *Decoder) Decode(path string, body []byte) (*Call, error) {
	f, r, ok := formatOf(path)
	if !ok {
		return Decode(path, body)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	last := d.last[f]
	if last == nil {
		if d.last == nil {
			d.last = map[Format]*decoded{}
		}
		last = &decoded{}
		d.last[f] = last
	}
	c, err := f.decode(body, r, last)
	if err == nil && c.PreviousResponseID != "" {
		err = d.resolve(c)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// request decodes a request's messages (body.raw) and tools into c, after
// what c holds (the system prompt of a Messages request), reusing last's,
// and on success makes last this request's (body, what it decoded to). A
// nil last reuses nothing and keeps nothing.
func (last *decoded) request(c *Call, body decoded, tools json.RawMessage, elems elements, decodeTools func(json.RawMessage) ([]llm.ToolDefinition, error)) error {
	if last == nil {
		last = &decoded{}
	}
	msgs, per, perMarks, names, once, err := last.messages(body.raw, body.pre, elems)
	if err != nil {
		return err
	}
	if elems.marks != nil {
		c.Request.Cache = append(c.Request.Cache, messageMarks(len(c.Request.Messages), per, perMarks)...)
	}
	switch {
	case len(msgs) == 0:
	case c.Request.Messages == nil:
		c.Request.Messages = msgs
	default:
		c.Request.Messages = append(c.Request.Messages, msgs...)
	}
	if string(bytes.TrimSpace(tools)) == "null" {
		tools = nil
	}
	defs, out, err := last.toolsOf(tools, decodeTools)
	if err != nil {
		return err
	}
	c.Request.Tools = out
	body.msgs, body.marks, body.names, body.tools, body.defs, body.pre, body.once = per, perMarks, names, tools, defs, nil, once
	*last = body
	return nil
}

// elements decodes the messages array's elements of one format.
type elements struct {
	// fresh returns a new value (a pointer) to decode one element into.
	fresh func() any
	// join, when set, joins each run of adjacent assistant messages the
	// elements become into one (see flatten): a format whose assistant
	// turn spans several elements (Responses items) decodes each into a
	// message of its own.
	join bool
	// messages returns the messages element i, raw, becomes, from v (raw
	// decoded into a value fresh returned; nil when that failed, so that
	// messages decodes raw itself and reports the error), given names (call
	// id -> tool name) of the calls made before it, which it adds its own
	// calls to.
	messages func(i int, raw json.RawMessage, v any, names map[string]string) ([]llm.Message, error)
	// marks, when set, returns the cache breakpoints of an element that
	// messages made from v: each the index, among the messages it
	// became, of the one a breakpoint ends, or -1 for the message before
	// the element (a marked block that became no message). Nil for a
	// format without breakpoints.
	marks func(v any) []int
}

// decode returns the messages element i, raw, becomes (see messages), and
// the value it was decoded into (nil when that failed).
func (e elements) decode(i int, raw json.RawMessage, names map[string]string) ([]llm.Message, any, error) {
	v := e.fresh()
	if json.Unmarshal(raw, v) != nil {
		v = nil
	}
	ms, err := e.messages(i, raw, v, names)
	return ms, v, err
}

// messageMarks returns the cache breakpoints of per's elements (perMarks,
// relative to each, see elements.marks) as marks of a request whose
// messages are base messages, then per's in order.
func messageMarks(base int, per [][]llm.Message, perMarks [][]int) []llm.CacheMark {
	var out []llm.CacheMark
	at := base
	for i, ms := range per {
		for _, rel := range perMarks[i] {
			k := at + rel
			if k < 0 || (len(out) > 0 && out[len(out)-1].Index == k) {
				continue
			}
			out = append(out, llm.CacheMark{Index: k})
		}
		at += len(ms)
	}
	return out
}

// messages decodes raws after last's: the leading elements byte-equal to
// last's are its decoded messages (copies), the rest made by elems, from
// pre[i] when the element is already decoded there, else from raws[i]. It
// returns the messages in order, the next decoded state's elements and
// names (see decoded.names), and how many were made from pre.
func (last *decoded) messages(raws []json.RawMessage, pre []any, elems elements) (out []llm.Message, per [][]llm.Message, perMarks [][]int, names map[string]string, once int, err error) {
	k := 0 // the leading elements that are last's
	for k < len(raws) && k < len(last.raw) && bytes.Equal(raws[k], last.raw[k]) {
		k++
	}
	per = make([][]llm.Message, len(raws))
	copy(per, last.msgs[:k])
	if elems.marks != nil {
		perMarks = make([][]int, len(raws))
		copy(perMarks, last.marks[:min(k, len(last.marks))])
	}
	switch {
	case k == len(last.raw) && k == len(raws):
		names = last.names // nothing is added to it
	case k == len(last.raw) && last.names != nil:
		names = maps.Clone(last.names)
	default:
		names = map[string]string{}
		for _, ms := range per[:k] {
			for _, m := range ms {
				if m.Role == llm.RoleAssistant {
					for _, c := range m.ToolCalls {
						names[c.ID] = c.Name
					}
				}
			}
		}
	}
	for i := k; i < len(raws); i++ {
		var ms []llm.Message
		var v any
		if i < len(pre) && pre[i] != nil {
			v = pre[i]
			ms, err = elems.messages(i, raws[i], v, names)
			once++
		} else {
			ms, v, err = elems.decode(i, raws[i], names)
		}
		if err != nil {
			return nil, nil, nil, nil, 0, err
		}
		per[i] = ms
		if elems.marks != nil && v != nil {
			perMarks[i] = elems.marks(v)
		}
	}
	return flatten(per, elems.join), per, perMarks, names, once, nil
}

// flatten returns the messages of per in order, as copies (see detach);
// with join, each run of adjacent assistant messages is one message: their
// contents joined by a newline (empty ones left out), their calls and
// reasoning in order.
func flatten(per [][]llm.Message, join bool) []llm.Message {
	n := 0
	for _, ms := range per {
		n += len(ms)
	}
	out := make([]llm.Message, 0, n+1)
	for _, ms := range per {
		out = append(out, ms...)
	}
	if !join {
		detach(out)
		return out
	}
	// The calls and reasoning of a run are appended to the one array of
	// each that detach would take them from, so that the joined message
	// holds them all without an array of its own.
	callArr, reasonArr := arrays(out)
	w := 0
	for i := 0; i < len(out); {
		m := out[i]
		from, rfrom := len(callArr), len(reasonArr)
		callArr, reasonArr = append(callArr, m.ToolCalls...), append(reasonArr, m.Reasoning...)
		i++
		for m.Role == llm.RoleAssistant && i < len(out) && out[i].Role == llm.RoleAssistant {
			next := out[i]
			if m.Content != "" && next.Content != "" {
				m.Content += "\n"
			}
			m.Content += next.Content
			callArr, reasonArr = append(callArr, next.ToolCalls...), append(reasonArr, next.Reasoning...)
			i++
		}
		m.ToolCalls, m.Reasoning = nil, nil
		if len(callArr) > from {
			m.ToolCalls = callArr[from:len(callArr):len(callArr)]
		}
		if len(reasonArr) > rfrom {
			m.Reasoning = reasonArr[rfrom:len(reasonArr):len(reasonArr)]
		}
		out[w] = m
		w++
	}
	clear(out[w:])
	return out[:w]
}

// detach makes msgs copies (llm.Message.Clone's) of the messages they
// hold: each gets tool calls and reasoning of its own, taken from one new
// array of each for all of msgs, and capped to their length, so that
// changing or appending to one changes nothing else.
func detach(msgs []llm.Message) {
	callArr, reasonArr := arrays(msgs)
	for i := range msgs {
		m := &msgs[i]
		if m.ToolCalls != nil {
			m.ToolCalls, callArr = takeCopy(callArr, m.ToolCalls)
		}
		if m.Reasoning != nil {
			m.Reasoning, reasonArr = takeCopy(reasonArr, m.Reasoning)
		}
	}
}

// arrays returns empty arrays with room for all the tool calls and all the
// reasoning of msgs.
func arrays(msgs []llm.Message) (calls []llm.ToolCall, reasoning []llm.Reasoning) {
	nc, nr := 0, 0
	for _, m := range msgs {
		nc += len(m.ToolCalls)
		nr += len(m.Reasoning)
	}
	return make([]llm.ToolCall, 0, nc), make([]llm.Reasoning, 0, nr)
}

// takeCopy appends s to arr and returns the copy, capped to its length
// (nil when s is empty, as llm.Message.Clone gives), and arr.
func takeCopy[T any](arr, s []T) (copied, rest []T) {
	if len(s) == 0 {
		return nil, arr
	}
	from := len(arr)
	arr = append(arr, s...)
	return arr[from:len(arr):len(arr)], arr
}

// toolsOf returns the tools raw decodes to: last's when raw equals last's,
// else decode's; and a copy of them for the call. Two tools of one name are
// an error wrapping ErrRequest.
func (last *decoded) toolsOf(raw json.RawMessage, decode func(json.RawMessage) ([]llm.ToolDefinition, error)) (defs, out []llm.ToolDefinition, err error) {
	defs = last.defs
	if last.tools == nil || !bytes.Equal(raw, last.tools) {
		if defs, err = decode(raw); err != nil {
			return nil, nil, err
		}
		for i, t := range defs {
			if slices.ContainsFunc(defs[i+1:], func(u llm.ToolDefinition) bool { return u.Name == t.Name }) {
				// A tape records one tool per name (replay's sameTools,
				// tape's offered block).
				return nil, nil, requestErrorf("tools: two tools are named %q; a request offers each tool once", t.Name)
			}
		}
	}
	out = slices.Clone(defs)
	for i := range out {
		out[i].Parameters = bytes.Clone(out[i].Parameters)
	}
	return defs, out, nil
}
