package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one failing value: its JSON pointer in the instance ("" is the
// whole value) and what is wrong with it.
type Error struct {
	Path    string
	Message string
}

// Validate returns the failures of v, or nil when v is valid. v is a decoded
// JSON value, numbers as json.Number (float64 and Go integers work too).
// Each failure is a leaf: where an applicator (allOf, anyOf, oneOf, $ref...)
// fails, the failures of its subschemas are reported instead of it. The order
// of the result is unspecified and it may hold duplicates.
func (s *Schema) Validate(v any) []Error {
	vd := validator{track: s.track}
	errs, ok, _ := vd.check(s.root, v, nil, &frame{n: s.root}, true)
	if ok {
		return nil
	}
	return errs
}

// Valid reports whether v is valid, without building messages.
func (s *Schema) Valid(v any) bool {
	vd := validator{track: s.track}
	_, ok, _ := vd.check(s.root, v, nil, &frame{n: s.root}, false)
	return ok
}

type validator struct {
	track bool // compute the evaluated properties and items
}

// loc is an instance location, built as a list from the leaf.
type loc struct {
	tok    string
	parent *loc
}

func (l *loc) pointer() string {
	if l == nil {
		return ""
	}
	var toks []string
	for ; l != nil; l = l.parent {
		toks = append(toks, l.tok)
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(escape(toks[i]))
	}
	return b.String()
}

// frame is the dynamic scope: the schemas being applied, innermost first.
type frame struct {
	n      *node
	vid    int // instance depth: frames of one value share it
	parent *frame
}

// ann is what a passing schema evaluated, for unevaluated*: nil when not
// tracked.
type ann struct {
	props    map[string]bool
	allProps bool
	items    map[int]bool
	allItems bool
}

func (a *ann) merge(b *ann) {
	if a == nil || b == nil {
		return
	}
	if b.allProps {
		a.allProps = true
	}
	for k := range b.props {
		if a.props == nil {
			a.props = map[string]bool{}
		}
		a.props[k] = true
	}
	if b.allItems {
		a.allItems = true
	}
	for k := range b.items {
		if a.items == nil {
			a.items = map[int]bool{}
		}
		a.items[k] = true
	}
}

func (a *ann) prop(k string) {
	if a == nil {
		return
	}
	if a.props == nil {
		a.props = map[string]bool{}
	}
	a.props[k] = true
}

func (a *ann) item(i int) {
	if a == nil {
		return
	}
	if a.items == nil {
		a.items = map[int]bool{}
	}
	a.items[i] = true
}

func leaf(at *loc, msg string) []Error {
	return []Error{{Path: at.pointer(), Message: msg}}
}

// check applies n to v. It returns the leaf failures (only when collect is
// set: otherwise just the verdict) and, when the validator tracks them and
// v passes, what n evaluated.
func (vd *validator) check(n *node, v any, at *loc, sc *frame, collect bool) (errs []Error, ok bool, a *ann) {
	fail := func(msg string) ([]Error, bool, *ann) {
		if !collect {
			return nil, false, nil
		}
		return leaf(at, msg), false, nil
	}
	if n.boolean != nil {
		if *n.boolean {
			return nil, true, vd.newAnn()
		}
		return fail("false schema")
	}
	for p := sc.parent; p != nil && p.vid == sc.vid; p = p.parent {
		if p.n == n {
			return fail(fmt.Sprintf("reference cycle: %s applies itself to the same value", quotePtr(n.ptr)))
		}
	}

	t := typeOf(v)
	if t == 0 {
		return fail(fmt.Sprintf("invalid jsonType %T", v))
	}
	if n.types != 0 && n.types&t == 0 && !(n.types&tInteger != 0 && t == tNumber && isInteger(v)) {
		var want []string
		for i, name := range typeNames {
			if n.types&(1<<i) != 0 {
				want = append(want, name)
			}
		}
		return fail("got " + typeNames[bitIndex(t)] + ", want " + strings.Join(want, " or "))
	}
	if n.hasConst && !equals(v, n.constVal) {
		switch n.constVal.(type) {
		case []any, map[string]any:
			return fail("'const' failed")
		}
		return fail("value must be " + display(n.constVal))
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return equals(v, e) }) {
		return fail(enumMessage(n.enum))
	}
	if n.format != nil {
		if s, isStr := v.(string); isStr {
			if err := n.format.check(s); err != nil {
				return fail(fmt.Sprintf("%s is not valid %s: %v", quote(s), n.format.name, err))
			}
		}
	}

	a = vd.newAnn()
	if vd.track {
		if n.allPropsEvaluated {
			a.allProps = true
		}
		if n.allItemsEvaluated {
			a.allItems = true
		}
		for i := 0; i < n.numItemsEvaluated; i++ {
			a.item(i)
		}
	}
	failed := false
	add := func(e []Error, good bool) {
		if !good {
			failed = true
			errs = append(errs, e...)
		}
	}
	addMsg := func(msg string) {
		failed = true
		if collect {
			errs = append(errs, Error{at.pointer(), msg})
		}
	}
	inPlace := func(s *node, coll bool) ([]Error, bool) {
		e, good, sa := vd.check(s, v, at, &frame{n: s, vid: sc.vid, parent: sc}, coll)
		if good {
			a.merge(sa)
		}
		return e, good
	}
	child := func(s *node, x any, tok string) ([]Error, bool) {
		e, good, _ := vd.check(s, x, &loc{tok, at}, &frame{n: s, vid: sc.vid + 1, parent: sc}, collect)
		return e, good
	}

	if n.ref != nil {
		e, good := inPlace(n.ref, collect)
		if n.draft < 2019 {
			if !good {
				return e, false, nil
			}
			return nil, true, a
		}
		add(e, good)
	}

	switch x := v.(type) {
	case map[string]any:
		vd.checkObject(n, x, at, collect, a, add, addMsg, inPlace, child)
	case []any:
		vd.checkArray(n, x, at, collect, a, add, addMsg, child)
	case string:
		vd.checkString(n, x, addMsg)
	case nil, bool:
	default:
		vd.checkNumber(n, v, addMsg)
	}

	if failed && !collect {
		return nil, false, nil
	}

	// $recursiveRef, $dynamicRef
	if r := n.recursiveRef; r != nil {
		target := r
		if r.recursiveAnchor {
			for f := sc; f != nil; f = f.parent {
				if f.n.res != nil && f.n.res.recursive {
					target = f.n
				}
			}
		}
		add(inPlace(target, collect))
	}
	if r := n.dynamicRef; r != nil {
		target := r
		if n.dynRefAnchor != "" && r.ownDynAnchor == n.dynRefAnchor {
			for f := sc; f != nil; f = f.parent {
				if f.n.res == nil {
					continue
				}
				if d, ok := f.n.res.dynamicAnchors[n.dynRefAnchor]; ok {
					target = d
				}
			}
		}
		add(inPlace(target, collect))
	}

	if n.not != nil {
		if _, good := inPlace(n.not, false); good {
			addMsg("'not' failed")
		}
	}
	for _, s := range n.allOf {
		e, good := inPlace(s, collect)
		add(e, good)
		if !good && !collect {
			break
		}
	}
	if len(n.anyOf) > 0 {
		var all []Error
		matched := false
		for _, s := range n.anyOf {
			e, good := inPlace(s, collect && !matched)
			if good {
				matched = true
				if !vd.track {
					break
				}
			} else if !matched {
				all = append(all, e...)
			}
		}
		if !matched {
			add(all, false)
		}
	}
	if len(n.oneOf) > 0 {
		var all []Error
		matched := -1
		for i, s := range n.oneOf {
			e, good := inPlace(s, collect && matched == -1)
			if !good {
				if matched == -1 {
					all = append(all, e...)
				}
				continue
			}
			if matched == -1 {
				matched = i
				continue
			}
			addMsg(fmt.Sprintf("'oneOf' failed, subschemas %s, %s matched", fmtInt(matched), fmtInt(i)))
			break
		}
		if matched == -1 {
			add(all, false)
		}
	}
	if n.ifS != nil {
		if _, good := inPlace(n.ifS, false); good {
			if n.thenS != nil {
				add(inPlace(n.thenS, collect))
			}
		} else if n.elseS != nil {
			add(inPlace(n.elseS, collect))
		}
	}

	if vd.track && (!failed || collect) {
		if obj, isObj := v.(map[string]any); isObj && n.unevalProps != nil && !a.allProps {
			for _, k := range sortedKeys(obj) {
				if !a.props[k] {
					add(child(n.unevalProps, obj[k], k))
				}
			}
			a.allProps = true
		}
		if arr, isArr := v.([]any); isArr && n.unevalItems != nil && !a.allItems {
			for i, x := range arr {
				if !a.items[i] {
					add(child(n.unevalItems, x, strconv.Itoa(i)))
				}
			}
			a.allItems = true
		}
	}

	if failed {
		return errs, false, nil
	}
	return nil, true, a
}

