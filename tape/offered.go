package tape

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// Offered is what a request shows the model besides its conversation: the
// system prompt(s) and the tools with their descriptions and parameter
// schemas. A tape records it once, in its `offered:` block, from the first
// request; an entry's request records it again (Request.Offered) only when
// that request offered something else. The zero Offered records nothing.
type Offered struct {
	// System holds the content of each of the request's leading system
	// messages, in order. Nil means not recorded (not compared); an empty
	// non-nil slice records that the request had none.
	System []string
	// Tools holds the definitions of the offered tools, in the order
	// offered; they compare as a set, by name. Nil means not recorded; an
	// empty non-nil slice records that none was offered.
	Tools []llm.ToolDefinition
	// ResponseSchema is the JSON Schema the request asked the answer to
	// match (llm.Request.ResponseSchema: a structured finish). Nil means not
	// recorded (not compared); an empty non-nil value records that the
	// request asked for none. A tape's offered block states it only when the
	// first request asked for one; an entry's request states its changes.
	ResponseSchema json.RawMessage
	// Params holds the request parameters that change the model's
	// behaviour (llm.Request.Params: model, tool_choice, temperature, ...),
	// by wire name, each as compact JSON. Nil means not recorded (not
	// compared); when recorded they compare as a whole: a parameter added,
	// removed or changed is a difference.
	Params map[string]json.RawMessage
	// AnsweredBy is the model a live run sent the vendor instead of the
	// one the agent's request named (evalrun --model naming another, see
	// wire.Forwarded), or opened instead of a native scenario's own
	// (setup.loop.request.model, see llm.WithAnsweredBy): the answers
	// recorded are that model's. It is written as a comment beside
	// params.model, read back from it (so that a rebase, which keeps the
	// answers, keeps it) and never compared; empty when the agent's or
	// the scenario's own model answered.
	AnsweredBy string
	// Cache holds where the request put its cache breakpoints, the
	// block's `cache:` (see CachePlaces). Nil means not recorded (a
	// format without breakpoints, tapeloop's own loop, an older tape);
	// empty non-nil records that the request marked none. It is never
	// compared: a breakpoint changes what the provider caches, not the
	// answer.
	Cache []string
	// Line is the line of the block in its source file; 0 if not from a
	// file. It is not encoded.
	Line int
}

// offeredKeys and toolDefKeys are the keys of an `offered:` block and of
// each of its tools, in canonical order.
var (
	offeredKeys = []string{"system", "tools", "response_schema", "params", "cache"}
	toolDefKeys = []string{"name", "description", "parameters"}
)

// OfferedOf returns what req offers the model: the content of its leading
// system messages, copies of its tool definitions and of its response
// schema, and its parameters. Every field but Params (nil when req has
// none) is non-nil; a nil req offers nothing.
func OfferedOf(req *llm.Request) *Offered {
	o := &Offered{System: []string{}, Tools: []llm.ToolDefinition{}, ResponseSchema: json.RawMessage{}}
	if req == nil {
		return o
	}
	o.ResponseSchema = append(o.ResponseSchema, req.ResponseSchema...)
	o.Params = cloneParams(req.Params)
	o.Cache = CachePlaces(req)
	for _, m := range req.Messages {
		if m.Role != llm.RoleSystem {
			break
		}
		o.System = append(o.System, m.Content)
	}
	for _, t := range req.Tools {
		t.Parameters = bytes.Clone(t.Parameters)
		o.Tools = append(o.Tools, t)
	}
	return o
}

// Conversation returns the messages of req after its leading system
// messages (those OfferedOf reports as its system prompts); nil for a nil
// req. The slice shares req's messages.
func Conversation(req *llm.Request) []llm.Message {
	if req == nil {
		return nil
	}
	i := 0
	for i < len(req.Messages) && req.Messages[i].Role == llm.RoleSystem {
		i++
	}
	return req.Messages[i:]
}

