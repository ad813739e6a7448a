// Package jsonschema is tapeloop's JSON Schema validator: it compiles a
// decoded schema document and validates decoded JSON values against it,
// reporting each failing value with a JSON pointer and an English message.
//
// It implements the assertions and applicators of Draft 2020-12 (the default),
// 2019-09, 7, 6 and 4 (chosen by the root's $schema), boolean schemas, local
// references ($ref, $dynamicRef, $recursiveRef to JSON pointers, $id-named
// resources and anchors) and unevaluatedProperties/unevaluatedItems. Its
// verdicts and messages are those of github.com/santhosh-tekuri/jsonschema/v6
// as tapeloop configured it, which tapeloop used before; a differential test
// holds the two together. It exists because that library compiles every
// draft's meta-schemas at program start, the largest part of tapeloop's start
// up.
//
// Not supported: references to documents outside the schema (refused when the
// schema is compiled, as nothing is fetched), content assertions
// (contentEncoding, contentMediaType: annotations, as before), $vocabulary
// (all vocabularies are on) and a $schema other than the drafts above.
// "format" is an annotation under Draft 2019-09 and 2020-12; under the older
// drafts it asserts the formats listed in format.go, as before. A reference
// cycle (a schema applying itself to the same value) fails with a message of
// its own; a compile error's text is this package's own.
package jsonschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
)

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root  *node
	track bool // some schema has unevaluatedProperties or unevaluatedItems
}

// json types, as bits.
const (
	tNull = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func typeBit(name string) int {
	for i, n := range typeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// node is one compiled schema (a schema object or a boolean schema).
type node struct {
	ptr     string // JSON pointer of the schema in the document: its identity
	boolean *bool  // a boolean schema
	res     *resource
	draft   int // 4, 6, 7, 2019 or 2020

	types int // bits; 0 means no "type"

	hasConst bool
	constVal any
	hasEnum  bool
	enum     []any

	format *format

	ref, recursiveRef, dynamicRef *node
	dynRefAnchor                  string // the anchor a $dynamicRef names, when it names one
	ownDynAnchor                  string // this schema's $dynamicAnchor
	recursiveAnchor               bool   // $recursiveAnchor: true

	// objects
	minProps, maxProps   int // -1 when absent
	required             []string
	dependencies         map[string]any // []string or *node
	properties           map[string]*node
	patternProperties    []patternProp
	additionalProperties any // nil, bool or *node
	propertyNames        *node
	dependentSchemas     map[string]*node
	dependentRequired    map[string][]string
	unevalProps          *node

	// arrays
	minItems, maxItems       int
	uniqueItems              bool
	itemsList                []*node // draft < 2020 array form, or prefixItems
	items                    *node   // items applying to every item after itemsList
	additionalItems          any     // draft < 2020 with array items: nil, bool or *node
	contains                 *node
	minContains, maxContains int // -1 when absent
	unevalItems              *node

	// strings
	minLength, maxLength int
	pattern              *regexp.Regexp

	// numbers
	minimum, maximum, exclMinimum, exclMaximum, multipleOf *big.Rat

	not                 *node
	allOf, anyOf, oneOf []*node
	ifS, thenS, elseS   *node

	// static knowledge for unevaluated*: every property or item is evaluated
	// by this schema itself whenever it passes.
	allPropsEvaluated bool
	allItemsEvaluated bool
	numItemsEvaluated int
}

type patternProp struct {
	re  *regexp.Regexp
	sch *node
}

// resource is a schema with an $id (or the root): the base of the
// references inside it.
type resource struct {
	id             string // absolute URL
	ptr            string
	anchors        map[string]string // anchor name -> pointer
	dynamicAnchors map[string]*node
	dynAnchorPtrs  map[string]string
	recursive      bool // the resource root has $recursiveAnchor: true
}

const rootURL = "mem:///schema.json"

type compiler struct {
	doc       any
	draft     int
	nodes     map[string]*node
	resources map[string]*resource // by pointer
	byID      map[string]*resource
	walked    map[string]bool // pointers collect has checked
	pending   []*node         // nodes whose keywords are not compiled yet

	unevaluated bool  // some schema has unevaluatedProperties or unevaluatedItems
	err         error // the first error of sub
}

// Compile compiles a schema document decoded from JSON with numbers as
// json.Number. It refuses a document that is not a valid schema, and one
// that refers to anything outside itself.
func Compile(doc any) (*Schema, error) {
	c := &compiler{
		doc:       doc,
		nodes:     map[string]*node{},
		resources: map[string]*resource{},
		byID:      map[string]*resource{},
		walked:    map[string]bool{},
		draft:     2020,
	}
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"].(string); ok {
			d, err := draftOf(s)
			if err != nil {
				return nil, err
			}
			c.draft = d
		}
	} else if _, ok := doc.(bool); !ok {
		return nil, fmt.Errorf("want a JSON object or boolean, got %s", jsoncoerce.TypeName(doc))
	}
	if err := c.collect(doc, "", rootURL, nil); err != nil {
		return nil, err
	}
	root, err := c.nodeAt("")
	if err != nil {
		return nil, err
	}
	if err := c.drain(); err != nil {
		return nil, err
	}
	// schemas with a $dynamicAnchor are reached dynamically: compile them all
	for _, p := range sortedKeys(c.resources) {
		for _, a := range sortedKeys(c.resources[p].dynAnchorPtrs) {
			if _, err := c.nodeAt(c.resources[p].dynAnchorPtrs[a]); err != nil {
				return nil, err
			}
		}
	}
	if err := c.drain(); err != nil {
		return nil, err
	}
	return &Schema{root: root, track: c.unevaluated}, nil
}