func (vd *validator) newAnn() *ann {
	if !vd.track {
		return nil
	}
	return &ann{}
}

func (vd *validator) checkObject(n *node, obj map[string]any, at *loc, collect bool, a *ann,
	add func([]Error, bool), addMsg func(string),
	inPlace func(*node, bool) ([]Error, bool), child func(*node, any, string) ([]Error, bool)) {
	if n.minProps >= 0 && len(obj) < n.minProps {
		addMsg("minProperties: got " + fmtInt(len(obj)) + ", want " + fmtInt(n.minProps))
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		addMsg("maxProperties: got " + fmtInt(len(obj)) + ", want " + fmtInt(n.maxProps))
	}
	if missing := findMissing(obj, n.required); len(missing) > 0 {
		if len(missing) == 1 {
			addMsg("missing property " + quote(missing[0]))
		} else {
			addMsg("missing properties " + joinQuoted(missing))
		}
	}
	for _, k := range sortedKeys(n.dependencies) {
		if _, ok := obj[k]; !ok {
			continue
		}
		switch d := n.dependencies[k].(type) {
		case []string:
			if missing := findMissing(obj, d); len(missing) > 0 {
				addMsg("properties " + joinQuoted(missing) + " required, if " + quote(k) + " exists")
			}
		case *node:
			add(inPlace(d, collect))
		}
	}
	var extra []string
	for _, k := range sortedKeys(obj) {
		val := obj[k]
		evaluated := false
		if s, ok := n.properties[k]; ok {
			evaluated = true
			add(child(s, val, k))
		}
		for _, pp := range n.patternProperties {
			if pp.re.MatchString(k) {
				evaluated = true
				add(child(pp.sch, val, k))
			}
		}
		if !evaluated && n.additionalProperties != nil {
			evaluated = true
			switch ap := n.additionalProperties.(type) {
			case bool:
				if !ap {
					extra = append(extra, k)
				}
			case *node:
				add(child(ap, val, k))
			}
		}
		if evaluated {
			a.prop(k)
		}
	}
	if len(extra) > 0 {
		addMsg("additional properties " + joinQuoted(extra) + " not allowed")
	}
	if n.propertyNames != nil {
		for _, k := range sortedKeys(obj) {
			// a property name is validated as a value of its own: its
			// failures are at "", not at the object
			e, good, _ := vd.check(n.propertyNames, k, nil, &frame{n: n.propertyNames}, collect)
			add(e, good)
		}
	}
	for _, k := range sortedKeys(n.dependentSchemas) {
		if _, ok := obj[k]; ok {
			add(inPlace(n.dependentSchemas[k], collect))
		}
	}
	for _, k := range sortedKeys(n.dependentRequired) {
		if _, ok := obj[k]; !ok {
			continue
		}
		if missing := findMissing(obj, n.dependentRequired[k]); len(missing) > 0 {
			addMsg("properties " + joinQuoted(missing) + " required, if " + quote(k) + " exists")
		}
	}
}

