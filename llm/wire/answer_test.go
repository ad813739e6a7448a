package wire_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// answerCall decodes a minimal request of format f (streamed or not) into
// the call an answer is read for.
func answerCall(t *testing.T, f wire.Format, stream bool) *wire.Call {
	t.Helper()
	s := "false"
	if stream {
		s = "true"
	}
	path, body := "/v1/chat/completions", `{"model":"m","stream":`+s+`,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi."}]}`
	switch f {
	case wire.Anthropic:
		path, body = "/v1/messages", `{"model":"m","max_tokens":9,"stream":`+s+`,"messages":[{"role":"user","content":"Hi."}]}`
	case wire.Bedrock:
		path, body = "/model/m/converse", `{"messages":[{"role":"user","content":[{"text":"Hi."}]}]}`
		if stream {
			path = "/model/m/converse-stream"
		}
	}
	c, err := wire.Decode(path, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != f {
		t.Fatalf("%s decoded as %s", path, c.Format)
	}
	return c
}

// answers are the responses each format carries without loss: the
// reasoning OpenAI's Chat Completions carries is text only; Messages
// carries signed and redacted thinking blocks.
func answers(f wire.Format) map[string]*llm.Response {
	long := strings.Repeat("Voilà: ünïcode text longer than one chunk. ", 4)
	out := map[string]*llm.Response{
		"text": {Message: llm.AssistantMessage(long), FinishReason: llm.FinishStop,
			Usage: llm.Usage{InputTokens: 120, OutputTokens: 31, CachedInputTokens: 100, CacheWriteTokens: 7, ReasoningTokens: 3}},
		"calls": {Message: llm.AssistantMessage("Reading both.",
			llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`},
			llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path":"` + strings.Repeat("dir/", 20) + `b.txt"}`}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 40, OutputTokens: 12}},
		"cut": {Message: llm.AssistantMessage("The answer is"), FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 4, OutputTokens: 1}},
	}
	thought := llm.AssistantMessage("42.")
	if f == wire.Bedrock {
		// Converse carries signed and redacted reasoning too, and no pause.
		thought.Reasoning = []llm.Reasoning{{Text: "Think of " + long, Signature: "sig-Zm9v"}, {Redacted: "cmVkYWN0ZWQ="}}
	} else if f == wire.Anthropic {
		thought.Reasoning = []llm.Reasoning{{Text: "Think of " + long, Signature: "sig-Zm9v"}, {Redacted: "cmVkYWN0ZWQ="}}
		out["pause"] = &llm.Response{Message: llm.AssistantMessage("Still working."), FinishReason: llm.FinishPause, Usage: llm.Usage{InputTokens: 9, OutputTokens: 2}}
	} else {
		thought.Reasoning = []llm.Reasoning{{Text: "Think of " + long}}
	}
	// Cache counts stated as zero: the cache read and wrote nothing.
	out["cache read nothing"] = &llm.Response{Message: llm.AssistantMessage("Done."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 9, OutputTokens: 2, CacheReported: true}}
	out["reasoning"] = &llm.Response{Message: thought, FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 9, OutputTokens: 20, ReasoningTokens: 18}}
	if f == wire.Bedrock {
		// Converse's usage has no count of reasoning tokens.
		for _, r := range out {
			r.Usage.ReasoningTokens = 0
		}
	}
	return out
}

// TestDecodeAnswerRoundTrip: what the bridge encodes as a vendor's server
// reads back into the response it encoded, JSON and streamed, in each
// format that reads answers.
func TestDecodeAnswerRoundTrip(t *testing.T) {
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic, wire.Bedrock} {
		if !wire.ReadsAnswers(f) {
			t.Fatalf("%s does not read answers", f)
		}
		for name, resp := range answers(f) {
			for _, stream := range []bool{false, true} {
				c := answerCall(t, f, stream)
				rec := httptest.NewRecorder()
				wire.WriteResponse(rec, c, resp, &wire.Options{Chunk: 7})
				got, err := wire.DecodeAnswer(c, rec.Code, rec.Header(), rec.Body.Bytes())
				if err != nil {
					t.Fatalf("%s %s stream=%v: %v\n%s", f, name, stream, err, rec.Body)
				}
				if !reflect.DeepEqual(got, resp) {
					t.Errorf("%s %s stream=%v:\n got %+v\nwant %+v\n%s", f, name, stream, got, resp, rec.Body)
				}
			}
		}
	}
}

