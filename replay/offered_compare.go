package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// ErrDuplicateTool: a request offers two tools of one name, which a tape
// cannot record (it holds one tool per name); a Recorder and a rebasing
// Model refuse such a request before it is sent or written.
var ErrDuplicateTool = errors.New("two tools of one name")

// How replay follows and compares the offered block of a tape
// (tape.Offered): what a request offered after the changes entries
// recorded, and which parts of it changed.

// offeredBy reports whether o is, field for field, what OfferedOf(req)
// returns (o.Line aside); false for a nil o.
func offeredBy(o *tape.Offered, req *llm.Request) bool {
	if o == nil || req == nil || !bytes.Equal(o.ResponseSchema, req.ResponseSchema) || len(o.Tools) != len(req.Tools) ||
		(o.Params == nil) != (req.Params == nil) || !sameParams(o.Params, req.Params) {
		return false
	}
	for i, t := range req.Tools {
		if u := o.Tools[i]; t.Name != u.Name || t.Description != u.Description || !bytes.Equal(t.Parameters, u.Parameters) || (t.Parameters == nil) != (u.Parameters == nil) {
			return false
		}
	}
	system := req.Messages[:len(req.Messages)-len(tape.Conversation(req))]
	if len(system) != len(o.System) {
		return false
	}
	for i, m := range system {
		if m.Content != o.System[i] {
			return false
		}
	}
	return true
}

// sameParams reports whether a and b hold the same parameters, the values
// compared as JSON.
func sameParams(a, b map[string]json.RawMessage) bool {
	return maps.EqualFunc(a, b, func(v, w json.RawMessage) bool { return jsonvalue.SameText(v, w) })
}

// block returns o as a tape's offered block states it: without a response
// schema when the request asked for none, so that a tape of a run without
// a structured finish says nothing of it.
func block(o *tape.Offered) *tape.Offered {
	if o != nil && o.ResponseSchema != nil && len(o.ResponseSchema) == 0 {
		o.ResponseSchema = nil
	}
	return o
}

// with returns base with the parts over records replaced by over's: what a
// request offered after an entry recorded a change. Either may be nil.
func with(base, over *tape.Offered) *tape.Offered {
	if empty(over) {
		return base
	}
	out := &tape.Offered{Line: over.Line}
	if base != nil {
		out.System, out.Tools, out.ResponseSchema, out.Params = base.System, base.Tools, base.ResponseSchema, base.Params
	}
	if over.System != nil {
		out.System = over.System
	}
	if over.Tools != nil {
		out.Tools = over.Tools
	}
	if over.ResponseSchema != nil {
		out.ResponseSchema = over.ResponseSchema
	}
	if over.Params != nil {
		out.Params = over.Params
	}
	return out
}

// changes returns the parts of now that differ from was, limited to the
// parts stated records (all parts when stated is nil), or nil when none
// differs.
func changes(was, now, stated *tape.Offered) *tape.Offered {
	var out tape.Offered
	if (stated == nil || stated.System != nil) && (was == nil || !slices.Equal(was.System, now.System)) {
		out.System = now.System
	}
	if (stated == nil || stated.Tools != nil) && (was == nil || !sameTools(was.Tools, now.Tools)) {
		out.Tools = now.Tools
	}
	// A tape's block states a response schema only when the first request
	// had one: a block that pins anything pins the schema's changes too.
	if (stated == nil || !empty(stated)) && now.ResponseSchema != nil && (was == nil || !sameSchema(was.ResponseSchema, now.ResponseSchema)) {
		out.ResponseSchema = now.ResponseSchema
	}
	if (stated == nil || stated.Params != nil) && now.Params != nil && (was == nil || !sameParams(was.Params, now.Params)) {
		out.Params = now.Params
	}
	if empty(&out) {
		return nil
	}
	return &out
}

// sameTools reports whether a and b define the same tools, in any order:
// as multisets, each tool of a matched to a tool of b not matched before,
// so that a name offered twice is not the same as two names.
func sameTools(a, b []llm.ToolDefinition) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
next:
	for _, t := range a {
		for i, u := range b {
			if !used[i] && sameTool(t, u) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

// duplicateTool returns an error wrapping ErrDuplicateTool, naming the
// tool, when tools holds two tools of one name; nil otherwise.
func duplicateTool(tools []llm.ToolDefinition) error {
	for i, t := range tools {
		if j := slices.IndexFunc(tools[i+1:], func(u llm.ToolDefinition) bool { return u.Name == t.Name }); j >= 0 {
			return fmt.Errorf("%w: the request offers tools[%d] and tools[%d] both named %q, and a tape records one tool per name", ErrDuplicateTool, i, i+1+j, t.Name)
		}
	}
	return nil
}

func sameTool(a, b llm.ToolDefinition) bool {
	return a.Name == b.Name && a.Description == b.Description && jsonvalue.SameText(a.Parameters, b.Parameters)
}

// sameSchema compares two response schemas: none (empty) equals none, and
// schemas compare as JSON values.
func sameSchema(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return jsonvalue.SameText(a, b)
}

// empty reports whether o records nothing.
func empty(o *tape.Offered) bool {
	return o == nil || o.System == nil && o.Tools == nil && o.ResponseSchema == nil && o.Params == nil
}

// cloneParams returns a deep copy of p; nil gives nil.
func cloneParams(p map[string]json.RawMessage) map[string]json.RawMessage {
	if p == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(p))
	for k, v := range p {
		c[k] = bytes.Clone(v)
	}
	return c
}
