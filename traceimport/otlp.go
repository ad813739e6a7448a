package traceimport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The OTLP JSON shapes this package reads (opentelemetry-proto's JSON
// mapping: lowerCamelCase keys, IDs in hex, enums by number or name, 64-bit
// integers as strings or numbers).
type (
	otlpDoc struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
		ResourceLogs  []otlpResourceLogs  `json:"resourceLogs"`
	}
	otlpResourceSpans struct {
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
		// InstrumentationLibrarySpans is scopeSpans' name before OTLP 0.15.
		InstrumentationLibrarySpans []otlpScopeSpans `json:"instrumentationLibrarySpans"`
	}
	otlpScopeSpans struct {
		Scope                  otlpScope  `json:"scope"`
		InstrumentationLibrary otlpScope  `json:"instrumentationLibrary"`
		Spans                  []otlpSpan `json:"spans"`
	}
	otlpScope struct {
		Name string `json:"name"`
	}
	otlpSpan struct {
		TraceID      string          `json:"traceId"`
		SpanID       string          `json:"spanId"`
		ParentSpanID string          `json:"parentSpanId"`
		Name         string          `json:"name"`
		Start        json.RawMessage `json:"startTimeUnixNano"`
		End          json.RawMessage `json:"endTimeUnixNano"`
		Attributes   []otlpKeyValue  `json:"attributes"`
		Events       []otlpEvent     `json:"events"`
		Status       struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		} `json:"status"`
	}
	otlpEvent struct {
		Time       json.RawMessage `json:"timeUnixNano"`
		Name       string          `json:"name"`
		Attributes []otlpKeyValue  `json:"attributes"`
	}
	otlpResourceLogs struct {
		ScopeLogs []struct {
			LogRecords []otlpLogRecord `json:"logRecords"`
		} `json:"scopeLogs"`
	}
	otlpLogRecord struct {
		Time         json.RawMessage `json:"timeUnixNano"`
		ObservedTime json.RawMessage `json:"observedTimeUnixNano"`
		EventName    string          `json:"eventName"`
		Body         json.RawMessage `json:"body"`
		Attributes   []otlpKeyValue  `json:"attributes"`
		TraceID      string          `json:"traceId"`
		SpanID       string          `json:"spanId"`
	}
	otlpKeyValue struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	otlpAnyValue struct {
		StringValue *string         `json:"stringValue"`
		BoolValue   *bool           `json:"boolValue"`
		IntValue    json.RawMessage `json:"intValue"`
		DoubleValue json.RawMessage `json:"doubleValue"`
		BytesValue  *string         `json:"bytesValue"`
		ArrayValue  *struct {
			Values []json.RawMessage `json:"values"`
		} `json:"arrayValue"`
		KvlistValue *struct {
			Values []otlpKeyValue `json:"values"`
		} `json:"kvlistValue"`
	}
)

