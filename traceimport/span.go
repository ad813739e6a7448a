package traceimport

import (
	"encoding/json"
	"slices"
)

// Span is one span of a trace as this package reads it, whatever the file's
// form. Attribute and event values are JSON text: a string attribute is a
// JSON string, an OTLP kvlist an object with its keys in order.
type Span struct {
	// TraceID and SpanID identify the span, in lower-case hex; ParentID is
	// its parent's span ID, empty for a root. In a tree without IDs (ADK's
	// test digests) they are made up from the file's order: "s1", "s2", ...
	TraceID, SpanID, ParentID string
	// Name is the span's name.
	Name string
	// Start and End are the span's times in Unix nanoseconds; 0 means not
	// recorded.
	Start, End int64
	// Error is set when the span's status is an error; StatusMessage is
	// its message, empty when none.
	Error         bool
	StatusMessage string
	// Attrs are the span's attributes, by key; nil means none.
	Attrs map[string]json.RawMessage
	// Events are the span's events and the log records that name it, in
	// the order read.
	Events []Event
	// Scope is the name of the instrumentation scope that made the span;
	// empty when unknown.
	Scope string
	// File and Line say where the span was read: the line of its JSON line,
	// or 0 in a single document.
	File string
	Line int
	// Seq is the span's position in the file, from 0: the order of a tree
	// without times.
	Seq int
}

// Event is a span event or a log record attached to a span.
type Event struct {
	// Name is the event's name (a log record's event name, or its
	// event.name attribute).
	Name string
	// Time is in Unix nanoseconds; 0 means not recorded.
	Time int64
	// Attrs are the event's attributes; nil means none.
	Attrs map[string]json.RawMessage
	// Body is a log record's body as JSON; nil means none.
	Body json.RawMessage
}

// attr returns the attribute key of sp, nil when absent.
func (sp *Span) attr(key string) json.RawMessage { return sp.Attrs[key] }

// str returns the string attribute key of sp ("" when absent or not a
// string; a number is given as its JSON text).
func (sp *Span) str(key string) string { return jsonString(sp.Attrs[key]) }

// jsonString returns the string raw holds, the text of a number or a
// boolean, or "" for anything else.
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	switch raw[0] {
	case '{', '[', 'n', '"':
		return ""
	}
	return string(raw)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
