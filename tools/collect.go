package tools

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Collecting every failure. The validator (github.com/google/jsonschema-go)
// returns the first failure it meets, and which one that is depends on map
// order. The model needs all of them at once, in a stable order, so when a
// value fails, Validate validates it again against pieces of the schema,
// each reporting at most one failure:
//
//   - the schema of each declared property (under "properties") is split in
//     turn, applied to that property's value, reported at its path ("/a/b");
//   - every other keyword is a piece of its own, applied to the value the
//     schema describes, with the keywords it depends on: additionalProperties
//     with properties and patternProperties (their subschemas made true), if
//     with then and else, contains with minContains and maxContains, items
//     with prefixItems and additionalItems;
//   - the keywords that look at each property (additionalProperties,
//     patternProperties, propertyNames) are applied to one property at a
//     time and reported at the property's path;
//   - under Draft 7 a schema with $ref is one piece, as $ref hides its
//     siblings there; unevaluatedProperties and unevaluatedItems take the
//     whole schema they sit in.
//
// Every piece keeps the root's $schema, $id, $defs and definitions, so that
// references resolve. A failure inside an array or an applicator (allOf,
// anyOf, oneOf, not, $ref) is reported at the object property holding it,
// with the validator's message. A schema whose pieces cannot be resolved on
// their own (a reference into "properties", say) is not split: its
// validation reports the validator's first failure alone.

// piece is one part of a schema and where in the value it applies.
type piece struct {
	at          []step // from the root to the values it applies to
	perProperty bool   // validate each property of the object alone
	resolved    *jsonschema.Resolved
}

// step is one step of a piece's path: into a property, or into every item of
// an array.
type step struct {
	prop  string
	items bool
}

// context keywords are copied into every piece.
var contextKeywords = []string{"$schema", "$id", "$defs", "definitions"}

// inert keywords validate nothing (annotations, or a companion that its
// leader's piece carries).
var inert = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "definitions": true, "$anchor": true,
	"$dynamicAnchor": true, "$comment": true, "$vocabulary": true, "title": true,
	"description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true, "format": true, "contentEncoding": true,
	"contentMediaType": true, "contentSchema": true, "then": true, "else": true,
	"minContains": true, "maxContains": true, "prefixItems": true, "additionalItems": true,
	"properties": true,
}

// companions are the keywords a keyword's piece carries along.
var companions = map[string][]string{
	"if":       {"then", "else"},
	"contains": {"minContains", "maxContains"},
	"items":    {"prefixItems", "additionalItems"},
}

// perPropertyKeywords look at each property of an object on its own.
var perPropertyKeywords = map[string]bool{
	"additionalProperties": true, "patternProperties": true, "propertyNames": true,
}

// collect validates v against each piece of the schema and returns the
// failures; none when the schema could not be split.
func (s *Schema) collect(v any) []FieldError {
	s.split.Do(func() {
		ctx := map[string]any{}
		for _, k := range contextKeywords {
			if x, ok := s.doc[k]; ok {
				ctx[k] = x
			}
		}
		pieces, err := splitSchema(ctx, s.doc, nil)
		if err == nil {
			s.pieces = pieces
		}
	})
	var out []FieldError
	for _, p := range s.pieces {
		valuesAt(v, "", p.at, func(path string, val any) {
			obj, isObject := val.(map[string]any)
			if !p.perProperty || !isObject {
				if err := p.resolved.Validate(val); err != nil {
					out = append(out, FieldError{Path: path, Message: message(err)})
				}
				return
			}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if err := p.resolved.Validate(map[string]any{k: obj[k]}); err != nil {
					out = append(out, FieldError{Path: path + "/" + escapeToken(k), Message: message(err)})
				}
			}
		})
	}
	return out
}