// TestDecodeAnswerErrors: an error answer, and an error event in a stream,
// read back as the provider error that was encoded: kind, status, message
// and Retry-After.
func TestDecodeAnswerErrors(t *testing.T) {
	cases := []wire.Error{
		{Status: 429, Kind: llm.ErrRateLimited, Message: "Slow down.", RetryAfter: 1500 * time.Millisecond},
		{Kind: llm.ErrOverloaded, Message: "Busy."},
		{Status: 401, Kind: llm.ErrAuth, Message: "Bad key."},
		{Status: 400, Kind: llm.ErrContextTooLong, Message: "prompt is too long: 300000 tokens > 200000 maximum"},
		{Status: 400, Kind: llm.ErrBadRequest, Message: "max_tokens: must be at least 1"},
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		for _, e := range cases {
			rec := httptest.NewRecorder()
			e.Write(rec, f)
			_, err := wire.DecodeAnswer(answerCall(t, f, false), rec.Code, rec.Header(), rec.Body.Bytes())
			var pe *llm.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("%s %s: err = %v, want a provider error", f, e.Kind, err)
			}
			want := llm.ProviderError{Kind: e.Kind, Provider: f.String(), StatusCode: e.StatusCode(f), Message: e.Message, RetryAfter: e.RetryAfter}
			if *pe != want {
				t.Errorf("%s %s: got %+v, want %+v", f, e.Kind, *pe, want)
			}
		}

		// An error event after the stream began.
		c := answerCall(t, f, true)
		rec := httptest.NewRecorder()
		wire.WriteResponse(rec, c, answers(f)["text"], nil)
		events := strings.SplitAfter(rec.Body.String(), "\n\n")
		body := strings.Join(events[:2], "") + string((&wire.Error{Kind: llm.ErrOverloaded, Message: "Overloaded mid-stream."}).Event(f))
		_, err := wire.DecodeAnswer(c, http.StatusOK, nil, []byte(body))
		var pe *llm.ProviderError
		if !errors.As(err, &pe) || pe.Kind != llm.ErrOverloaded || pe.Message != "Overloaded mid-stream." {
			t.Errorf("%s: a stream's error event: err = %v, want overloaded with its message", f, err)
		}

		// A stream cut short, and a JSON body cut short.
		_, err = wire.DecodeAnswer(c, http.StatusOK, nil, []byte(strings.Join(events[:len(events)-2], "")))
		if !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("%s: a stream without its end: err = %v, want malformed", f, err)
		}
		rec = httptest.NewRecorder()
		(&wire.Error{Kind: llm.ErrMalformed}).Write(rec, f)
		if _, err := wire.DecodeAnswer(answerCall(t, f, false), rec.Code, rec.Header(), rec.Body.Bytes()); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("%s: a JSON body cut short: err = %v, want malformed", f, err)
		}
	}
}

// TestDecodeAnswerRetryAfterMs: OpenAI's and Anthropic's SDKs take the wait
// an error answer asks for from retry-after-ms (milliseconds, with a
// fraction) before Retry-After (seconds), and so does DecodeAnswer. A
// retry-after-ms that is no wait (not a number, zero or less, or 1e12 ms
// and more, about 32 years) says nothing, and Retry-After's is the wait.
func TestDecodeAnswerRetryAfterMs(t *testing.T) {
	cases := []struct {
		ms, seconds string
		want        time.Duration
	}{
		{"1500", "", 1500 * time.Millisecond},
		{"2.5", "", 2500 * time.Microsecond},
		{" 250 ", "9", 250 * time.Millisecond},
		{"0", "3", 3 * time.Second},
		{"-20", "3", 3 * time.Second},
		{"soon", "3", 3 * time.Second},
		{"1000000000000", "3", 3 * time.Second},
		{"1000000000000", "", 0},
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		rec := httptest.NewRecorder()
		(&wire.Error{Kind: llm.ErrRateLimited, Message: "Slow down."}).Write(rec, f)
		for _, tc := range cases {
			h := http.Header{}
			h.Set("Retry-After-Ms", tc.ms)
			if tc.seconds != "" {
				h.Set("Retry-After", tc.seconds)
			}
			_, err := wire.DecodeAnswer(answerCall(t, f, false), http.StatusTooManyRequests, h, rec.Body.Bytes())
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.Kind != llm.ErrRateLimited || pe.RetryAfter != tc.want {
				t.Errorf("%s, retry-after-ms %q, Retry-After %q: err = %v (%+v), want rate limited after %v", f, tc.ms, tc.seconds, err, pe, tc.want)
			}
		}
	}
}