// Clone returns a deep copy of o; a nil o gives nil.
func (o *Offered) Clone() *Offered {
	if o == nil {
		return nil
	}
	c := &Offered{System: slices.Clone(o.System), Params: cloneParams(o.Params), AnsweredBy: o.AnsweredBy, Cache: slices.Clone(o.Cache), Line: o.Line}
	if o.ResponseSchema != nil {
		c.ResponseSchema = append(json.RawMessage{}, o.ResponseSchema...)
	}
	if o.Tools != nil {
		c.Tools = make([]llm.ToolDefinition, len(o.Tools))
		for i, t := range o.Tools {
			t.Parameters = bytes.Clone(t.Parameters)
			c.Tools[i] = t
		}
	}
	return c
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

// EncodeOffered returns the canonical node of an `offered:` block: `system`
// (one prompt as text, several as a sequence), then `tools`, each with its
// name, description and parameters (the schema as YAML, so that a reviewer
// reads it). A nil o gives an empty mapping.
func EncodeOffered(o *Offered) *yaml.Node {
	n := yamlx.Map()
	if o == nil {
		return n
	}
	if o.System != nil {
		if len(o.System) == 1 {
			yamlx.Add(n, "system", yamlx.Text(o.System[0]))
		} else {
			seq := yamlx.Seq()
			if len(o.System) == 0 {
				seq = yamlx.FlowSeq()
			}
			for _, s := range o.System {
				seq.Content = append(seq.Content, yamlx.Text(s))
			}
			yamlx.Add(n, "system", seq)
		}
	}
	if o.Tools != nil {
		seq := yamlx.Seq()
		if len(o.Tools) == 0 {
			seq = yamlx.FlowSeq()
		}
		for _, t := range o.Tools {
			tn := yamlx.Map()
			yamlx.Add(tn, "name", yamlx.Text(t.Name))
			if t.Description != "" {
				yamlx.Add(tn, "description", yamlx.Text(t.Description))
			}
			if len(t.Parameters) > 0 {
				yamlx.Add(tn, "parameters", schemaNode(t.Parameters))
			}
			seq.Content = append(seq.Content, tn)
		}
		yamlx.Add(n, "tools", seq)
	}
	switch {
	case o.ResponseSchema == nil:
	case len(o.ResponseSchema) == 0:
		yamlx.Add(n, "response_schema", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
	default:
		yamlx.Add(n, "response_schema", schemaNode(o.ResponseSchema))
	}
	if o.Params != nil {
		pn := yamlx.Map()
		if len(o.Params) == 0 {
			pn.Style = yaml.FlowStyle
		}
		for _, k := range slices.Sorted(maps.Keys(o.Params)) {
			v := paramNode(o.Params[k])
			if k == "model" && o.AnsweredBy != "" {
				v.LineComment = answeredByComment + o.AnsweredBy + ": the recording sent it instead (--model)"
			}
			yamlx.Add(pn, k, v)
		}
		yamlx.Add(n, "params", pn)
	}
	if o.Cache != nil {
		seq := yamlx.FlowSeq()
		for _, p := range o.Cache {
			seq.Content = append(seq.Content, yamlx.Text(p))
		}
		yamlx.Add(n, "cache", seq)
	}
	return n
}

// paramNode returns a parameter's JSON value as a YAML node that reads back
// as the same value: a string quoted as JSON quotes it, a number or boolean
// plain, an object or array as block YAML (see schemaNode).
func paramNode(raw json.RawMessage) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.ScalarNode {
		n := doc.Content[0]
		n.Line, n.Column = 0, 0
		if back, err := newDecoder("").json(nil, n, ""); err == nil && jsonvalue.SameText(back, raw) {
			return n
		}
	}
	return schemaNode(raw)
}

// schemaNode returns a JSON schema as a YAML node that reads back as the
// same JSON value; text that does not survive the trip (not JSON at all)
// is kept as a quoted string.
func schemaNode(raw json.RawMessage) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) == nil && len(doc.Content) == 1 {
		n := doc.Content[0]
		plain(n)
		if back, err := newDecoder("").json(nil, n, ""); err == nil && jsonvalue.SameText(back, raw) && n.Kind != yaml.ScalarNode {
			return n
		}
	}
	return yamlx.Quoted(string(raw))
}

// plain clears the styles and positions of n and its children, so that a
// node decoded from JSON is written as ordinary block YAML.
func plain(n *yaml.Node) {
	n.Style, n.Line, n.Column = 0, 0, 0
	for _, c := range n.Content {
		plain(c)
	}
}

// DecodeOffered decodes a scenario file's top-level `offered:` block (see
// EncodeOffered), with the same strictness as a tape; key is the path of
// the block in errors ("offered"). A nil node is an error.
func DecodeOffered(filename, key string, node *yaml.Node) (*Offered, error) {
	if node == nil {
		return nil, &fileerr.Error{Kind: ErrFormat, File: filename, Key: key, Problem: "missing (want a mapping of system and tools)"}
	}
	o, err := newDecoder(filename).offered(node, key)
	return o, formatError(err)
}

