package traceimport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tspan is a span for a test trace; otlp writes spans as OTLP JSON.
type tspan struct {
	trace, id, parent, name string
	start                   int64
	failed                  bool
	attrs                   kv
	events                  []tevent
}

// tevent is a span event, or with log set a log record naming the span.
type tevent struct {
	name  string
	attrs kv
	body  any
	log   bool
}

// kv is attributes in order: key, value, key, value...
type kv []any

// anyValue writes v as an OTLP AnyValue: a string, an int, a bool, a
// float, a []any (arrayValue) or a kv (kvlistValue).
func anyValue(v any) map[string]any {
	switch x := v.(type) {
	case string:
		return map[string]any{"stringValue": x}
	case int:
		return map[string]any{"intValue": strconv.Itoa(x)}
	case bool:
		return map[string]any{"boolValue": x}
	case float64:
		return map[string]any{"doubleValue": x}
	case []any:
		vals := []any{}
		for _, e := range x {
			vals = append(vals, anyValue(e))
		}
		return map[string]any{"arrayValue": map[string]any{"values": vals}}
	case kv:
		return map[string]any{"kvlistValue": map[string]any{"values": attrList(x)}}
	}
	panic(fmt.Sprintf("anyValue: %T", v))
}

func attrList(a kv) []any {
	out := []any{}
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, map[string]any{"key": a[i], "value": anyValue(a[i+1])})
	}
	return out
}

// hexID pads a short test id to an OTLP id of n bytes in hex.
func hexID(s string, n int) string {
	if s == "" {
		return ""
	}
	return strings.Repeat("0", 2*n-len(s)) + s
}

// otlp returns one OTLP JSON document holding spans (and their log
// records under resourceLogs).
func otlp(t *testing.T, spans ...tspan) string {
	t.Helper()
	var out []any
	var logs []any
	for _, s := range spans {
		sp := map[string]any{
			"traceId": hexID(s.trace, 16), "spanId": hexID(s.id, 8), "name": s.name,
			"kind": "SPAN_KIND_CLIENT", "attributes": attrList(s.attrs),
		}
		if s.parent != "" {
			sp["parentSpanId"] = hexID(s.parent, 8)
		}
		if s.start != 0 {
			sp["startTimeUnixNano"] = strconv.FormatInt(s.start, 10)
			sp["endTimeUnixNano"] = strconv.FormatInt(s.start+1000, 10)
		}
		if s.failed {
			sp["status"] = map[string]any{"code": 2, "message": "boom"}
		}
		var evs []any
		for _, e := range s.events {
			if e.log {
				l := map[string]any{"eventName": e.name, "attributes": attrList(e.attrs), "traceId": hexID(s.trace, 16), "spanId": hexID(s.id, 8)}
				if e.body != nil {
					l["body"] = anyValue(e.body)
				}
				logs = append(logs, l)
				continue
			}
			evs = append(evs, map[string]any{"name": e.name, "attributes": attrList(e.attrs)})
		}
		if evs != nil {
			sp["events"] = evs
		}
		out = append(out, sp)
	}
	doc := map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "test"}, "spans": out}}}}}
	if logs != nil {
		doc["resourceLogs"] = []any{map[string]any{"scopeLogs": []any{map[string]any{"logRecords": logs}}}}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustJSON returns v as JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readRuns reads a trace from text and finds its runs.
func readRuns(t *testing.T, text string, opts *RunsOptions) ([]*Run, error) {
	t.Helper()
	spans, err := Read(strings.NewReader(text), "trace.json")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return Runs(spans, opts)
}

// oneRun reads a trace that must hold exactly one run.
func oneRun(t *testing.T, text string) *Run {
	t.Helper()
	runs, err := readRuns(t, text, nil)
	if err != nil {
		t.Fatalf("Runs: %v", err)
	}
	if len(runs) != 1 {
		t.Fatalf("want 1 run, got %d: %v", len(runs), runs)
	}
	return runs[0]
}

// keysOf returns the sorted keys of a span's attributes.
func keysOf(sp *Span) []string {
	keys := make([]string, 0, len(sp.Attrs))
	for k := range sp.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mustJSONNoT returns a scalar as JSON text.
func mustJSONNoT(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
