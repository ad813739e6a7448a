package textcalls

import "strings"

// jsonCalls reads calls out of a decoded JSON value in any of the common shapes:
// {"name", "arguments"|"parameters"|"args"|"input"}, {"function": {...}},
// {"tool_name", "parameters"} (Command R, Forge), {"tool_calls": [...]}, or a list
// of those. With nameKeys, {"tool": {...}} (a single key naming the tool) also counts.
func jsonCalls(v any, nameKeys bool) []rawCall {
	return jsonCallsDepth(v, nameKeys, 0)
}

// maxCallNesting is how deep jsonCalls looks for calls: the deepest real shape,
// a list of {"tool_calls": [{"function": ...}]}, reaches 3; calls buried deeper
// are data, not calls.
const maxCallNesting = 4

func jsonCallsDepth(v any, nameKeys bool, depth int) []rawCall {
	if depth > maxCallNesting {
		return nil
	}
	switch x := v.(type) {
	case []any:
		var out []rawCall
		for _, e := range x {
			out = append(out, jsonCallsDepth(e, nameKeys, depth+1)...)
		}
		return out
	case map[string]any:
		if tc, ok := x["tool_calls"].([]any); ok {
			return jsonCallsDepth(tc, nameKeys, depth+1)
		}
		if fn, ok := x["function"].(map[string]any); ok {
			if c, ok := callFromObject(fn); ok {
				return []rawCall{c}
			}
		}
		if c, ok := callFromObject(x); ok {
			return []rawCall{c}
		}
		if nameKeys && len(x) == 1 {
			for k, a := range x {
				if _, isObj := a.(map[string]any); isObj {
					return []rawCall{{name: k, args: a}}
				}
			}
		}
	}
	return nil
}

// callFromObject reads one {"name", "arguments"} shaped object.
func callFromObject(x map[string]any) (rawCall, bool) {
	name, _ := x["name"].(string)
	if name == "" {
		name, _ = x["tool_name"].(string)
	}
	if name == "" {
		return rawCall{}, false
	}
	var args any
	present := false
	for _, k := range []string{"arguments", "parameters", "args", "input"} {
		if a, ok := x[k]; ok {
			args, present = a, true
			break
		}
	}
	if !present {
		// Only a name and bookkeeping keys: a call without arguments.
		for k := range x {
			switch k {
			case "name", "tool_name", "server_name", "id", "type", "tool_call_id":
			default:
				return rawCall{}, false
			}
		}
	}
	if s, ok := args.(string); ok {
		return rawCall{name: name, args: s, argsRaw: true}, true
	}
	return rawCall{name: name, args: args}, true
}

// parseJSONAt decodes the JSON value ({ or [) starting at or after i (after
// space), repairing it if needed; an unclosed value runs to limit. It returns
// the value and the index after it.
func (s *source) parseJSONAt(i, limit int) (v jsonValue, end int, ok bool) {
	text := s.text
	i = skipSpace(text, i)
	if i >= limit || (text[i] != '{' && text[i] != '[') {
		return jsonValue{}, i, false
	}
	end = matchBracket(text[:limit], i)
	if end < 0 {
		if s.cutOff(limit) {
			return jsonValue{}, i, false
		}
		end = limit
	}
	v.v, v.fixes, ok = decodeRepaired(text[i:end])
	return v, end, ok
}

// parseArgsAt is parseJSONAt for a body that holds the arguments and nothing
// else: text after the value makes it no call, as engines decode the whole
// body.
func (s *source) parseArgsAt(i, limit int) (jsonValue, bool) {
	v, end, ok := s.parseJSONAt(i, limit)
	return v, ok && isBlank(s.text[end:limit])
}

// cutOff reports whether a value left open at limit was cut off with the response:
// nothing follows it but space or part of a closing tag (no complete token). Such a
// call is not extracted, though the repair cascade could close it, because its
// arguments would be invented; a value left open before a closing tag is a slip
// that repair may fix.
//
// It answers from the position of the text's last > or ], found once per
// source: scanning the rest at every call made an opener repeated many times
// quadratic.
func (s *source) cutOff(limit int) bool {
	if s.lastCloser == unknownCloser {
		s.lastCloser = strings.LastIndexAny(s.text, ">]")
	}
	return s.lastCloser < limit
}

// jsonValue is a decoded JSON value and the repair fixes it needed.
type jsonValue struct {
	v     any
	fixes []string
}

// calls returns the calls in the value (see jsonCalls), carrying its fixes.
func (j jsonValue) calls(nameKeys bool) []rawCall {
	out := jsonCalls(j.v, nameKeys)
	for k := range out {
		out[k].fixes = j.fixes
	}
	return out
}

// call returns a call of the given name with the value as arguments.
func (j jsonValue) call(name string) rawCall {
	return rawCall{name: name, args: j.v, fixes: j.fixes}
}

// parseJSONSeq decodes one or more JSON values in text[i:limit] separated by
// space, commas or semicolons; the whole range must be consumed. It stops
// after MaxCallsPerMessage+1 values, more than a message may hold (Extract
// refuses the envelope), so a huge text costs no more than that many.
func (s *source) parseJSONSeq(i, limit int) ([]jsonValue, bool) {
	out, _, ok := s.parseJSONSeqEnd(i, limit)
	return out, ok
}

// parseJSONSeqEnd is parseJSONSeq that also returns where the last value
// ends (i when there is none).
func (s *source) parseJSONSeqEnd(i, limit int) ([]jsonValue, int, bool) {
	text := s.text
	var out []jsonValue
	stop := i
	for {
		i = skipSpace(text, i)
		for i < limit && (text[i] == ',' || text[i] == ';') {
			i = skipSpace(text, i+1)
		}
		if i >= limit {
			return out, stop, len(out) > 0
		}
		v, end, ok := s.parseJSONAt(i, limit)
		if !ok {
			return out, stop, false
		}
		out = append(out, v)
		if len(out) > MaxCallsPerMessage {
			return out, end, true
		}
		i, stop = end, end
	}
}

// bodyParser reads a call from the body text[body:limit] of a tag and returns
// where the call ends (limit when it takes the whole body); ok is false when
// there is none.
type bodyParser func(body, limit int) (c rawCall, stop int, ok bool)

// findTagged finds JSON calls between open and close tokens (close may be missing:
// the body then runs to the next open or the end, and an envelope left open
// ends with its last call, leaving the text after it as content). nameKeys as
// for jsonCalls.
// orElse, when not nil, reads a body that holds no JSON call. As engines do, a
// body holding a JSON value that is no call (two objects in a row, the first
// no call) yields no call at all.
func findTagged(s *source, open, close string, nameKeys bool, orElse bodyParser) found {
	var f found
	s.eachTag(open, close, func(i, body, limit, end int) {
		vals, stop, _ := s.parseJSONSeqEnd(body, limit)
		var calls []rawCall
		for _, v := range vals {
			cs := v.calls(nameKeys)
			if len(cs) == 0 {
				calls = nil
				break
			}
			calls = append(calls, cs...)
		}
		if len(vals) == 0 && orElse != nil {
			if c, e, ok := orElse(body, limit); ok {
				calls, stop = append(calls, c), e
			}
		}
		cut := cutAt(s.text, end, close)
		if end == limit && len(calls) > 0 && !isBlank(s.text[stop:limit]) {
			// Not closed, and text follows the calls: the envelope ends
			// with them, and the text after them stays content.
			end, cut = stop, false
		}
		for _, c := range calls {
			c.cut = cut
			f.add(c, span{i, end})
		}
	})
	return f
}