// splitSchema returns the pieces of the schema node, which applies to the
// value at the property path at.
func splitSchema(ctx, node map[string]any, at []step) ([]piece, error) {
	var docs []map[string]any
	var perProperty []bool
	add := func(keys ...string) {
		d := maps.Clone(ctx)
		for _, k := range keys {
			if x, ok := node[k]; ok {
				d[k] = x
			}
		}
		docs = append(docs, d)
		perProperty = append(perProperty, perPropertyKeywords[keys[0]])
	}
	draft7 := strings.Contains(stringOf(ctx["$schema"]), "draft-07")
	_, hasUnevaluated := node["unevaluatedProperties"]
	_, hasUnevaluatedItems := node["unevaluatedItems"]
	_, ref := node["$ref"]
	hiddenByRef := ref && draft7
	itemSchema, eachItem := node["items"].(map[string]any)
	if _, prefix := node["prefixItems"]; prefix {
		eachItem = false
	}
	if hiddenByRef || hasUnevaluated || hasUnevaluatedItems {
		add(slices.Sorted(maps.Keys(node))...)
	} else {
		for _, k := range slices.Sorted(maps.Keys(node)) {
			switch {
			case inert[k], k == "items" && eachItem:
			case k == "additionalProperties":
				d := maps.Clone(ctx)
				d[k] = node[k]
				for _, companion := range []string{"properties", "patternProperties"} {
					if m, ok := node[companion].(map[string]any); ok {
						d[companion] = allTrue(m)
					}
				}
				docs = append(docs, d)
				perProperty = append(perProperty, true)
			default:
				add(append([]string{k}, companions[k]...)...)
			}
		}
	}
	var out []piece
	for i, d := range docs {
		raw, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		r, err := resolve(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, piece{at: at, perProperty: perProperty[i], resolved: r})
	}
	if eachItem && !hiddenByRef && !hasUnevaluatedItems {
		pieces, err := splitSchema(ctx, itemSchema, append(slices.Clip(at), step{items: true}))
		if err != nil {
			return nil, err
		}
		out = append(out, pieces...)
	}
	if props, ok := node["properties"].(map[string]any); ok && !hiddenByRef {
		for _, k := range slices.Sorted(maps.Keys(props)) {
			path := append(slices.Clip(at), step{prop: k})
			switch sub := props[k].(type) {
			case map[string]any:
				pieces, err := splitSchema(ctx, sub, path)
				if err != nil {
					return nil, err
				}
				out = append(out, pieces...)
			case bool:
				r, err := resolve([]byte(strconv.FormatBool(sub)))
				if err != nil {
					return nil, err
				}
				out = append(out, piece{at: path, resolved: r})
			}
		}
	}
	return out, nil
}

func allTrue(m map[string]any) map[string]any {
	t := make(map[string]any, len(m))
	for k := range m {
		t[k] = true
	}
	return t
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// valuesAt calls f with each value the path at leads to from v, and its
// JSON pointer (v's is ptr): a property step goes into an object holding
// the name, an items step into every item of an array.
func valuesAt(v any, ptr string, at []step, f func(ptr string, v any)) {
	if len(at) == 0 {
		f(ptr, v)
		return
	}
	if at[0].items {
		l, _ := v.([]any)
		for i, x := range l {
			valuesAt(x, ptr+"/"+strconv.Itoa(i), at[1:], f)
		}
		return
	}
	obj, _ := v.(map[string]any)
	if x, ok := obj[at[0].prop]; ok {
		valuesAt(x, ptr+"/"+escapeToken(at[0].prop), at[1:], f)
	}
}

// escapeToken escapes a name as a JSON pointer token.
func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// message is the validator's innermost message: the failing keyword and
// what is wrong, without the "validating <schema>: " context it wraps
// around it, on one line (an anyOf lists its alternatives' failures one a
// line: they are joined by "; ").
func message(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return oneLine.Replace(err.Error())
		}
		err = inner
	}
}

var oneLine = strings.NewReplacer(":\n", ": ", "\n", "; ")

// floatNumbers returns v with each json.Number as a float64, which the
// validator needs (it takes a json.Number for a string). Containers are
// copied only when they hold a number; changed says whether v held one.
func floatNumbers(v any) (out any, changed bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v, false
		}
		return f, true
	case map[string]any:
		var m map[string]any
		for k, x := range v {
			if y, ok := floatNumbers(x); ok {
				if m == nil {
					m = maps.Clone(v)
				}
				m[k] = y
			}
		}
		if m == nil {
			return v, false
		}
		return m, true
	case []any:
		var l []any
		for i, x := range v {
			if y, ok := floatNumbers(x); ok {
				if l == nil {
					l = slices.Clone(v)
				}
				l[i] = y
			}
		}
		if l == nil {
			return v, false
		}
		return l, true
	}
	return v, false
}
