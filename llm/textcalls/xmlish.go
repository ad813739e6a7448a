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
func xmlishCall(b string) (name string, args map[string]any, ok bool) {
	t := strings.TrimSpace(b)
	if strings.HasPrefix(t, "<") {
		tag, key, end, ok := openTag(t, 0)
		if !ok || key == "" {
			return "", nil, false
		}
		closeTok := "</" + tag + ">"
		if !strings.HasSuffix(t, closeTok) || len(t)-len(closeTok) < end {
			return "", nil, false
		}
		name, t = key, t[end:len(t)-len(closeTok)]
	} else {
		lt := strings.IndexByte(t, '<')
		if lt < 0 {
			lt = len(t)
		}
		name, t = strings.TrimSpace(t[:lt]), t[lt:]
	}
	if !isIdent(name) {
		return "", nil, false
	}
	args, ok = xmlishValues(t)
	return name, args, ok
}

// xmlishValues reads the values of an xml body (see xmlishCall).
func xmlishValues(t string) (map[string]any, bool) {
	args := map[string]any{}
	for p := skipSpace(t, 0); p < len(t); p = skipSpace(t, p) {
		tag, key, vs, ok := openTag(t, p)
		if !ok || strings.HasPrefix(tag, "/") {
			return nil, false
		}
		if tag == "arg_key" && key == "" {
			ke := strings.Index(t[vs:], "</arg_key>")
			if ke < 0 {
				return nil, false
			}
			key = strings.TrimSpace(t[vs : vs+ke])
			q := skipSpace(t, vs+ke+len("</arg_key>"))
			if !strings.HasPrefix(t[q:], "<arg_value>") {
				return nil, false
			}
			tag, vs = "arg_value", q+len("<arg_value>")
		} else if key == "" {
			key = tag
		}
		val, next, closed := paramValue(t, vs, len(t), "</"+tag+">")
		if !closed || key == "" {
			return nil, false
		}
		if _, dup := args[key]; dup {
			return nil, false
		}
		args[key] = val
		p = next
	}
	return args, true
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
