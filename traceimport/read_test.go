package traceimport

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadForms reads one span written in each form an OTLP JSON export
// takes, and checks what every form gives alike.
func TestReadForms(t *testing.T) {
	// A span with a nested kvlist attribute, an int, a bool, a double and
	// an array; ids in hex.
	hexDoc := `{"resourceSpans":[{"scopeSpans":[{"scope":{"name":"s"},"spans":[{
		"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","parentSpanId":"00f067aa0ba902b7",
		"name":"chat lemon","kind":3,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":1700000001000000000,
		"status":{"code":"STATUS_CODE_ERROR","message":"quota"},
		"attributes":[
			{"key":"n","value":{"intValue":"42"}},
			{"key":"b","value":{"boolValue":true}},
			{"key":"d","value":{"doubleValue":0.5}},
			{"key":"list","value":{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":7}]}}},
			{"key":"obj","value":{"kvlistValue":{"values":[{"key":"zeta","value":{"stringValue":"last key first"}},{"key":"alpha","value":{}}]}}}
		]}]}]}]}`
	// The same span with base64 ids (protobuf's JSON for bytes), an old
	// instrumentationLibrarySpans wrapper, in a JSON array.
	b64Doc := `[{"resourceSpans":[{"instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"s"},"spans":[{
		"traceId":"CvdlGRbNQ92ESOshHIAxnA==","spanId":"t61rcWkgMzE=","parentSpanId":"APBnqgupArc=",
		"name":"chat lemon","startTimeUnixNano":1700000000000000000,"endTimeUnixNano":"1700000001000000000",
		"status":{"code":2,"message":"quota"},
		"attributes":[
			{"key":"n","value":{"intValue":42}},
			{"key":"b","value":{"boolValue":true}},
			{"key":"d","value":{"doubleValue":"0.5"}},
			{"key":"list","value":{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":"7"}]}}},
			{"key":"obj","value":{"kvlistValue":{"values":[{"key":"zeta","value":{"stringValue":"last key first"}},{"key":"alpha","value":{}}]}}}
		]}]}]}]}]`
	for _, tc := range []struct{ name, text string }{
		{"a document, hex ids", hexDoc},
		{"a JSON array, base64 ids", b64Doc},
		{"JSON lines", "\n" + strings.ReplaceAll(strings.ReplaceAll(hexDoc, "\n", ""), "\t", "") + "\n" + `{"resourceSpans":[]}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, err := Read(strings.NewReader(tc.text), "t.json")
			if err != nil {
				t.Fatal(err)
			}
			if len(spans) != 1 {
				t.Fatalf("want 1 span, got %d", len(spans))
			}
			sp := spans[0]
			want := map[string]string{
				"n": "42", "b": "true", "d": "0.5", "list": `["x",7]`,
				"obj": `{"zeta":"last key first","alpha":null}`,
			}
			for k, v := range want {
				if got := string(sp.Attrs[k]); got != v {
					t.Errorf("attribute %s = %s, want %s", k, got, v)
				}
			}
			if sp.TraceID != "0af7651916cd43dd8448eb211c80319c" || sp.SpanID != "b7ad6b7169203331" || sp.ParentID != "00f067aa0ba902b7" {
				t.Errorf("ids = %s %s %s", sp.TraceID, sp.SpanID, sp.ParentID)
			}
			if sp.Start != 1700000000000000000 || sp.End != 1700000001000000000 {
				t.Errorf("times = %d..%d", sp.Start, sp.End)
			}
			if !sp.Error || sp.StatusMessage != "quota" || sp.Scope != "s" {
				t.Errorf("status %v %q, scope %q", sp.Error, sp.StatusMessage, sp.Scope)
			}
		})
	}
}

// TestReadLogsJoinTheirSpans checks that a log record naming a span (the
// event of a content-on-events capture) becomes one of its events, with
// its body, whatever the order of the two in the file.
func TestReadLogsJoinTheirSpans(t *testing.T) {
	text := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[
		{"eventName":"gen_ai.user.message","traceId":"0000000000000000000000000000000a","spanId":"000000000000000b","body":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"hi"}}]}}},
		{"traceId":"0000000000000000000000000000000a","spanId":"000000000000000b","attributes":[{"key":"event.name","value":{"stringValue":"gen_ai.choice"}}]},
		{"eventName":"orphan","body":{"stringValue":"names no span"}}
	]}]}]}
{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0000000000000000000000000000000a","spanId":"000000000000000b","name":"chat"}]}]}]}`
	spans, err := Read(strings.NewReader(text), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evs := spans[0].Events
	if len(evs) != 2 || evs[0].Name != "gen_ai.user.message" || string(evs[0].Body) != `{"content":"hi"}` || evs[1].Name != "gen_ai.choice" {
		t.Fatalf("events = %+v", evs)
	}
	if spans[0].Line != 6 {
		t.Errorf("the span's line = %d, want 6 (the line its document starts on)", spans[0].Line)
	}
}

// TestReadRefuses checks the errors for what is not a trace, or one too
// large or deep, each naming the file and, where it helps, the line.
func TestReadRefuses(t *testing.T) {
	deep := `{"resourceSpans":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "}"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "  \n", "t.json: the file is empty"},
		{"not JSON", "{\"resourceSpans\": [}\n", "t.json:1: invalid JSON"},
		{"a bad second line", `{"resourceSpans":[]}` + "\n" + `{"resourceSpans": nope}`, "t.json:2: invalid JSON"},
		{"a scalar", `42`, "t.json: want an OTLP JSON document (an object holding resourceSpans), got a number"},
		{"another object", `{"spans": []}`, "got an object with keys [spans]"},
		{"snake case", `{"resource_spans": []}`, "resource_spans: OTLP JSON spells its keys in lowerCamelCase"},
		{"a Langfuse export", `{"trace": {}, "observations": []}`, "this is a Langfuse trace export, not OTLP"},
		{"too deep", deep, "JSON nested more than 200 levels deep"},
		{"a bad span id", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"xyz","name":"a"}]}]}]}`, `span "a": spanId: "xyz" is not 8 bytes in hex or base64`},
		{"a bad time", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"a","startTimeUnixNano":"soon"}]}]}]}`, `span "a": startTimeUnixNano: "soon" is not a time`},
		{"a bad int", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"a","attributes":[{"key":"k","value":{"intValue":"1.5"}}]}]}]}]}`, `attribute k: intValue "1.5" is not an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.text), "t.json")
			if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrFormat saying %q", err, tc.want)
			}
		})
	}
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestReadBoundsTheFile checks that an endless input is cut off at
// MaxFileSize rather than read into memory.
func TestReadBoundsTheFile(t *testing.T) {
	_, err := Read(io.Reader(endless{}), "big.json")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "big.json: the file is larger than 64 MiB") {
		t.Fatalf("got %v", err)
	}
}

// TestReadDigest reads ADK's test digest form: a span tree without ids or
// times, its order the file's.
func TestReadDigest(t *testing.T) {
	text := `{"root_span":{"name":"invoke_agent a","attributes":{"gen_ai.operation.name":"invoke_agent"},"status":"UNSET","children":[
		{"name":"generate_content m","attributes":{"gen_ai.input.messages":[{"role":"user","parts":[{"type":"text","content":"hi"}]}]},"status":"ERROR","children":[],
		 "logs":[{"event_name":"e","body":null,"attributes":{"k":"v"}}]}],"logs":[]}}`
	spans, err := Read(strings.NewReader(text), "d.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 2 || spans[1].ParentID != spans[0].SpanID || !spans[1].Error || spans[1].Seq != 1 {
		t.Fatalf("spans = %+v %+v", spans[0], spans[1])
	}
	if got := keysOf(spans[1]); len(got) != 1 || got[0] != "gen_ai.input.messages" {
		t.Errorf("attributes = %v", got)
	}
	if ev := spans[1].Events; len(ev) != 1 || ev[0].Name != "e" || ev[0].Body != nil || string(ev[0].Attrs["k"]) != `"v"` {
		t.Errorf("events = %+v", ev)
	}
}
