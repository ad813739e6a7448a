package traceimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// The bounds on what Read accepts; a trace past one is refused with an
// error wrapping ErrFormat, before it can take much memory or time.
const (
	// MaxFileSize is the largest trace file Read accepts, in bytes.
	MaxFileSize = 64 << 20
	// MaxDepth is the deepest nesting of JSON arrays and objects Read
	// accepts, in the file and in a JSON text inside an attribute.
	MaxDepth = 200
	// MaxSpans is the most spans one file may hold.
	MaxSpans = 100_000
	// MaxCalls is the most model calls one file may hold: finding the
	// conversations compares each call with the conversations before it.
	MaxCalls = 10_000
)

// ReadFile reads the trace file at path (see Read).
func ReadFile(path string) ([]*Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a trace from r and returns its spans in the order read, each
// with the events and log records that name it. name is the file's name
// for errors. It reads OTLP JSON (a document holding resourceSpans and/or
// resourceLogs, JSON lines of such documents, or a JSON array of them) and
// ADK's test digests ({"root_span": ...}). Anything else, a file over
// MaxFileSize, JSON nested deeper than MaxDepth or more than MaxSpans spans
// is an error wrapping ErrFormat.
func Read(r io.Reader, name string) ([]*Span, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: name, Problem: fmt.Sprintf("the file is larger than %d MiB", MaxFileSize>>20), Err: ErrFormat}
	}
	if off, ok := checkDepth(data, MaxDepth); !ok {
		return nil, &Error{File: name, Line: lineAt(data, off), Problem: fmt.Sprintf("JSON nested more than %d levels deep", MaxDepth), Err: ErrFormat}
	}
	rd := &reader{file: name, data: data, logs: map[string][]Event{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	var values []json.RawMessage
	var starts []int
	for {
		var v json.RawMessage
		start := int(dec.InputOffset())
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, rd.syntaxError(err, start)
		}
		values = append(values, v)
		starts = append(starts, start+leadingSpace(data[start:]))
	}
	if len(values) == 0 {
		return nil, &Error{File: name, Problem: "the file is empty", Err: ErrFormat}
	}
	for i, v := range values {
		if len(values) > 1 {
			rd.line = lineAt(data, starts[i])
		}
		if err := rd.value(v); err != nil {
			return nil, err
		}
	}
	rd.attachLogs()
	return rd.spans, nil
}

// reader accumulates the spans of one file.
type reader struct {
	file  string
	data  []byte
	line  int // the line of the JSON line being read; 0 in a single document
	spans []*Span
	// logs are log records by trace and span ID, attached to their spans
	// when the whole file is read.
	logs map[string][]Event
}

func (rd *reader) errorf(format string, args ...any) error {
	return &Error{File: rd.file, Line: rd.line, Problem: fmt.Sprintf(format, args...), Err: ErrFormat}
}

func (rd *reader) syntaxError(err error, start int) error {
	off := start
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = int(se.Offset)
	case errors.As(err, &te):
		off = int(te.Offset)
	}
	return &Error{File: rd.file, Line: lineAt(rd.data, off), Problem: "invalid JSON: " + err.Error(), Err: ErrFormat}
}

// value reads one top-level JSON value.
func (rd *reader) value(v json.RawMessage) error {
	switch firstByte(v) {
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return rd.errorf("invalid JSON: %v", err)
		}
		for _, item := range items {
			if firstByte(item) != '{' {
				return rd.errorf("a JSON array of OTLP documents holds %s", describeJSON(item))
			}
			if err := rd.value(item); err != nil {
				return err
			}
		}
		return nil
	case '{':
	default:
		return rd.errorf("want an OTLP JSON document (an object holding resourceSpans), got %s", describeJSON(v))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(v, &keys); err != nil {
		return rd.errorf("invalid JSON: %v", err)
	}
	switch {
	case keys["resourceSpans"] != nil || keys["resourceLogs"] != nil:
		return rd.otlp(v)
	case keys["root_span"] != nil:
		return rd.digest(keys["root_span"])
	case keys["trace"] != nil && keys["observations"] != nil:
		return rd.errorf("this is a Langfuse trace export, not OTLP: export the spans from your OpenTelemetry pipeline (the collector's file exporter, or the SDK's OTLP JSON) and import that")
	case keys["resource_spans"] != nil:
		return rd.errorf("resource_spans: OTLP JSON spells its keys in lowerCamelCase (resourceSpans), as the collector's file exporter writes them")
	}
	return rd.errorf("want an OTLP JSON document (an object holding resourceSpans), got an object with keys %v", sortedKeys(keys))
}

// add appends sp, keeping MaxSpans.
func (rd *reader) add(sp *Span) error {
	if len(rd.spans) >= MaxSpans {
		return rd.errorf("more than %d spans", MaxSpans)
	}
	sp.File, sp.Line, sp.Seq = rd.file, rd.line, len(rd.spans)
	rd.spans = append(rd.spans, sp)
	return nil
}

// attachLogs gives each span the log records that name it, after its own
// events, in the order read.
func (rd *reader) attachLogs() {
	for _, sp := range rd.spans {
		if evs := rd.logs[sp.TraceID+"/"+sp.SpanID]; len(evs) > 0 {
			sp.Events = append(sp.Events, evs...)
		}
	}
}

// checkDepth reports whether data nests arrays and objects at most max
// deep (outside strings), and where it first goes deeper.
func checkDepth(data []byte, max int) (int, bool) {
	depth, inString, escaped := 0, false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return i, false
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return 0, true
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func leadingSpace(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
}

func firstByte(v []byte) byte {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// describeJSON names the kind of a JSON value for an error.
func describeJSON(v json.RawMessage) string {
	switch firstByte(v) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