func (c *compiler) drain() error {
	for len(c.pending) > 0 {
		n := c.pending[len(c.pending)-1]
		c.pending = c.pending[:len(c.pending)-1]
		if err := c.compileNode(n); err != nil {
			return err
		}
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

func draftOf(s string) (int, error) {
	u, frag, _ := strings.Cut(s, "#")
	if frag == "" {
		if v, ok := strings.CutPrefix(u, "http://"); ok {
			u = v
		} else {
			u = strings.TrimPrefix(u, "https://")
		}
		switch u {
		case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
			return 2020, nil
		case "json-schema.org/draft/2019-09/schema":
			return 2019, nil
		case "json-schema.org/draft-07/schema":
			return 7, nil
		case "json-schema.org/draft-06/schema":
			return 6, nil
		case "json-schema.org/draft-04/schema":
			return 4, nil
		}
	}
	return 0, fmt.Errorf("unsupported $schema %q: want a JSON Schema draft (2020-12, 2019-09, 07, 06 or 04)", s)
}

func (c *compiler) idKeyword() string {
	if c.draft == 4 {
		return "id"
	}
	return "$id"
}

// schemaKeywords lists, per keyword holding subschemas, how it holds them.
const (
	kOne = iota
	kArray
	kMap
	kOneOrArray // draft < 2020 items
	kDeps       // dependencies: map of schemas or string lists
)

func (c *compiler) subschemaKeywords() map[string]int {
	m := map[string]int{
		"not": kOne, "allOf": kArray, "anyOf": kArray, "oneOf": kArray,
		"properties": kMap, "patternProperties": kMap, "additionalProperties": kOne,
		"definitions": kMap, "dependencies": kDeps,
	}
	if c.draft < 2020 {
		m["items"] = kOneOrArray
		m["additionalItems"] = kOne
	} else {
		m["items"] = kOne
		m["prefixItems"] = kArray
	}
	if c.draft >= 6 {
		m["contains"] = kOne
		m["propertyNames"] = kOne
	}
	if c.draft >= 7 {
		m["if"], m["then"], m["else"] = kOne, kOne, kOne
	}
	if c.draft >= 2019 {
		m["$defs"] = kMap
		m["dependentSchemas"] = kMap
		m["unevaluatedProperties"] = kOne
		m["unevaluatedItems"] = kOne
		m["contentSchema"] = kOne
		if c.draft == 2019 {
			m["additionalItems"] = kOne
			m["items"] = kOneOrArray
			delete(m, "prefixItems")
		}
	}
	return m
}

// collect walks the schemas of the document, checking each is well formed
// and recording resources ($id) and anchors.
func (c *compiler) collect(v any, ptr, base string, res *resource) error {
	obj, ok := v.(map[string]any)
	if !ok {
		if _, ok := v.(bool); ok && c.draft != 4 {
			return nil
		}
		return fmt.Errorf("at %s: want a schema (an object or a boolean), got %s", quotePtr(ptr), jsoncoerce.TypeName(v))
	}
	if c.walked[ptr] {
		return nil
	}
	c.walked[ptr] = true
	if err := c.checkKeywords(obj, ptr); err != nil {
		return err
	}
	id := c.idOf(obj)
	if id != "" || res == nil {
		abs := base
		if id != "" {
			u, err := resolveURL(base, id)
			if err != nil {
				return fmt.Errorf("at %s: invalid %s %q: %v", quotePtr(ptr), c.idKeyword(), id, err)
			}
			abs = u
		}
		if other, ok := c.byID[abs]; ok && other.ptr != ptr {
			return fmt.Errorf("at %s: %s %q is also the id of %s", quotePtr(ptr), c.idKeyword(), abs, quotePtr(other.ptr))
		}
		res = &resource{id: abs, ptr: ptr, anchors: map[string]string{}, dynamicAnchors: map[string]*node{}, dynAnchorPtrs: map[string]string{}}
		if c.draft == 2019 {
			res.recursive, _ = obj["$recursiveAnchor"].(bool)
		}
		c.resources[ptr] = res
		c.byID[abs] = res
		base = abs
	}
	addAnchor := func(name string) error {
		if p, ok := res.anchors[name]; ok && p != ptr {
			return fmt.Errorf("at %s: anchor %q is also defined at %s", quotePtr(ptr), name, quotePtr(p))
		}
		res.anchors[name] = ptr
		return nil
	}
	if c.draft < 2019 {
		if s, ok := obj[c.idKeyword()].(string); ok && !c.refOverrides(obj) {
			if _, f, ok := strings.Cut(s, "#"); ok && f != "" {
				f, err := url.PathUnescape(f)
				if err != nil {
					return fmt.Errorf("at %s: invalid %s %q", quotePtr(ptr), c.idKeyword(), s)
				}
				if err := addAnchor(f); err != nil {
					return err
				}
			}
		}
	} else {
		if a, ok := obj["$anchor"].(string); ok {
			if err := addAnchor(a); err != nil {
				return err
			}
		}
		if c.draft >= 2020 {
			if a, ok := obj["$dynamicAnchor"].(string); ok {
				if err := addAnchor(a); err != nil {
					return err
				}
				res.dynAnchorPtrs[a] = ptr
			}
		}
	}
	kws := c.subschemaKeywords()
	for _, kw := range sortedKeys(obj) {
		how, ok := kws[kw]
		if !ok {
			continue
		}
		val := obj[kw]
		if _, isBool := val.(bool); isBool && (kw == "additionalProperties" || kw == "additionalItems") {
			continue // draft 4 allows a boolean here only
		}
		p := ptr + "/" + escape(kw)
		switch how {
		case kOne:
			if err := c.collect(val, p, base, res); err != nil {
				return err
			}
		case kArray, kOneOrArray:
			if arr, ok := val.([]any); ok {
				for i, s := range arr {
					if err := c.collect(s, p+"/"+strconv.Itoa(i), base, res); err != nil {
						return err
					}
				}
			} else if err := c.collect(val, p, base, res); err != nil {
				return err
			}
		case kMap, kDeps:
			m := val.(map[string]any)
			for _, k := range sortedKeys(m) {
				if _, isList := m[k].([]any); how == kDeps && isList {
					continue
				}
				if err := c.collect(m[k], p+"/"+escape(k), base, res); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *compiler) refOverrides(obj map[string]any) bool {
	_, ok := obj["$ref"]
	return ok && c.draft < 2019
}

func (c *compiler) idOf(obj map[string]any) string {
	if c.refOverrides(obj) {
		return ""
	}
	s, _ := obj[c.idKeyword()].(string)
	s, _, _ = strings.Cut(s, "#")
	return s
}

func resolveURL(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	out := b.ResolveReference(r)
	if !r.IsAbs() && b.Opaque != "" {
		out.Opaque = b.Opaque
	}
	return out.String(), nil
}

// resourceOf returns the resource a pointer lies in, and the base URL there.
func (c *compiler) resourceOf(ptr string) *resource {
	for p := ptr; ; {
		if r, ok := c.resources[p]; ok {
			return r
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return c.resources[""]
		}
		p = p[:i]
	}
}

// nodeAt returns the node of the schema at a pointer, compiling it later.
func (c *compiler) nodeAt(ptr string) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	v, ok := lookup(c.doc, ptr)
	if !ok {
		return nil, fmt.Errorf("reference to %s: no such location", quotePtr(ptr))
	}
	n := &node{ptr: ptr, draft: c.draft, res: c.resourceOf(ptr)}
	c.nodes[ptr] = n
	if b, ok := v.(bool); ok {
		n.boolean = &b
		return n, nil
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("reference to %s: want a schema, got %s", quotePtr(ptr), jsoncoerce.TypeName(v))
	}
	if !c.walked[ptr] {
		// a schema reached only by reference, outside the walked tree
		if err := c.collect(v, ptr, n.res.id, n.res); err != nil {
			return nil, err
		}
	}
	c.pending = append(c.pending, n)
	return n, nil
}

func lookup(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// resolveRef resolves a reference found in the schema at ptr.
func (c *compiler) resolveRef(n *node, kw, ref string) (*node, error) {
	u, err := resolveURL(n.res.id, ref)
	if err != nil {
		return nil, fmt.Errorf("at %s: invalid %s %q: %v", quotePtr(n.ptr+"/"+escape(kw)), kw, ref, err)
	}
	doc, frag, _ := strings.Cut(u, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	var res *resource
	if doc == rootURL {
		res = c.resources[""]
	} else {
		res = c.byID[doc]
	}
	if res == nil {
		return nil, fmt.Errorf("at %s: %s %q refers to a document outside the schema; only references within it are supported", quotePtr(n.ptr+"/"+escape(kw)), kw, ref)
	}
	var ptr string
	switch {
	case frag == "" || frag[0] == '/':
		ptr = res.ptr + frag
	default:
		p, ok := res.anchors[frag]
		if !ok {
			return nil, fmt.Errorf("at %s: %s %q: no anchor %q", quotePtr(n.ptr+"/"+escape(kw)), kw, ref, frag)
		}
		ptr = p
	}
	t, err := c.nodeAt(ptr)
	if err != nil {
		return nil, fmt.Errorf("at %s: %s %q: %v", quotePtr(n.ptr+"/"+escape(kw)), kw, ref, err)
	}
	return t, nil
}

// sub returns the node of a subschema of n. collect has checked every
// subschema, so an error here is a bug; it is kept for Compile to return.
func (c *compiler) sub(n *node, path ...string) *node {
	p := n.ptr
	for _, s := range path {
		p += "/" + escape(s)
	}
	t, err := c.nodeAt(p)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return &node{ptr: p, boolean: new(bool), res: n.res, draft: n.draft}
	}
	return t
}

func (c *compiler) compileNode(n *node) error {
	v, _ := lookup(c.doc, n.ptr)
	obj := v.(map[string]any)
	n.minProps, n.maxProps = -1, -1
	n.minItems, n.maxItems = -1, -1
	n.minLength, n.maxLength = -1, -1
	n.minContains, n.maxContains = -1, -1

	if r, ok := obj["$ref"].(string); ok {
		t, err := c.resolveRef(n, "$ref", r)
		if err != nil {
			return err
		}
		n.ref = t
		if c.draft < 2019 {
			return nil
		}
	}
	if c.draft == 2019 {
		if r, ok := obj["$recursiveRef"].(string); ok {
			t, err := c.resolveRef(n, "$recursiveRef", r)
			if err != nil {
				return err
			}
			n.recursiveRef = t
		}
		n.recursiveAnchor, _ = obj["$recursiveAnchor"].(bool)
	}
	if c.draft >= 2020 {
		if r, ok := obj["$dynamicRef"].(string); ok {
			t, err := c.resolveRef(n, "$dynamicRef", r)
			if err != nil {
				return err
			}
			n.dynamicRef = t
			if _, f, ok := strings.Cut(r, "#"); ok && f != "" && f[0] != '/' {
				n.dynRefAnchor = f
			}
		}
		if a, ok := obj["$dynamicAnchor"].(string); ok {
			n.ownDynAnchor = a
			n.res.dynamicAnchors[a] = n
		}
	}

	has := func(kw string) bool { _, ok := obj[kw]; return ok }
	arr := func(kw string) []*node {
		a, _ := obj[kw].([]any)
		out := make([]*node, len(a))
		for i := range a {
			out[i] = c.sub(n, kw, strconv.Itoa(i))
		}
		return out
	}
	one := func(kw string) *node {
		if !has(kw) {
			return nil
		}
		return c.sub(n, kw)
	}
	additional := func(kw string) any {
		if b, ok := obj[kw].(bool); ok {
			return b
		}
		if s := one(kw); s != nil {
			return s
		}
		return nil
	}

	// applicators
	n.allOf, n.anyOf, n.oneOf = arr("allOf"), arr("anyOf"), arr("oneOf")
	n.not = one("not")
	if c.draft < 2020 {
		if _, ok := obj["items"].([]any); ok {
			n.itemsList = arr("items")
			n.additionalItems = additional("additionalItems")
		} else {
			n.items = one("items")
		}
	} else {
		n.itemsList = arr("prefixItems")
		n.items = one("items")
	}
	if m, ok := obj["properties"].(map[string]any); ok {
		n.properties = map[string]*node{}
		for k := range m {
			n.properties[k] = c.sub(n, "properties", k)
		}
	}
	if m, ok := obj["patternProperties"].(map[string]any); ok {
		for _, k := range sortedKeys(m) {
			re, err := regexp.Compile(k)
			if err != nil {
				return fmt.Errorf("at %s: invalid regular expression %q: %v", quotePtr(n.ptr+"/patternProperties"), k, err)
			}
			n.patternProperties = append(n.patternProperties, patternProp{re, c.sub(n, "patternProperties", k)})
		}
	}
	n.additionalProperties = additional("additionalProperties")
	if m, ok := obj["dependencies"].(map[string]any); ok {
		n.dependencies = map[string]any{}
		for k, d := range m {
			if l, ok := d.([]any); ok {
				n.dependencies[k] = stringsOf(l)
			} else {
				n.dependencies[k] = c.sub(n, "dependencies", k)
			}
		}
	}
	if c.draft >= 6 {
		n.contains = one("contains")
		n.propertyNames = one("propertyNames")
		if v, ok := obj["const"]; ok {
			n.hasConst, n.constVal = true, v
		}
	}
	if c.draft >= 7 && has("if") {
		n.ifS = one("if")
		b, isBool := obj["if"].(bool)
		if !isBool || b {
			n.thenS = one("then")
		}
		if !isBool || !b {
			n.elseS = one("else")
		}
	}
	if c.draft >= 2019 {
		if n.contains != nil {
			n.minContains = intOr(obj["minContains"], -1)
			n.maxContains = intOr(obj["maxContains"], -1)
		}
		if m, ok := obj["dependentRequired"].(map[string]any); ok {
			n.dependentRequired = map[string][]string{}
			for k, d := range m {
				if l, ok := d.([]any); ok {
					n.dependentRequired[k] = stringsOf(l)
				}
			}
		}
		if m, ok := obj["dependentSchemas"].(map[string]any); ok {
			n.dependentSchemas = map[string]*node{}
			for k := range m {
				n.dependentSchemas[k] = c.sub(n, "dependentSchemas", k)
			}
		}
		n.unevalProps = one("unevaluatedProperties")
		n.unevalItems = one("unevaluatedItems")
		if n.unevalProps != nil || n.unevalItems != nil {
			c.unevaluated = true
		}
	}

	// assertions
	if t, ok := obj["type"]; ok {
		switch t := t.(type) {
		case string:
			n.types = typeBit(t)
		case []any:
			for _, x := range t {
				if s, ok := x.(string); ok {
					n.types |= typeBit(s)
				}
			}
		}
	}
	if e, ok := obj["enum"].([]any); ok {
		n.hasEnum, n.enum = true, e
	}
	n.multipleOf = ratOf(obj["multipleOf"])
	n.maximum = ratOf(obj["maximum"])
	if b, _ := obj["exclusiveMaximum"].(bool); b {
		n.exclMaximum, n.maximum = n.maximum, nil
	} else {
		n.exclMaximum = ratOf(obj["exclusiveMaximum"])
	}
	n.minimum = ratOf(obj["minimum"])
	if b, _ := obj["exclusiveMinimum"].(bool); b {
		n.exclMinimum, n.minimum = n.minimum, nil
	} else {
		n.exclMinimum = ratOf(obj["exclusiveMinimum"])
	}
	n.minLength = intOr(obj["minLength"], -1)
	n.maxLength = intOr(obj["maxLength"], -1)
	if p, ok := obj["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return fmt.Errorf("at %s: invalid regular expression %q: %v", quotePtr(n.ptr+"/pattern"), p, err)
		}
		n.pattern = re
	}
	n.minItems = intOr(obj["minItems"], -1)
	n.maxItems = intOr(obj["maxItems"], -1)
	n.uniqueItems, _ = obj["uniqueItems"].(bool)
	n.minProps = intOr(obj["minProperties"], -1)
	n.maxProps = intOr(obj["maxProperties"], -1)
	if l, ok := obj["required"].([]any); ok {
		n.required = stringsOf(l)
	}
	if c.draft < 2019 {
		if f, ok := obj["format"].(string); ok {
			n.format = formatNamed(f)
		}
	}

	// what passing this schema evaluates by itself, for unevaluated*
	n.allPropsEvaluated = n.additionalProperties != nil
	if c.draft < 2020 && n.itemsList != nil {
		n.allItemsEvaluated = n.additionalItems != nil
	} else {
		n.allItemsEvaluated = n.items != nil
	}
	n.numItemsEvaluated = len(n.itemsList)
	return nil
}

func stringsOf(l []any) []string {
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func ratOf(v any) *big.Rat {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil
	}
	return r
}

func intOr(v any, def int) int {
	r := ratOf(v)
	if r == nil || !r.IsInt() {
		return def
	}
	if !r.Num().IsInt64() || r.Num().Int64() > int64(^uint(0)>>1) {
		return int(^uint(0) >> 1)
	}
	return int(r.Num().Int64())
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func quotePtr(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return strconv.Quote(ptr)
}
