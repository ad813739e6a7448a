package textcalls

import "strings"

// xmlishCall reads the body of a declared "xml" family: one call, the tool's
// name first, then one tag a value. The name is the text before the first
// tag, or the name of a tag that wraps the values (<function=name> or
// <invoke name="name">, closed by its </function> or </invoke>). A value is
// written <parameter=k>v</parameter>, <param name="k">v</param>, <k>v</k>
// or <arg_key>k</arg_key><arg_value>v</arg_value>, its text verbatim
// (CDATA allowed) and typed by the tool's schema. Anything else in the body
// (text between the values, a value left open, a key given twice) makes it
// no call: the declaration is strict, as an engine's parser is.
//
// With open (a family without an end token, whose body runs on to the next
// start or the end of the text), the call may end before the body does: at
// the end of the line its last value (or the wrapper) closes on, the text on
// the lines after it left out. n is the length of b the call takes.
func xmlishCall(b string, open bool) (name string, args map[string]any, n int, ok bool) {
	p := skipSpace(b, 0)
	if strings.HasPrefix(b[p:], "<") {
		tag, key, end, ok := openTag(b, p)
		if !ok || key == "" {
			return "", nil, 0, false
		}
		closeTok := "</" + tag + ">"
		k := strings.LastIndex(b, closeTok)
		if open {
			k = strings.Index(b[end:], closeTok)
			if k >= 0 {
				k += end
			}
		}
		if k < end {
			return "", nil, 0, false
		}
		args, stop, ok := xmlishValues(b[:k], end, false)
		if !ok || !isBlank(b[stop:k]) {
			return "", nil, 0, false
		}
		n = k + len(closeTok)
		if !restOK(b[n:], open) {
			return "", nil, 0, false
		}
		return key, args, n, isIdent(key)
	}
	lt := strings.IndexByte(b[p:], '<')
	if lt < 0 {
		lt = len(b) - p
	}
	if open {
		if nl := strings.IndexByte(b[p:p+lt], '\n'); nl >= 0 && strings.TrimSpace(b[p+nl:p+lt]) != "" {
			lt = nl // the name alone on its line, prose after it
		}
	}
	name = strings.TrimSpace(b[p : p+lt])
	if !isIdent(name) {
		return "", nil, 0, false
	}
	args, stop, ok := xmlishValues(b, p+lt, open)
	if !ok {
		return "", nil, 0, false
	}
	if stop == p+lt {
		stop = p + len(strings.TrimRight(b[p:p+lt], " \t\r\n"))
	}
	if !restOK(b[stop:], open) {
		return "", nil, 0, false
	}
	return name, args, stop, true
}

// restOK reports whether the text after a call in its body may stay: only
// space, or, with open, text on the lines after the call's own.
func restOK(rest string, open bool) bool {
	if isBlank(rest) {
		return true
	}
	t := strings.TrimLeft(rest, " \t\r")
	return open && strings.HasPrefix(t, "\n")
}

// xmlishValues reads the values of an xml body (see xmlishCall) from t[p:]
// and returns where they end. With open, text that starts on a line after
// the last value ends them rather than making the body no call.
func xmlishValues(t string, p int, open bool) (map[string]any, int, bool) {
	args := map[string]any{}
	stop := p
	for p = skipSpace(t, p); p < len(t); p = skipSpace(t, p) {
		tag, key, vs, ok := openTag(t, p)
		if !ok || strings.HasPrefix(tag, "/") {
			if open && strings.Contains(t[stop:p], "\n") {
				return args, stop, true
			}
			return nil, 0, false
		}
		if tag == "arg_key" && key == "" {
			ke := strings.Index(t[vs:], "</arg_key>")
			if ke < 0 {
				return nil, 0, false
			}
			key = strings.TrimSpace(t[vs : vs+ke])
			q := skipSpace(t, vs+ke+len("</arg_key>"))
			if !strings.HasPrefix(t[q:], "<arg_value>") {
				return nil, 0, false
			}
			tag, vs = "arg_value", q+len("<arg_value>")
		} else if key == "" {
			key = tag
		}
		val, next, closed := paramValue(t, vs, len(t), "</"+tag+">")
		if !closed || key == "" {
			return nil, 0, false
		}
		if _, dup := args[key]; dup {
			return nil, 0, false
		}
		args[key] = val
		p, stop = next, next
	}
	return args, stop, true
}

// openTag reads the tag that starts at t[p]: <tag>, <tag=key> or
// <tag name="key"> (other attributes ignored). end is the index after its
// '>'.
func openTag(t string, p int) (tag, key string, end int, ok bool) {
	if p >= len(t) || t[p] != '<' {
		return "", "", 0, false
	}
	gt := strings.IndexByte(t[p:], '>')
	if gt < 0 {
		return "", "", 0, false
	}
	inner := t[p+1 : p+gt]
	end = p + gt + 1
	if strings.ContainsAny(inner, "<\n") || inner == "" {
		return "", "", 0, false
	}
	tag = inner
	if k := strings.IndexAny(inner, " \t="); k >= 0 {
		tag = inner[:k]
		if inner[k] == '=' {
			key = strings.Trim(strings.TrimSpace(inner[k+1:]), `"'`)
		} else if v, found := attr(inner[k:], "name"); found {
			key = v
		}
	}
	return tag, strings.TrimSpace(key), end, tag != ""
}