// TestDecodeAnswerCorpus reads answers real servers sent (the shared
// corpus): the tool call each holds, its arguments whole.
func TestDecodeAnswerCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpora", "wire")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared corpus is absent (%v)", err)
	}
	cases := []struct {
		file   string
		format wire.Format
		stream bool
		want   llm.ToolCall
		finish llm.FinishReason
		usage  llm.Usage
	}{
		{"openai-chat/openai-gpt-4.1-nano-stream-tool-call.sse", wire.OpenAI, true,
			llm.ToolCall{ID: "call_PieqNSej6kM9hgYbcQdbZSaC", Name: "get_weather", Arguments: `{"location": "Tokyo"}`},
			llm.FinishToolCalls, llm.Usage{InputTokens: 67, OutputTokens: 31, CacheReported: true}},
		{"anthropic/anthropic-sdk-go__fallback-tooluse.sse", wire.Anthropic, true,
			llm.ToolCall{ID: "toolu_echo_1", Name: "echo", Arguments: `{"text": "hello"}`},
			llm.FinishToolCalls, llm.Usage{InputTokens: 31, OutputTokens: 40, CacheReported: true}},
	}
	for _, tc := range cases {
		body, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := wire.DecodeAnswer(answerCall(t, tc.format, tc.stream), http.StatusOK, nil, body)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(got.Message.ToolCalls) != 1 || got.Message.ToolCalls[0] != tc.want || got.FinishReason != tc.finish || got.Usage != tc.usage {
			t.Errorf("%s: got %+v", tc.file, got)
		}
	}
	// A whole Messages answer: the input object compacted.
	body, err := os.ReadFile(filepath.Join(dir, "anthropic/vercel-ai__anthropic-json-tool.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.DecodeAnswer(answerCall(t, wire.Anthropic, false), http.StatusOK, nil, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Message.ToolCalls) != 1 || !strings.HasPrefix(got.Message.ToolCalls[0].Arguments, `{"elements":[{"location":"San Francisco","temperature":-5,`) ||
		got.Usage != (llm.Usage{InputTokens: 1151, OutputTokens: 87, CacheReported: true}) {
		t.Errorf("vercel json tool: got %+v", got)
	}
}

// TestDecodeAnswerAnthropicStreamUsage reads a Messages stream as the API
// documents it: message_start states the input counts (and one output
// token so far), message_delta only the output count at the end. The
// input and cache counts must come from message_start, and the delta's
// zero counts must not replace them.
func TestDecodeAnswerAnthropicStreamUsage(t *testing.T) {
	body := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":3,"cache_read_input_tokens":20,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}

event: message_stop
data: {"type":"message_stop"}

`
	// The API also sends, in message_delta, the cumulative counts of every
	// kind; those replace the start's.
	cumulative := strings.Replace(strings.Replace(body,
		`"usage":{"input_tokens":5,"cache_creation_input_tokens":3,"cache_read_input_tokens":20,"output_tokens":1}`, `"usage":{"input_tokens":0,"output_tokens":1}`, 1),
		`"usage":{"output_tokens":7}`, `"usage":{"input_tokens":5,"cache_creation_input_tokens":3,"cache_read_input_tokens":20,"output_tokens":7}`, 1)
	for name, b := range map[string]string{"counts at the start": body, "cumulative counts at the end": cumulative} {
		got, err := wire.DecodeAnswer(answerCall(t, wire.Anthropic, true), http.StatusOK, nil, []byte(b))
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Usage{InputTokens: 28, OutputTokens: 7, CachedInputTokens: 20, CacheWriteTokens: 3}
		if got.Usage != want || got.Message.Content != "Done." || got.FinishReason != llm.FinishStop {
			t.Errorf("%s: got usage %+v, content %q, finish %q; want %+v, Done., stop", name, got.Usage, got.Message.Content, got.FinishReason, want)
		}
	}
}

// TestDecodeAnswerStreamLineEndings reads one Messages stream as the
// server-sent-events specification lets a server write it: lines ended by
// LF, CRLF or a lone CR, or mixed (a CR never just before an LF: that is
// one CRLF), each event's JSON split over two data lines (joined by a
// newline), a comment and an id line among them. Every spelling is the
// same answer; none loses or splits an event, none ending in a CR panics.
func TestDecodeAnswerStreamLineEndings(t *testing.T) {
	events := []string{
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":11,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading it."}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a.txt\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop"}`,
	}
	var lines []string
	for i, e := range events {
		var name struct{ Type string }
		if err := json.Unmarshal([]byte(e), &name); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, "event: "+name.Type)
		if i == 1 {
			lines = append(lines, ": a comment", "id: 7")
		}
		if first, rest, ok := strings.Cut(e, ","); ok {
			lines = append(lines, "data: "+first+",", "data:"+rest)
		} else {
			lines = append(lines, "data: "+e)
		}
		lines = append(lines, "")
	}
	join := func(ends ...string) string {
		var b strings.Builder
		for i, l := range lines {
			b.WriteString(l + ends[i%len(ends)])
		}
		return b.String()
	}
	want := &llm.Response{
		Message:      llm.AssistantMessage("Reading it.", llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path": "a.txt"}`}),
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 11, OutputTokens: 9},
	}
	for name, body := range map[string]string{
		"LF": join("\n"), "CRLF": join("\r\n"), "CR": join("\r"), "mixed": join("\r\n", "\n", "\r"),
	} {
		got, err := wire.DecodeAnswer(answerCall(t, wire.Anthropic, true), http.StatusOK, nil, []byte(body))
		if err != nil {
			t.Errorf("%s: %v\n%q", name, err, body)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// TestDecodeAnswerAnthropicArgumentsNotAnObject: a Messages answer's
// tool_use input is a JSON object, so WriteResponse sends arguments that are
// not one (cut short, an array, a string, not JSON) as a JSON string in a
// whole answer and byte for byte in a stream's input_json_delta; either
// reads back as the arguments sent, not as the string's JSON.
func TestDecodeAnswerAnthropicArgumentsNotAnObject(t *testing.T) {
	for _, args := range []string{`{"path": "a.txt",`, `[1, 2]`, `"a.txt"`, `not json`} {
		resp := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: args}),
			FinishReason: llm.FinishToolCalls}
		for _, stream := range []bool{false, true} {
			c := answerCall(t, wire.Anthropic, stream)
			rec := httptest.NewRecorder()
			wire.WriteResponse(rec, c, resp, &wire.Options{Chunk: 4})
			got, err := wire.DecodeAnswer(c, rec.Code, rec.Header(), rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s stream=%v: %v\n%s", args, stream, err, rec.Body)
			}
			if !reflect.DeepEqual(got, resp) {
				t.Errorf("%s stream=%v:\n got %+v\nwant %+v\n%s", args, stream, got, resp, rec.Body)
			}
		}
	}
}