func (d *decoder) offered(n *yaml.Node, path string) (*Offered, error) {
	o := &Offered{Line: n.Line}
	_, err := d.Fields(n, path, offeredKeys, func(key string, v *yaml.Node) error {
		var err error
		p := d.join(path, key)
		switch key {
		case "system":
			if v.Kind == yaml.ScalarNode {
				var s string
				s, err = d.Str(v, p)
				o.System = []string{s}
			} else {
				o.System, err = d.Strs(v, p)
				if o.System == nil && err == nil {
					o.System = []string{}
				}
			}
		case "tools":
			o.Tools, err = d.toolDefs(v, p)
		case "params":
			o.Params, err = d.params(v, p)
			o.AnsweredBy = answeredBy(v)
		case "response_schema":
			o.ResponseSchema = json.RawMessage{} // null: none was asked for
			if !yamlx.IsNull(v) {
				o.ResponseSchema, err = d.schema(v, p)
			}
		case "cache":
			o.Cache, err = d.cachePlaces(v, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (d *decoder) toolDefs(n *yaml.Node, path string) ([]llm.ToolDefinition, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]llm.ToolDefinition, 0, len(n.Content))
	names := map[string]bool{}
	for i, c := range n.Content {
		p := d.index(path, i)
		var t llm.ToolDefinition
		seen, err := d.Fields(c, p, toolDefKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "name":
				t.Name, err = d.Str(v, d.join(p, key))
			case "description":
				t.Description, err = d.Str(v, d.join(p, key))
			case "parameters":
				t.Parameters, err = d.schema(v, d.join(p, key))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if !seen.Has("name") {
			return nil, d.Errf(c, p, "missing required key %q", "name")
		}
		if names[t.Name] {
			return nil, d.Errf(c, d.join(p, "name"), "tool %q is offered twice", t.Name)
		}
		names[t.Name] = true
		out = append(out, t)
	}
	return out, nil
}

// schema decodes a parameter schema: a mapping (written as YAML) or its
// JSON text as a string.
func (d *decoder) schema(n *yaml.Node, path string) (json.RawMessage, error) {
	if n.Kind == yaml.ScalarNode {
		s, err := d.Str(n, path)
		if err != nil {
			return nil, err
		}
		if !json.Valid([]byte(s)) {
			return nil, d.Errf(n, path, "want a JSON schema (a mapping, or its JSON text), got text that is not JSON")
		}
		return json.RawMessage(s), nil
	}
	if err := d.Want(n, path, yaml.MappingNode); err != nil {
		return nil, err
	}
	b, err := d.json(nil, n, path)
	return json.RawMessage(b), err
}

// params decodes an offered block's params: a mapping of parameter names
// to their values (any YAML, read as JSON).
// answeredByComment starts the comment beside params.model that names
// the model which answered instead (Offered.AnsweredBy).
const answeredByComment = "# answered by "

// answeredBy returns the model the comment beside the model of params
// (a mapping node) names as the one that answered; empty for none.
func answeredBy(params *yaml.Node) string {
	for i := 0; i+1 < len(params.Content); i += 2 {
		if params.Content[i].Value != "model" {
			continue
		}
		c, ok := strings.CutPrefix(params.Content[i+1].LineComment, answeredByComment)
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(c, ":")
		return strings.TrimSpace(name)
	}
	return ""
}

func (d *decoder) params(n *yaml.Node, path string) (map[string]json.RawMessage, error) {
	if err := d.Want(n, path, yaml.MappingNode); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, err := d.Str(k, path)
		if err != nil {
			return nil, err
		}
		p := d.join(path, key)
		if _, dup := out[key]; dup {
			return nil, d.Errf(k, p, "duplicate key %q", key)
		}
		b, err := d.json(nil, v, p)
		if err != nil {
			return nil, err
		}
		out[key] = json.RawMessage(b)
	}
	return out, nil
}

// cachePlaces decodes an offered block's `cache:`, a sequence of places
// (see CachePlaces); an empty sequence records that none was marked.
func (d *decoder) cachePlaces(n *yaml.Node, path string) ([]string, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := []string{}
	for i, c := range n.Content {
		p := d.index(path, i)
		s, err := d.Str(c, p)
		if err != nil {
			return nil, err
		}
		if _, _, _, err := parsePlace(s); err != nil {
			return nil, d.Errf(c, p, "%q: %v", s, err)
		}
		out = append(out, s)
	}
	return out, nil
}