// otlp reads one OTLP JSON document.
func (rd *reader) otlp(v json.RawMessage) error {
	var doc otlpDoc
	if err := json.Unmarshal(v, &doc); err != nil {
		return rd.errorf("not OTLP JSON: %v", err)
	}
	for _, rs := range doc.ResourceSpans {
		for _, ss := range append(rs.ScopeSpans, rs.InstrumentationLibrarySpans...) {
			scope := ss.Scope.Name
			if scope == "" {
				scope = ss.InstrumentationLibrary.Name
			}
			for i := range ss.Spans {
				sp, err := rd.otlpSpan(&ss.Spans[i], scope)
				if err != nil {
					return err
				}
				if err := rd.add(sp); err != nil {
					return err
				}
			}
		}
	}
	for _, rl := range doc.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for i := range sl.LogRecords {
				if err := rd.otlpLog(&sl.LogRecords[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (rd *reader) otlpSpan(s *otlpSpan, scope string) (*Span, error) {
	what := fmt.Sprintf("span %q", s.Name)
	sp := &Span{Name: s.Name, Scope: scope, StatusMessage: s.Status.Message}
	var err error
	if sp.TraceID, err = otlpID(s.TraceID, 16); err != nil {
		return nil, rd.errorf("%s: traceId: %v", what, err)
	}
	if sp.SpanID, err = otlpID(s.SpanID, 8); err != nil {
		return nil, rd.errorf("%s: spanId: %v", what, err)
	}
	if sp.ParentID, err = otlpID(s.ParentSpanID, 8); err != nil {
		return nil, rd.errorf("%s: parentSpanId: %v", what, err)
	}
	if sp.TraceID == "" || sp.SpanID == "" {
		return nil, rd.errorf("%s: no traceId or spanId", what)
	}
	if sp.Start, err = otlpTime(s.Start); err != nil {
		return nil, rd.errorf("%s: startTimeUnixNano: %v", what, err)
	}
	if sp.End, err = otlpTime(s.End); err != nil {
		return nil, rd.errorf("%s: endTimeUnixNano: %v", what, err)
	}
	switch code := strings.Trim(string(s.Status.Code), `"`); code {
	case "2", "STATUS_CODE_ERROR":
		sp.Error = true
	case "", "0", "1", "STATUS_CODE_UNSET", "STATUS_CODE_OK":
	default:
		return nil, rd.errorf("%s: status.code: unknown code %s", what, s.Status.Code)
	}
	if sp.Attrs, err = otlpAttrs(s.Attributes); err != nil {
		return nil, rd.errorf("%s: %v", what, err)
	}
	for _, e := range s.Events {
		ev := Event{Name: e.Name}
		if ev.Time, err = otlpTime(e.Time); err != nil {
			return nil, rd.errorf("%s: event %q: timeUnixNano: %v", what, e.Name, err)
		}
		if ev.Attrs, err = otlpAttrs(e.Attributes); err != nil {
			return nil, rd.errorf("%s: event %q: %v", what, e.Name, err)
		}
		sp.Events = append(sp.Events, ev)
	}
	return sp, nil
}

// otlpLog keeps a log record that names a span, for attachLogs; one that
// names none is of no run and is dropped.
func (rd *reader) otlpLog(l *otlpLogRecord) error {
	trace, err := otlpID(l.TraceID, 16)
	if err != nil {
		return rd.errorf("log record %q: traceId: %v", l.EventName, err)
	}
	span, err := otlpID(l.SpanID, 8)
	if err != nil {
		return rd.errorf("log record %q: spanId: %v", l.EventName, err)
	}
	if trace == "" || span == "" {
		return nil
	}
	ev := Event{Name: l.EventName}
	if ev.Time, err = otlpTime(l.Time); err != nil {
		return rd.errorf("log record %q: timeUnixNano: %v", l.EventName, err)
	}
	if ev.Attrs, err = otlpAttrs(l.Attributes); err != nil {
		return rd.errorf("log record %q: %v", l.EventName, err)
	}
	if ev.Name == "" {
		ev.Name = jsonString(ev.Attrs["event.name"])
	}
	if len(l.Body) > 0 && string(l.Body) != "null" {
		if ev.Body, err = anyValueJSON(l.Body, 0); err != nil {
			return rd.errorf("log record %q: body: %v", ev.Name, err)
		}
	}
	rd.logs[trace+"/"+span] = append(rd.logs[trace+"/"+span], ev)
	return nil
}

// otlpID returns an OTLP trace or span ID as lower-case hex: the JSON
// mapping writes hex, some exporters base64 (protobuf's JSON for bytes).
// An ID of all zeroes is no ID.
func otlpID(s string, size int) (string, error) {
	if s == "" {
		return "", nil
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != size {
		b, err = base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != size {
			return "", fmt.Errorf("%q is not %d bytes in hex or base64", s, size)
		}
	}
	if bytes.Count(b, []byte{0}) == size {
		return "", nil
	}
	return hex.EncodeToString(b), nil
}

// otlpTime reads a time in Unix nanoseconds, a string or a number; absent
// is 0.
func otlpTime(raw json.RawMessage) (int64, error) {
	s := strings.Trim(string(raw), `"`)
	if s == "" || s == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s is not a time in Unix nanoseconds", raw)
	}
	return n, nil
}

// otlpAttrs returns attributes as JSON values by key.
func otlpAttrs(kvs []otlpKeyValue) (map[string]json.RawMessage, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		v, err := anyValueJSON(kv.Value, 0)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %v", kv.Key, err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

// anyValueJSON returns an OTLP AnyValue as JSON text: a string, a number, a
// boolean, an array, an object with the kvlist's keys in order, or null for
// an empty value. Bytes are a base64 string.
func anyValueJSON(raw json.RawMessage, depth int) (json.RawMessage, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("values nested more than %d levels deep", MaxDepth)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("null"), nil
	}
	var v otlpAnyValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("not an OTLP AnyValue: %v", err)
	}
	switch {
	case v.StringValue != nil:
		return json.Marshal(*v.StringValue)
	case v.BoolValue != nil:
		return json.Marshal(*v.BoolValue)
	case v.IntValue != nil:
		n, err := strconv.ParseInt(strings.Trim(string(v.IntValue), `"`), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("intValue %s is not an integer", v.IntValue)
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case v.DoubleValue != nil:
		s := strings.Trim(string(v.DoubleValue), `"`)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("doubleValue %s is not a number", v.DoubleValue)
		}
		return json.Marshal(f)
	case v.BytesValue != nil:
		return json.Marshal(*v.BytesValue)
	case v.ArrayValue != nil:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, item := range v.ArrayValue.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			j, err := anyValueJSON(item, depth+1)
			if err != nil {
				return nil, err
			}
			b.Write(j)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	case v.KvlistValue != nil:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, kv := range v.KvlistValue.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(kv.Key)
			b.Write(k)
			b.WriteByte(':')
			j, err := anyValueJSON(kv.Value, depth+1)
			if err != nil {
				return nil, err
			}
			b.Write(j)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	}
	return json.RawMessage("null"), nil
}