func findMissing(obj map[string]any, names []string) []string {
	var missing []string
	for _, k := range names {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	return missing
}

func (vd *validator) checkArray(n *node, arr []any, at *loc, collect bool, a *ann,
	add func([]Error, bool), addMsg func(string), child func(*node, any, string) ([]Error, bool)) {
	if n.minItems >= 0 && len(arr) < n.minItems {
		addMsg("minItems: got " + fmtInt(len(arr)) + ", want " + fmtInt(n.minItems))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		addMsg("maxItems: got " + fmtInt(len(arr)) + ", want " + fmtInt(n.maxItems))
	}
	if n.uniqueItems && len(arr) > 1 {
		if i, j := duplicates(arr); i >= 0 {
			addMsg("items at " + fmtInt(i) + " and " + fmtInt(j) + " are equal")
		}
	}
	prefix := min(len(n.itemsList), len(arr))
	for i := range prefix {
		add(child(n.itemsList[i], arr[i], strconv.Itoa(i)))
	}
	if n.items != nil {
		for i := prefix; i < len(arr); i++ {
			add(child(n.items, arr[i], strconv.Itoa(i)))
		}
	} else if n.additionalItems != nil && n.itemsList != nil {
		switch ai := n.additionalItems.(type) {
		case bool:
			if !ai && prefix != len(arr) {
				addMsg("last " + fmtInt(len(arr)-prefix) + " additionalItem(s) not allowed")
			}
		case *node:
			for i := prefix; i < len(arr); i++ {
				add(child(ai, arr[i], strconv.Itoa(i)))
			}
		}
	}
	if n.contains == nil {
		return
	}
	var errs []Error
	var matched []int
	for i, x := range arr {
		e, good := child(n.contains, x, strconv.Itoa(i))
		if good {
			matched = append(matched, i)
			if n.draft >= 2020 {
				a.item(i)
			}
		} else {
			errs = append(errs, e...)
		}
	}
	if n.minContains >= 0 {
		if len(matched) < n.minContains {
			if len(errs) == 0 {
				if len(matched) == 0 {
					addMsg("min " + fmtInt(n.minContains) + " items required to match contains schema, but none matched")
				} else {
					addMsg("min " + fmtInt(n.minContains) + " items required to match contains schema, but matched " + fmtInt(len(matched)) + " items at " + intList(matched))
				}
			} else {
				add(errs, false)
			}
		}
	} else if len(matched) == 0 {
		if len(errs) == 0 {
			addMsg("no items match contains schema")
		} else {
			add(errs, false)
		}
	}
	if n.maxContains >= 0 && len(matched) > n.maxContains {
		addMsg("max " + fmtInt(n.maxContains) + " items required to match contains schema, but matched " + fmtInt(len(matched)) + " items at " + intList(matched))
	}
}

// intList renders indexes as fmt renders an []int, without the brackets.
func intList(l []int) string {
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}

func (vd *validator) checkString(n *node, s string, addMsg func(string)) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			addMsg("minLength: got " + fmtInt(l) + ", want " + fmtInt(n.minLength))
		}
		if n.maxLength >= 0 && l > n.maxLength {
			addMsg("maxLength: got " + fmtInt(l) + ", want " + fmtInt(n.maxLength))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		addMsg(quote(s) + " does not match pattern " + quote(n.pattern.String()))
	}
}

