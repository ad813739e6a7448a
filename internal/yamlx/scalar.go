package yamlx

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Writer appends YAML by hand, byte for byte as Marshal writes the same
// nodes, for callers with a fixed document shape (the golden encoder) that
// cannot afford yaml.v3's event emitter. It covers the scalars Marshal writes
// plainly: single-line text that yaml.v3 writes plain, single- or
// double-quoted without escapes, integers, booleans, null, and literal
// blocks with no indentation indicator and at most one final line break.
// Anything else makes OK false; the caller then falls back to Marshal.
// The zero Writer is empty and OK.
type Writer struct {
	Buf []byte
	// Failed is set once the writer met a scalar it cannot write as
	// Marshal would.
	Failed bool
}

// OK reports whether every scalar written so far was one the writer covers.
func (w *Writer) OK() bool { return !w.Failed }

// Pad appends n spaces.
func (w *Writer) Pad(n int) {
	for range n {
		w.Buf = append(w.Buf, ' ')
	}
}

// Raw appends s as is.
func (w *Writer) Raw(s string) { w.Buf = append(w.Buf, s...) }

// Int appends i as an integer scalar.
func (w *Writer) Int(i int) { w.Buf = strconv.AppendInt(w.Buf, int64(i), 10) }

// Bool appends b as a boolean scalar.
func (w *Writer) Bool(b bool) { w.Buf = strconv.AppendBool(w.Buf, b) }

// Key appends a mapping key k followed by ":" (block or flow context).
func (w *Writer) Key(k string, flow bool) {
	if len(k) > 128 || strings.IndexByte(k, '\n') >= 0 {
		w.Failed = true // not a simple key: yaml.v3 writes "? k"
		return
	}
	w.text(k, false, flow)
	w.Buf = append(w.Buf, ':')
}

// Text appends the single-line s as Marshal writes Text(s) in a block (flow
// false) or flow (flow true) context.
func (w *Writer) Text(s string, flow bool) { w.text(s, false, flow) }

// Quoted appends the single-line s as Marshal writes Quoted(s).
func (w *Writer) Quoted(s string, flow bool) { w.text(s, true, flow) }

// text decides the style as yaml.v3's encoder and emitter do
// (yaml_emitter_analyze_scalar, yaml_emitter_select_scalar_style) for the
// cases it covers.
func (w *Writer) text(s string, quoted, flow bool) {
	if s == "" {
		if quoted {
			w.Raw("''")
		} else {
			w.Raw(`""`) // "" resolves to null: quoted
		}
		return
	}
	a, ok := analyze(s)
	if !ok || a.breaks {
		w.Failed = true
		return
	}
	if !quoted {
		switch resolvesAs(s) {
		case resolveStr:
		case resolveOther:
			// yaml.v3 double-quotes text that would read back as
			// something else; these have nothing to escape.
			w.Buf = append(w.Buf, '"')
			w.Buf = append(w.Buf, s...)
			w.Buf = append(w.Buf, '"')
			return
		default:
			w.Failed = true
			return
		}
		plain := !a.edgeSpace && !a.blockInd
		if flow {
			plain = !a.edgeSpace && !a.flowInd
		}
		if plain {
			w.Buf = append(w.Buf, s...)
			return
		}
	}
	w.Buf = append(w.Buf, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			w.Buf = append(w.Buf, '\'')
		}
		w.Buf = append(w.Buf, s[i])
	}
	w.Buf = append(w.Buf, '\'')
}

// Literal appends the multi-line s as a literal block ("|-" or "|" and its
// lines) whose lines are indented by indent; the caller has written "key: ".
func (w *Writer) Literal(s string, indent int) {
	if !literalByHand(s) || strings.ContainsAny(s, "\r\u0085\u2028\u2029") {
		w.Failed = true
		return
	}
	for _, r := range s {
		if r > 0xffff || r == 0xfffe || r == 0xffff {
			w.Failed = true // not printable to yaml.v3
			return
		}
	}
	body := s
	if strings.HasSuffix(s, "\n") {
		w.Raw("|")
		body = s[:len(s)-1]
	} else {
		w.Raw("|-")
	}
	for len(body) >= 0 {
		line, rest, more := strings.Cut(body, "\n")
		w.Buf = append(w.Buf, '\n')
		if line != "" {
			w.Pad(indent)
			w.Raw(line)
		}
		if !more {
			break
		}
		body = rest
	}
}