// TestDecodeAnswerAnthropicStreamInputAtStart: a Messages stream sends a
// tool use's input as input_json_delta fragments after a start holding {};
// a server that sends the whole input in content_block_start and no delta
// gives the call that input (compacted) as its arguments, and one whose
// start holds {} and no delta follows gives a call without arguments.
func TestDecodeAnswerAnthropicStreamInputAtStart(t *testing.T) {
	stream := func(input string) string {
		return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":" + input + "}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":8}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	}
	for input, want := range map[string]string{
		`{"path": "a.txt", "lines": [1, 2]}`: `{"path":"a.txt","lines":[1,2]}`,
		`{ }`:                                "",
	} {
		got, err := wire.DecodeAnswer(answerCall(t, wire.Anthropic, true), http.StatusOK, nil, []byte(stream(input)))
		if err != nil {
			t.Fatalf("input %s: %v", input, err)
		}
		wantResp := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: want}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 5, OutputTokens: 8}}
		if !reflect.DeepEqual(got, wantResp) {
			t.Errorf("input %s:\n got %+v\nwant %+v", input, got, wantResp)
		}
	}
}

// TestDecodeAnswerNotJSON: an answer whose body is not the format's JSON
// (a proxy's HTML page sent with status 200, an event whose data is cut) is
// a malformed answer that says so, JSON and streamed alike.
func TestDecodeAnswerNotJSON(t *testing.T) {
	bodies := map[bool]string{
		false: "<html><body>502 Bad Gateway</body></html>",
		true:  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":\n\n",
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		for stream, body := range bodies {
			if f == wire.OpenAI && stream {
				body = "data: {\"id\":\"chatcmpl-1\",\"choices\":[\n\n"
			}
			_, err := wire.DecodeAnswer(answerCall(t, f, stream), http.StatusOK, nil, []byte(body))
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.Kind != llm.ErrMalformed || !strings.Contains(pe.Message, "is not the format's JSON") {
				t.Errorf("%s stream=%v: err = %v, want a malformed answer saying it is not JSON", f, stream, err)
			}
		}
	}
}