func (vd *validator) checkNumber(n *node, v any, addMsg func(string)) {
	if n.minimum == nil && n.maximum == nil && n.exclMinimum == nil && n.exclMaximum == nil && n.multipleOf == nil {
		return
	}
	x := numberOf(v)
	if x == nil {
		return
	}
	if n.minimum != nil && x.Cmp(n.minimum) < 0 {
		addMsg("minimum: got " + fmtRat(x) + ", want " + fmtRat(n.minimum))
	}
	if n.maximum != nil && x.Cmp(n.maximum) > 0 {
		addMsg("maximum: got " + fmtRat(x) + ", want " + fmtRat(n.maximum))
	}
	if n.exclMinimum != nil && x.Cmp(n.exclMinimum) <= 0 {
		addMsg("exclusiveMinimum: got " + fmtRat(x) + ", want " + fmtRat(n.exclMinimum))
	}
	if n.exclMaximum != nil && x.Cmp(n.exclMaximum) >= 0 {
		addMsg("exclusiveMaximum: got " + fmtRat(x) + ", want " + fmtRat(n.exclMaximum))
	}
	if n.multipleOf != nil && n.multipleOf.Sign() != 0 {
		if !new(big.Rat).Quo(x, n.multipleOf).IsInt() {
			addMsg("multipleOf: got " + fmtRat(x) + ", want " + fmtRat(n.multipleOf))
		}
	}
}