// analysis is what yaml_emitter_analyze_scalar finds in a scalar, for the
// scalars Writer covers.
type analysis struct {
	breaks, edgeSpace, flowInd, blockInd bool
}

// analyze scans s as yaml_emitter_analyze_scalar does; ok is false for
// characters that force double quotes (tabs, non-printable).
func analyze(s string) (a analysis, ok bool) {
	if len(s) >= 3 && (s[:3] == "---" || s[:3] == "...") {
		a.flowInd, a.blockInd = true, true
	}
	a.edgeSpace = s[0] == ' ' || s[len(s)-1] == ' '
	precededBySpace := true
	for i, r := range s {
		followedBySpace := i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n'
		if i == 0 {
			switch r {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				a.flowInd, a.blockInd = true, true
			case '?', ':':
				a.flowInd = true
				if followedBySpace {
					a.blockInd = true
				}
			case '-':
				if followedBySpace {
					a.flowInd, a.blockInd = true, true
				}
			}
		} else {
			switch r {
			case ',', '?', '[', ']', '{', '}':
				a.flowInd = true
			case ':':
				a.flowInd = true
				if followedBySpace {
					a.blockInd = true
				}
			case '#':
				if precededBySpace {
					a.flowInd, a.blockInd = true, true
				}
			}
		}
		switch {
		case r == '\n':
			a.breaks = true
		case r == utf8.RuneError, r == '\t', r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
			r == 0x85, r == 0x2028, r == 0x2029, r == 0xfeff, r >= 0xd800 && r < 0xe000, r >= 0xfffe:
			return a, false
		}
		precededBySpace = r == ' ' || r == '\n'
	}
	return a, true
}

// resolveHints are the first bytes other than letters that yaml.v3's
// resolver (resolveTable in resolve.go) looks further at: signs, digits,
// '.', '~' and '<'.
const resolveHints = "+-0123456789.~<"

// Results of resolvesAs.
const (
	resolveStr     = iota // reads back as a string
	resolveOther          // reads back as a bool, null or number
	resolveUnknown        // the writer cannot tell
)

// resolvesAs says what the plain scalar s would read back as, for the
// scalars it can tell: text starting with a letter, '.' and a letter, or any
// byte yaml.v3's resolver takes no hint from (such as '/', '_', '{', '[',
// '"': JSON results), decimal integers, and Go durations such as 1.5s.
func resolvesAs(s string) int {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~":
		return resolveOther
	case "<<":
		return resolveUnknown
	}
	c := s[0]
	switch {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		return resolveStr
	case strings.IndexByte(resolveHints, c) < 0:
		// yaml.v3's resolve returns !!str at once for a first byte that is
		// not in its resolveTable.
		return resolveStr
	case c == '.':
		if len(s) > 1 && (s[1] >= 'a' && s[1] <= 'z' || s[1] >= 'A' && s[1] <= 'Z') && !strings.EqualFold(s, ".inf") && !strings.EqualFold(s, ".nan") {
			return resolveStr
		}
		return resolveUnknown
	case c >= '0' && c <= '9':
		digits, letters := true, false
		for _, r := range s {
			switch {
			case r >= '0' && r <= '9':
			case r == '.':
				digits = false
			case r == 'n' || r == 's' || r == 'm' || r == 'h' || r == 'µ' || r == 'u':
				digits, letters = false, true
			default:
				return resolveUnknown
			}
		}
		if digits && len(s) <= 18 {
			return resolveOther
		}
		if letters && !digits {
			return resolveStr // a duration: not an int, float or timestamp
		}
	}
	return resolveUnknown
}