// TestDecodeAnswerOpenAIOptionalParts: a Chat Completions answer may leave
// out usage (a server or gateway that does not count), may send a call's
// arguments as null, and may leave an empty entry among its calls; the
// first is zero usage, the second no arguments, the third no call.
func TestDecodeAnswerOpenAIOptionalParts(t *testing.T) {
	body := `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_files","arguments":null}}]},"finish_reason":"tool_calls"}]}`
	got, err := wire.DecodeAnswer(answerCall(t, wire.OpenAI, false), http.StatusOK, nil, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "list_files"}), FinishReason: llm.FinishToolCalls}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// An entry with no id, name or arguments (a gap a server left in the
	// calls' indices) is no call.
	gap := strings.Replace(body, `"tool_calls":[`, `"tool_calls":[{},`, 1)
	got, err = wire.DecodeAnswer(answerCall(t, wire.OpenAI, false), http.StatusOK, nil, []byte(gap))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("a gap among the calls: got %+v, %v\nwant %+v", got, err, want)
	}
}

// TestDecodeAnswerLegacyFunctionCall: an answer to a request using the
// deprecated functions holds its call as message.function_call (or, in a
// stream, delta.function_call), which the bridge does not serve (it
// serves tool_calls); it is refused as malformed, naming it, rather than
// kept as an empty answer. A function_call of null, which some
// compatible servers send beside tool_calls, is no call.
func TestDecodeAnswerLegacyFunctionCall(t *testing.T) {
	legacy := map[bool]string{
		false: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"function_call":{"name":"greet","arguments":"{}"}},"finish_reason":"function_call"}]}`,
		true: "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"function_call\":{\"name\":\"greet\",\"arguments\":\"\"}}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"function_call\":{\"arguments\":\"{}\"}}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"function_call\"}]}\n\ndata: [DONE]\n\n",
	}
	for stream, body := range legacy {
		_, err := wire.DecodeAnswer(answerCall(t, wire.OpenAI, stream), http.StatusOK, nil, []byte(body))
		if !errors.Is(err, llm.ErrMalformed) || !strings.Contains(fmt.Sprint(err), "function_call") {
			t.Errorf("stream %v: err = %v, want malformed naming function_call", stream, err)
		}
	}
	plain := `{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi.","function_call":null},"finish_reason":"stop"}]}`
	resp, err := wire.DecodeAnswer(answerCall(t, wire.OpenAI, false), http.StatusOK, nil, []byte(plain))
	if err != nil || resp.Message.Content != "Hi." {
		t.Errorf("function_call null: %+v, %v, want the answer", resp, err)
	}
}