// typeOf returns the type bit of a decoded JSON value, 0 for anything else.
func typeOf(v any) int {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0
		}
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

func bitIndex(t int) int {
	for i := range typeNames {
		if t == 1<<i {
			return i
		}
	}
	return 0
}

// numberOf returns a number's exact value.
func numberOf(v any) *big.Rat {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = string(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		text = strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		text = strconv.FormatFloat(float64(v), 'g', -1, 32)
	default:
		text = fmt.Sprint(v)
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil
	}
	return r
}

func isInteger(v any) bool {
	if n, ok := v.(json.Number); ok && !strings.ContainsAny(string(n), ".eE") {
		_, err := strconv.ParseInt(string(n), 10, 64)
		if err == nil {
			return true
		}
	}
	r := numberOf(v)
	return r != nil && r.IsInt()
}

// equals is JSON equality: numbers by value, objects regardless of order.
func equals(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, ok := b[k]
			if !ok || !equals(x, y) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equals(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && a == y
	case string:
		y, ok := b.(string)
		return ok && a == y
	}
	if typeOf(a) != tNumber || typeOf(b) != tNumber {
		return false
	}
	if x, ok := a.(json.Number); ok {
		if y, ok := b.(json.Number); ok && x == y {
			return true
		}
	}
	x, y := numberOf(a), numberOf(b)
	return x != nil && y != nil && x.Cmp(y) == 0
}

// duplicates returns the first pair of equal items: j is the smallest index
// equal to an earlier item, i the first such earlier item; -1 when all are
// distinct.
func duplicates(arr []any) (int, int) {
	if len(arr) <= 20 {
		for j := 1; j < len(arr); j++ {
			for i := range j {
				if equals(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := map[string][]int{}
	for j, x := range arr {
		key := canonical(x)
		for _, i := range seen[key] {
			if equals(arr[i], x) {
				return i, j
			}
		}
		seen[key] = append(seen[key], j)
	}
	return -1, -1
}

// canonical renders a value so that equal values render alike.
func canonical(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			b.WriteByte('{')
			for _, k := range sortedKeys(v) {
				b.WriteString(strconv.Quote(k))
				b.WriteByte(':')
				walk(v[k])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for _, x := range v {
				walk(x)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case string:
			b.WriteString(strconv.Quote(v))
		case nil:
			b.WriteString("null")
		case bool:
			b.WriteString(strconv.FormatBool(v))
		default:
			if r := numberOf(v); r != nil {
				b.WriteString(r.RatString())
			} else {
				b.WriteString("?")
			}
		}
	}
	walk(v)
	return b.String()
}
