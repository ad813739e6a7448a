package evalrun

import (
	"fmt"
	"strings"
	"time"

	"github.com/tapeloop/tapeloop/traceimport"
)

// selector is one --select of evalrun import.
type selector struct {
	key, value string
	from, to   int64 // time: the bounds in Unix nanoseconds; 0 is open
}

// parseSelects reads the --select values: trace=ID, span=NAME,
// time=FROM..TO.
func parseSelects(values []string) ([]selector, error) {
	var out []selector
	for _, v := range values {
		key, value, ok := strings.Cut(v, "=")
		if !ok || value == "" {
			return nil, fmt.Errorf("--select %q: want trace=ID, span=NAME or time=FROM..TO", v)
		}
		s := selector{key: key, value: value}
		switch key {
		case "trace":
			s.value = strings.ToLower(value)
		case "span":
		case "time":
			from, to, ok := strings.Cut(value, "..")
			if !ok {
				return nil, fmt.Errorf("--select %q: want time=FROM..TO (RFC 3339 times, either may be left out)", v)
			}
			for _, b := range []struct {
				text string
				to   *int64
			}{{from, &s.from}, {to, &s.to}} {
				if b.text == "" {
					continue
				}
				t, err := time.Parse(time.RFC3339Nano, b.text)
				if err != nil {
					return nil, fmt.Errorf("--select %q: %q is not an RFC 3339 time (2025-07-02T16:40:00Z)", v, b.text)
				}
				*b.to = t.UnixNano()
			}
		default:
			return nil, fmt.Errorf("--select %q: unknown key %q (want trace, span or time)", v, key)
		}
		out = append(out, s)
	}
	return out, nil
}

// matchAll reports whether run r matches every selector; spans are its
// file's, for the names of the spans around its calls.
func matchAll(sel []selector, r *traceimport.Run, spans []*traceimport.Span) bool {
	for _, s := range sel {
		if !s.match(r, spans) {
			return false
		}
	}
	return true
}

func (s selector) match(r *traceimport.Run, spans []*traceimport.Span) bool {
	switch s.key {
	case "trace":
		for _, id := range r.TraceIDs {
			if strings.HasPrefix(id, s.value) {
				return true
			}
		}
		return false
	case "span":
		if r.Agent == s.value {
			return true
		}
		for _, c := range r.Calls {
			if c.Span.Name == s.value {
				return true
			}
		}
		for _, t := range r.Tools {
			if t.Span.Name == s.value {
				return true
			}
		}
		// A span around the run's calls (the agent's, a workflow's).
		byID := map[string]*traceimport.Span{}
		for _, sp := range spans {
			byID[sp.TraceID+"/"+sp.SpanID] = sp
		}
		for _, c := range r.Calls {
			for p := byID[c.Span.TraceID+"/"+c.Span.ParentID]; p != nil; p = byID[p.TraceID+"/"+p.ParentID] {
				if p.Name == s.value {
					return true
				}
			}
		}
		return false
	case "time":
		if r.Start == 0 {
			return false // a trace without times matches no time range
		}
		return (s.to == 0 || r.Start <= s.to) && (s.from == 0 || r.End >= s.from)
	}
	return false
}
