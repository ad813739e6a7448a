package wire_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// responsesCall decodes a minimal Responses request (streamed or not).
func responsesCall(t *testing.T, stream bool) *wire.Call {
	t.Helper()
	body := `{"model":"m","input":"Hi.","stream":false}`
	if stream {
		body = `{"model":"m","input":"Hi.","stream":true}`
	}
	c, err := wire.Decode("/v1/responses", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// responsesAnswers are the responses the Responses API carries without
// loss: no cache writes, reasoning as whole items, and a cache count
// always stated, so that one of zero is reported (CacheReported).
func responsesAnswers() map[string]*llm.Response {
	long := strings.Repeat("Voilà: ünïcode text longer than one chunk. ", 4)
	return map[string]*llm.Response{
		"text": {Message: llm.AssistantMessage(long), FinishReason: llm.FinishStop,
			Usage: llm.Usage{InputTokens: 120, OutputTokens: 31, CachedInputTokens: 100, ReasoningTokens: 3}},
		"calls": {Message: llm.AssistantMessage("Reading both.",
			llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`},
			llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path":"` + strings.Repeat("dir/", 20) + `b.txt"}`}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 40, OutputTokens: 12, CacheReported: true}},
		"broken arguments": {Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_b", Name: "read_file", Arguments: `{"path": "a.t`}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{CacheReported: true}},
		"cut":      {Message: llm.AssistantMessage("The answer is"), FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 4, OutputTokens: 1, CacheReported: true}},
		"filtered": {Message: llm.AssistantMessage("I can"), FinishReason: llm.FinishFiltered, Usage: llm.Usage{CacheReported: true}},
		"reasoning": {Message: llm.Message{Role: llm.RoleAssistant, Content: "42.",
			Reasoning: []llm.Reasoning{{Text: "The user wants a file read.", Signature: reasoningItem}}},
			FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 9, OutputTokens: 20, ReasoningTokens: 18, CacheReported: true}},
	}
}

// TestResponsesAnswerRoundTrip: what the bridge encodes as a Responses
// server reads back into the response it encoded, JSON and streamed.
func TestResponsesAnswerRoundTrip(t *testing.T) {
	if !wire.ReadsAnswers(wire.Responses) {
		t.Fatal("the Responses format does not read answers")
	}
	for name, resp := range responsesAnswers() {
		for _, stream := range []bool{false, true} {
			c := responsesCall(t, stream)
			rec := httptest.NewRecorder()
			wire.WriteResponse(rec, c, resp, &wire.Options{Chunk: 7})
			got, err := wire.DecodeAnswer(c, rec.Code, rec.Header(), rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s stream=%v: %v\n%s", name, stream, err, rec.Body)
			}
			if !reflect.DeepEqual(got, resp) {
				t.Errorf("%s stream=%v:\n got %+v\nwant %+v\n%s", name, stream, got, resp, rec.Body)
			}
		}
	}
}

// TestResponsesAnswerErrors: an error answer, an error event in a stream
// and a stream cut short read back as the provider error encoded.
func TestResponsesAnswerErrors(t *testing.T) {
	f := wire.Responses
	cases := []wire.Error{
		{Status: 429, Kind: llm.ErrRateLimited, Message: "Slow down.", RetryAfter: 1500 * time.Millisecond},
		{Kind: llm.ErrOverloaded, Message: "Busy."},
		{Status: 401, Kind: llm.ErrAuth, Message: "Bad key."},
		{Status: 400, Kind: llm.ErrContextTooLong, Message: "Your input exceeds the context window of this model."},
		{Status: 400, Kind: llm.ErrBadRequest, Message: "max_output_tokens: must be at least 16"},
	}
	for _, e := range cases {
		rec := httptest.NewRecorder()
		e.Write(rec, f)
		_, err := wire.DecodeAnswer(responsesCall(t, true), rec.Code, rec.Header(), rec.Body.Bytes())
		var pe *llm.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: err = %v, want a provider error", e.Kind, err)
		}
		want := llm.ProviderError{Kind: e.Kind, Provider: "responses", StatusCode: e.StatusCode(f), Message: e.Message, RetryAfter: e.RetryAfter}
		if *pe != want {
			t.Errorf("%s: got %+v, want %+v", e.Kind, *pe, want)
		}
	}
	c := responsesCall(t, true)
	rec := httptest.NewRecorder()
	wire.WriteResponse(rec, c, responsesAnswers()["text"], nil)
	events := strings.SplitAfter(rec.Body.String(), "\n\n")
	body := strings.Join(events[:2], "") + string((&wire.Error{Kind: llm.ErrOverloaded, Message: "Overloaded mid-stream."}).Event(f))
	_, err := wire.DecodeAnswer(c, http.StatusOK, nil, []byte(body))
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || pe.Kind != llm.ErrOverloaded || pe.Message != "Overloaded mid-stream." {
		t.Errorf("a stream's error event: err = %v, want overloaded with its message", err)
	}
	// An error body in an event ({"error": {...}}, no type, as an API error
	// is written) fails the call with the error's own message.
	body = strings.Join(events[:2], "") + "data: {\"error\": {\"message\": \"Rate limit reached.\", \"type\": \"rate_limit_exceeded\"}}\n\n"
	if _, err = wire.DecodeAnswer(c, http.StatusOK, nil, []byte(body)); !errors.As(err, &pe) || pe.Message != "Rate limit reached." {
		t.Errorf("an error body in the stream: err = %v, want a provider error with its message", err)
	}
	if _, err := wire.DecodeAnswer(c, http.StatusOK, nil, []byte(strings.Join(events[:len(events)-2], ""))); !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("a stream without its end: err = %v, want malformed", err)
	}
	rec = httptest.NewRecorder()
	(&wire.Error{Kind: llm.ErrMalformed}).Write(rec, f)
	if _, err := wire.DecodeAnswer(responsesCall(t, false), rec.Code, rec.Header(), rec.Body.Bytes()); !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("a JSON body cut short: err = %v, want malformed", err)
	}
}

// cassette is a go-vcr cassette of the shared corpus, what the tests read
// of it.
type cassette struct {
	Interactions []struct {
		Request struct {
			Body string `yaml:"body"`
		} `yaml:"request"`
		Response struct {
			Body string `yaml:"body"`
			Code int    `yaml:"code"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

func corpusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpora", "wire", "openai-responses")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared corpus is absent (%v)", err)
	}
	return dir
}

// TestResponsesCorpus decodes what real clients sent and real servers
// answered (the shared corpus): every request decodes, and each answer to
// the tool call, the text and the usage it holds; a reasoning item keeps
// its encrypted_content.
func TestResponsesCorpus(t *testing.T) {
	dir := corpusDir(t)
	type want struct {
		calls  []llm.ToolCall
		text   string // a prefix of the answer's text
		usage  llm.Usage
		finish llm.FinishReason
		// reasoning is the number of reasoning items; encrypted, whether the
		// first keeps an encrypted_content.
		reasoning int
		encrypted bool
	}
	weather := func(id string) []llm.ToolCall {
		return []llm.ToolCall{{ID: id, Name: "weather", Arguments: `{"location":"Florence, Italy"}`}}
	}
	cases := []struct {
		file  string
		wants []want
	}{
		{"fantasy__openai-gpt-4o-mini__tool.yaml", []want{
			{calls: weather("call_XX4zIshrJWNnM1Z3n6XsaSxP"), usage: llm.Usage{InputTokens: 58, OutputTokens: 17, CacheReported: true}, finish: llm.FinishToolCalls},
			{usage: llm.Usage{InputTokens: 81, OutputTokens: 15, CacheReported: true}, finish: llm.FinishStop},
		}},
		{"fantasy__openai-gpt-4o-mini__multi_tool_streaming.yaml", []want{
			{calls: []llm.ToolCall{{ID: "call_ZckkKeJQwcJPC27VXT61xFLf", Name: "add", Arguments: `{"a":2,"b":3}`}, {ID: "call_M9h2AZgoLEv6q5gkex1QMtm2", Name: "multiply", Arguments: `{"a":2,"b":3}`}},
				usage: llm.Usage{InputTokens: 104, OutputTokens: 51, CacheReported: true}, finish: llm.FinishToolCalls},
			{text: "The sum of 2 and 3 is **5**", usage: llm.Usage{InputTokens: 150, OutputTokens: 28, CacheReported: true}, finish: llm.FinishStop},
		}},
		{"fantasy__openai-gpt-5__tool_streaming.yaml", []want{
			{calls: weather("call_nYgMM3oZuxort2H8Ky4uP5RE"), reasoning: 1, usage: llm.Usage{InputTokens: 63, OutputTokens: 77, CacheReported: true}, finish: llm.FinishToolCalls},
			{text: "Florence, Italy is currently about 40°C", reasoning: 1, usage: llm.Usage{InputTokens: 92, OutputTokens: 194, ReasoningTokens: 128, CacheReported: true}, finish: llm.FinishStop},
		}},
		{"fantasy__openai-o4-mini__thinking.yaml", []want{
			{calls: weather("call_eoYbwZiQUHtJHV4AFsy3T5iq"), reasoning: 1, encrypted: true, usage: llm.Usage{InputTokens: 60, OutputTokens: 93, ReasoningTokens: 64, CacheReported: true}, finish: llm.FinishToolCalls},
			{reasoning: 1, encrypted: true, usage: llm.Usage{InputTokens: 89, OutputTokens: 209, ReasoningTokens: 128, CacheReported: true}, finish: llm.FinishStop},
		}},
	}
	for _, tc := range cases {
		raw, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var cs cassette
		if err := yaml.Unmarshal(raw, &cs); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(cs.Interactions) != len(tc.wants) {
			t.Fatalf("%s: %d interactions, want %d", tc.file, len(cs.Interactions), len(tc.wants))
		}
		for i, in := range cs.Interactions {
			c, err := wire.Decode("/v1/responses", []byte(in.Request.Body))
			if err != nil {
				t.Fatalf("%s[%d]: the request: %v", tc.file, i, err)
			}
			got, err := wire.DecodeAnswer(c, in.Response.Code, nil, []byte(in.Response.Body))
			if err != nil {
				t.Fatalf("%s[%d]: the answer: %v", tc.file, i, err)
			}
			w := tc.wants[i]
			if !reflect.DeepEqual(got.Message.ToolCalls, w.calls) || !strings.HasPrefix(got.Message.Content, w.text) ||
				got.Usage != w.usage || got.FinishReason != w.finish || len(got.Message.Reasoning) != w.reasoning {
				t.Errorf("%s[%d]: got %+v", tc.file, i, got)
			}
			if w.encrypted && !strings.Contains(got.Message.Reasoning[0].Signature, `"encrypted_content":"gAAAA`) {
				t.Errorf("%s[%d]: the reasoning item lost its encrypted_content: %q", tc.file, i, got.Message.Reasoning[0].Signature)
			}
			if i > 0 && len(tc.wants[0].calls) > 0 {
				// The follow-up sends the calls back with their outputs.
				var tools int
				for _, m := range c.Request.Messages {
					if m.Role == llm.RoleTool && m.Name != "" {
						tools++
					}
				}
				if tools != len(tc.wants[0].calls) {
					t.Errorf("%s[%d]: %d named tool results, want %d: %+v", tc.file, i, tools, len(tc.wants[0].calls), c.Request.Messages)
				}
			}
		}
	}
}

// TestResponsesCorpusErrors: a stream that fails (an error event, then
// response.failed) and an error answer to a streamed request.
func TestResponsesCorpusErrors(t *testing.T) {
	dir := corpusDir(t)
	chunks, err := os.ReadFile(filepath.Join(dir, "vercel-ai__openai-error.1.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture keeps one event's data a line: make it a stream again.
	var stream strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(chunks)), "\n") {
		stream.WriteString("data: " + line + "\n\n")
	}
	_, err = wire.DecodeAnswer(responsesCall(t, true), http.StatusOK, nil, []byte(stream.String()))
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, "You exceeded your current quota") {
		t.Errorf("a failed stream: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "pydantic-ai__test_openai_responses_model_http_error.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Interactions []struct {
			Response struct {
				ParsedBody any `yaml:"parsed_body"`
				Status     struct {
					Code int `yaml:"code"`
				} `yaml:"status"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	r := v.Interactions[0].Response
	body, err := jsonOf(r.ParsedBody)
	if err != nil {
		t.Fatal(err)
	}
	_, err = wire.DecodeAnswer(responsesCall(t, true), r.Status.Code, nil, body)
	if !errors.As(err, &pe) || pe.Kind != llm.ErrBadRequest || pe.StatusCode != 400 || !strings.Contains(pe.Message, "Invalid 'temperature'") {
		t.Errorf("an error answer to a streamed request: %v", err)
	}
}

// jsonOf encodes a value YAML decoded (maps with string keys) as JSON.
func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

// TestResponsesStreamEndEventWithoutResponse: a stream whose
// response.completed (or .failed, .incomplete) event holds no response
// object is malformed, an error that names the event, not a crash.
func TestResponsesStreamEndEventWithoutResponse(t *testing.T) {
	for _, typ := range []string{"response.completed", "response.failed", "response.incomplete"} {
		body := "event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"sequence_number\":1}\n\n"
		_, err := wire.DecodeAnswer(responsesCall(t, true), http.StatusOK, nil, []byte(body))
		if !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), typ) {
			t.Errorf("%s without a response: err = %v, want malformed naming the event", typ, err)
		}
	}
}

// TestResponsesAnswerUsageNotANumber: an answer whose usage states a token
// count as something other than a number is malformed, JSON or streamed,
// with an error naming the key; its usage is not read as zero tokens.
func TestResponsesAnswerUsageNotANumber(t *testing.T) {
	usages := map[string]string{ // the key the error names: the usage
		"usage.input_tokens":                           `{"input_tokens":"120","output_tokens":31,"total_tokens":151}`,
		"usage.output_tokens":                          `{"input_tokens":120,"output_tokens":true,"total_tokens":151}`,
		"usage.input_tokens_details.cached_tokens":     `{"input_tokens":120,"input_tokens_details":{"cached_tokens":"all"},"output_tokens":31,"total_tokens":151}`,
		"usage.output_tokens_details.reasoning_tokens": `{"input_tokens":120,"output_tokens":31,"output_tokens_details":{"reasoning_tokens":[3]},"total_tokens":151}`,
	}
	for key, usage := range usages {
		object := `{"id":"resp_1","object":"response","status":"completed","output":[` +
			`{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi.","annotations":[]}]}],` +
			`"usage":` + usage + `}`
		bodies := map[bool]string{
			false: object,
			true:  "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":1,\"response\":" + object + "}\n\n",
		}
		for stream, body := range bodies {
			resp, err := wire.DecodeAnswer(responsesCall(t, stream), http.StatusOK, nil, []byte(body))
			if !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), key) {
				t.Errorf("%s not a number (stream %v): got %+v, err = %v; want malformed naming the key", key, stream, resp, err)
			}
		}
	}
}

// TestResponsesAnswerCallWithoutIDOrName: an answer's function_call item
// without call_id and name (nothing to answer it by, no tool to call) is
// malformed, naming the item; one with either is a call.
func TestResponsesAnswerCallWithoutIDOrName(t *testing.T) {
	object := func(call string) string {
		return `{"id":"resp_1","object":"response","status":"completed","output":[` + call + `],"usage":{"input_tokens":9,"output_tokens":3,"total_tokens":12}}`
	}
	_, err := wire.DecodeAnswer(responsesCall(t, false), http.StatusOK, nil, []byte(object(`{"type":"function_call","id":"fc_1","arguments":"{}"}`)))
	if !errors.Is(err, llm.ErrMalformed) || !strings.Contains(err.Error(), "output[0]: a function call without call_id and name") {
		t.Errorf("a call without call_id and name: err = %v, want malformed naming output[0]", err)
	}
	for _, call := range []string{
		`{"type":"function_call","id":"fc_1","call_id":"call_1","arguments":"{}"}`,
		`{"type":"function_call","id":"fc_1","name":"list_files","arguments":"{}"}`,
	} {
		resp, err := wire.DecodeAnswer(responsesCall(t, false), http.StatusOK, nil, []byte(object(call)))
		if err != nil || len(resp.Message.ToolCalls) != 1 {
			t.Errorf("%s: %+v, %v; want one call", call, resp, err)
		}
	}
}
