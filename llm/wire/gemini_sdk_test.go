package wire_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// genaiBackends are the two backends of google.golang.org/genai, each with
// the path prefix its requests carry and the API version in it.
var genaiBackends = []struct {
	name    string
	vertex  bool
	prefix  string
	version string
}{
	{"gemini-api", false, "/v1/models/", "v1"},
	{"vertex", true, "/v1beta1/projects/proj-7/locations/europe-west4/publishers/google/models/", "v1beta1"},
}

// genaiClient is a genai client of the backend served by h in process.
func genaiClient(t *testing.T, h http.Handler, vertex bool) *genai.Client {
	t.Helper()
	cfg := &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "AIza-test-key",
		HTTPClient: handlerClient(h), HTTPOptions: genai.HTTPOptions{BaseURL: "http://model.test/"},
	}
	if vertex {
		cfg.Backend, cfg.APIKey, cfg.Project, cfg.Location = genai.BackendVertexAI, "", "proj-7", "europe-west4"
	}
	c, err := genai.NewClient(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// geminiServer decodes each request with wire.Decode, keeps it with its
// path, and answers with answer's response or error.
type geminiServer struct {
	t      *testing.T
	calls  []*wire.Call
	paths  []string
	bodies [][]byte
	answer func(*wire.Call) (*llm.Response, *wire.Error)
}

func (s *geminiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		s.t.Errorf("decoding %s: %v\n%s", r.URL.Path, err, body)
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.Gemini)
		return
	}
	if c.Stream != (r.URL.Query().Get("alt") == "sse") {
		s.t.Errorf("%s: stream %v but alt=%q", r.URL, c.Stream, r.URL.Query().Get("alt"))
	}
	s.calls, s.paths, s.bodies = append(s.calls, c), append(s.paths, r.URL.Path), append(s.bodies, body)
	resp, e := s.answer(c)
	if e != nil {
		e.Write(w, c.Format)
		return
	}
	wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 5})
}

// generate makes one call with genai, streamed or not; a stream's chunks
// are gathered as an agent gathers them (every part in order, the last
// finish reason and usage).
func generate(t *testing.T, c *genai.Client, stream bool, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.Content, genai.FinishReason, *genai.GenerateContentResponseUsageMetadata, error) {
	t.Helper()
	if !stream {
		r, err := c.Models.GenerateContent(t.Context(), "gemini-test", contents, cfg)
		if err != nil {
			return nil, "", nil, err
		}
		return r.Candidates[0].Content, r.Candidates[0].FinishReason, r.UsageMetadata, nil
	}
	out := &genai.Content{Role: "model"}
	var finish genai.FinishReason
	var usage *genai.GenerateContentResponseUsageMetadata
	for r, err := range c.Models.GenerateContentStream(t.Context(), "gemini-test", contents, cfg) {
		if err != nil {
			return nil, "", nil, err
		}
		out.Parts = append(out.Parts, r.Candidates[0].Content.Parts...)
		if r.Candidates[0].FinishReason != "" {
			finish = r.Candidates[0].FinishReason
		}
		usage = r.UsageMetadata
	}
	return out, finish, usage, nil
}

func sig(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestGeminiThroughGenai serves answers to google.golang.org/genai, both
// backends, streamed and not, and sends what genai parsed back as the next
// request's model turn, as an agent does: wire must decode that turn to the
// message it served, signatures byte for byte, and the finish reason and
// usage must reach genai as served.
func TestGeminiThroughGenai(t *testing.T) {
	cases := []struct {
		name   string
		resp   llm.Response
		finish genai.FinishReason
	}{
		{name: "text", finish: genai.FinishReasonStop, resp: llm.Response{Message: llm.AssistantMessage("The capital of Portugal is Lisbon, by the Tagus."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 31, OutputTokens: 12}}},
		{name: "signed call with id", finish: genai.FinishReasonStop, resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			// Keys in genai's order: it holds args as a Go map, so it
			// sends them back sorted whatever order they came in.
			{ID: "k2x9", Name: "lookup_tide", Arguments: `{"day":"2026-12-07","port":"Nazaré"}`, Signature: sig("opaque tide thoughts")}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 140, OutputTokens: 60, ReasoningTokens: 41, CachedInputTokens: 128}}},
		{name: "text and parallel calls without ids", finish: genai.FinishReasonStop, resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Checking both.", ToolCalls: []llm.ToolCall{
			{Name: "stat", Arguments: `{"path":"a.txt"}`, Signature: sig("first call signed")},
			{Name: "stat", Arguments: `{"path":"b.txt"}`},
			{Name: "now"}}}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 9, OutputTokens: 20}}},
		{name: "thought summary and signed text", finish: genai.FinishReasonStop, resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Seven times six is 42.",
			Reasoning: []llm.Reasoning{{Text: "Multiply, then say it plainly."}, {Signature: sig("signature of the hidden thinking")}}},
			FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 5, OutputTokens: 30, ReasoningTokens: 22}}},
		{name: "max tokens", finish: genai.FinishReasonMaxTokens, resp: llm.Response{Message: llm.AssistantMessage("It was the best of"), FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 3, OutputTokens: 5}}},
		{name: "safety", finish: genai.FinishReasonSafety, resp: llm.Response{Message: llm.AssistantMessage(""), FinishReason: llm.FinishFiltered, Usage: llm.Usage{InputTokens: 8}}},
	}
	for _, b := range genaiBackends {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				t.Run(b.name+"/"+tc.name+map[bool]string{false: "/json", true: "/stream"}[stream], func(t *testing.T) {
					s := &geminiServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return &tc.resp, nil }}
					c := genaiClient(t, s, b.vertex)
					user := genai.NewContentFromText("question", genai.RoleUser)
					content, finish, usage, err := generate(t, c, stream, []*genai.Content{user}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if finish != tc.finish {
						t.Errorf("finish reason %q, want %q", finish, tc.finish)
					}
					u := tc.resp.Usage
					if usage == nil || int(usage.PromptTokenCount) != u.InputTokens || int(usage.CandidatesTokenCount+usage.ThoughtsTokenCount) != u.OutputTokens ||
						int(usage.ThoughtsTokenCount) != u.ReasoningTokens || int(usage.CachedContentTokenCount) != u.CachedInputTokens {
						t.Errorf("usage %+v, want %+v", usage, u)
					}
					// The agent's next request: the answer as genai gave it.
					if _, _, _, err := generate(t, c, stream, []*genai.Content{user, content}, nil); err != nil {
						t.Fatal(err)
					}
					if len(s.calls) != 2 {
						t.Fatalf("%d calls", len(s.calls))
					}
					for i, p := range s.paths {
						want := b.prefix + "gemini-test:generateContent"
						if stream {
							want = b.prefix + "gemini-test:streamGenerateContent"
						}
						if p != want {
							t.Errorf("call %d: path %s, want %s", i, p, want)
						}
					}
					got := s.calls[1].Request.Messages
					want := []llm.Message{llm.UserMessage("question"), tc.resp.Message}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("the answer sent back decodes to\n%+v\nwant\n%+v\nbody %s", got, want, s.bodies[1])
					}
					if c := s.calls[1]; c.Model != "gemini-test" || c.Stream != stream || string(c.Request.Params["model"]) != `"gemini-test"` {
						t.Errorf("model %q, stream %v, params %s", c.Model, c.Stream, c.Request.Params)
					}
				})
			}
		}
	}
}

// TestGeminiRequestThroughGenai sends a whole configured conversation with
// genai and checks what wire decodes of it: the system instruction, the
// turns with calls and results (ids when given), the tools with both
// schema spellings, the response schema and every pinned parameter.
func TestGeminiRequestThroughGenai(t *testing.T) {
	temp, topP, topK := float32(0.25), float32(0.9), float32(40)
	seed := int32(7)
	budget := int32(512)
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("You keep a lighthouse log.", genai.RoleUser),
		Temperature:       &temp, TopP: &topP, TopK: &topK, Seed: &seed, CandidateCount: 1,
		MaxOutputTokens: 256, StopSequences: []string{"END"},
		ResponseMIMEType:   "application/json",
		ResponseJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"entry": map[string]any{"type": "string"}}},
		ThinkingConfig:     &genai.ThinkingConfig{ThinkingBudget: &budget},
		ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
			Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{"read_log"}}},
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
			{Name: "read_log", Description: "Read the log of a day.", ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"day": map[string]any{"type": "string"}}, "required": []any{"day"}}},
			{Name: "lamp", Description: "Switch the lamp.", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"on": {Type: genai.TypeBoolean}}}},
		}}},
	}
	contents := []*genai.Content{
		genai.NewContentFromText("What happened on Monday?", genai.RoleUser),
		{Role: "model", Parts: []*genai.Part{
			{Text: "Let me look.", ThoughtSignature: []byte("t-sig")},
			{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "read_log", Args: map[string]any{"day": "Monday"}}, ThoughtSignature: []byte("c-sig")},
			{FunctionCall: &genai.FunctionCall{ID: "c2", Name: "lamp", Args: map[string]any{"on": true}}},
		}},
		{Role: "user", Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_log", Response: map[string]any{"output": "fog, ship passed"}}},
			{FunctionResponse: &genai.FunctionResponse{ID: "c2", Name: "lamp", Response: map[string]any{"error": "bulb out"}}},
		}},
	}
	for _, b := range genaiBackends {
		for _, stream := range []bool{false, true} {
			t.Run(b.name+map[bool]string{false: "/json", true: "/stream"}[stream], func(t *testing.T) {
				s := &geminiServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
					return &llm.Response{Message: llm.AssistantMessage(`{"entry":"fog"}`), FinishReason: llm.FinishStop}, nil
				}}
				if _, _, _, err := generate(t, genaiClient(t, s, b.vertex), stream, contents, cfg); err != nil {
					t.Fatal(err)
				}
				c := s.calls[0]
				want := []llm.Message{
					llm.SystemMessage("You keep a lighthouse log."),
					llm.UserMessage("What happened on Monday?"),
					{Role: llm.RoleAssistant, Content: "Let me look.", Reasoning: []llm.Reasoning{{Signature: sig("t-sig")}}, ToolCalls: []llm.ToolCall{
						{ID: "c1", Name: "read_log", Arguments: `{"day":"Monday"}`, Signature: sig("c-sig")},
						{ID: "c2", Name: "lamp", Arguments: `{"on":true}`}}},
					llm.ToolMessage("c1", "read_log", `{"output":"fog, ship passed"}`),
					llm.ToolMessage("c2", "lamp", `{"error":"bulb out"}`),
				}
				if !reflect.DeepEqual(c.Request.Messages, want) {
					t.Errorf("messages\n got %+v\nwant %+v", c.Request.Messages, want)
				}
				if len(c.Request.Tools) != 2 || c.Request.Tools[0].Name != "read_log" || c.Request.Tools[0].Description != "Read the log of a day." ||
					!sameJSON(t, c.Request.Tools[0].Parameters, `{"type":"object","properties":{"day":{"type":"string"}},"required":["day"]}`) ||
					c.Request.Tools[1].Name != "lamp" || !strings.Contains(strings.ToLower(string(c.Request.Tools[1].Parameters)), `"boolean"`) {
					t.Errorf("tools %+v", c.Request.Tools)
				}
				if !sameJSON(t, c.Request.ResponseSchema, `{"type":"object","properties":{"entry":{"type":"string"}}}`) {
					t.Errorf("response schema %s", c.Request.ResponseSchema)
				}
				wantParams := map[string]string{
					"model": `"gemini-test"`, "temperature": `0.25`, "topP": `0.9`, "topK": `40`, "seed": `7`, "candidateCount": `1`,
					"maxOutputTokens": `256`, "stopSequences": `["END"]`, "responseMimeType": `"application/json"`,
					"thinkingConfig": `{"thinkingBudget":512}`,
					"toolConfig":     `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["read_log"]}}`,
					"apiVersion":     `"` + b.version + `"`,
				}
				for k, v := range wantParams {
					if !sameJSON(t, c.Request.Params[k], v) {
						t.Errorf("param %s = %s, want %s", k, c.Request.Params[k], v)
					}
				}
				for k := range c.Request.Params {
					if _, ok := wantParams[k]; !ok {
						t.Errorf("param %s = %s pinned, not sent", k, c.Request.Params[k])
					}
				}
			})
		}
	}
}

// TestGeminiErrorsThroughGenai: each error kind reaches genai as Google's
// error body with its status and google.rpc code, in a whole answer and in
// a stream that failed before it began; the kind reads back from what
// genai parsed, and a retry delay from its RetryInfo detail.
func TestGeminiErrorsThroughGenai(t *testing.T) {
	cases := []struct {
		err    wire.Error
		status int
		code   string
		kind   llm.ErrorKind
		retry  time.Duration
	}{
		{wire.Error{Kind: llm.ErrRateLimited, Message: "Quota exceeded for generate_content_requests", RetryAfter: 3 * time.Second}, 429, "RESOURCE_EXHAUSTED", llm.ErrRateLimited, 3 * time.Second},
		{wire.Error{Status: 429, Message: "slow down", RetryAfter: 1500 * time.Millisecond}, 429, "RESOURCE_EXHAUSTED", llm.ErrRateLimited, 1500 * time.Millisecond},
		{wire.Error{Kind: llm.ErrOverloaded, Message: "The model is overloaded."}, 503, "UNAVAILABLE", llm.ErrOverloaded, 0},
		{wire.Error{Status: 500, Message: "An internal error has occurred."}, 500, "INTERNAL", llm.ErrOverloaded, 0},
		{wire.Error{Kind: llm.ErrBadRequest, Message: "contents is not specified"}, 400, "INVALID_ARGUMENT", llm.ErrBadRequest, 0},
		{wire.Error{Kind: llm.ErrContextTooLong, Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}, 400, "INVALID_ARGUMENT", llm.ErrContextTooLong, 0},
		{wire.Error{Kind: llm.ErrContextTooLong, Message: "1200000 > 1048576"}, 400, "INVALID_ARGUMENT", llm.ErrContextTooLong, 0},
		{wire.Error{Kind: llm.ErrAuth, Message: "API key not valid. Please pass a valid API key."}, 401, "UNAUTHENTICATED", llm.ErrAuth, 0},
		{wire.Error{Status: 403, Message: "Permission denied on resource project"}, 403, "PERMISSION_DENIED", llm.ErrAuth, 0},
		{wire.Error{Kind: llm.ErrTimeout, Message: "Deadline expired before operation could complete."}, 504, "DEADLINE_EXCEEDED", llm.ErrTimeout, 0},
		{wire.Error{Kind: llm.ErrCancelled, Message: "The operation was cancelled."}, 499, "CANCELLED", llm.ErrCancelled, 0},
	}
	for _, b := range genaiBackends {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				t.Run(b.name+"/"+tc.code+"/"+tc.err.Message[:4]+map[bool]string{false: "/json", true: "/stream"}[stream], func(t *testing.T) {
					s := &geminiServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return nil, &tc.err }}
					_, _, _, err := generate(t, genaiClient(t, s, b.vertex), stream, []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, nil)
					var ae genai.APIError
					if !errors.As(err, &ae) {
						t.Fatalf("error %v (%T) is not a genai.APIError", err, err)
					}
					if ae.Code != tc.status || ae.Status != tc.code || !strings.Contains(ae.Message, tc.err.Message) {
						t.Errorf("code %d status %s message %q; want %d %s holding %q", ae.Code, ae.Status, ae.Message, tc.status, tc.code, tc.err.Message)
					}
					if k := wire.GeminiErrorKind(ae.Code, ae.Status, ae.Message); k != tc.kind {
						t.Errorf("kind %s, want %s", k, tc.kind)
					}
					if d := wire.GeminiRetryDelay(ae.Details); d != tc.retry {
						t.Errorf("retry delay %v, want %v", d, tc.retry)
					}
				})
			}
		}
	}
}

// TestGeminiStreamErrorEvent: a stream that fails after it began carries
// Google's error body as a data event, which genai returns as an APIError.
func TestGeminiStreamErrorEvent(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c, err := wire.Decode(r.URL.Path, body)
		if err != nil {
			t.Error(err)
			return
		}
		_, stream := wire.EncodeResponse(c, &llm.Response{Message: llm.AssistantMessage("a partial answer, long enough for two chunks")}, nil)
		w.Header().Set("Content-Type", wire.ContentStream)
		w.Write(stream[:strings.Index(string(stream), "\n\n")+2])
		w.Write((&wire.Error{Kind: llm.ErrRateLimited, Message: "too fast"}).Event(wire.Gemini))
	})
	_, _, _, err := generate(t, genaiClient(t, h, false), true, []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, nil)
	var ae genai.APIError
	if !errors.As(err, &ae) || ae.Status != "RESOURCE_EXHAUSTED" || ae.Message != "too fast" {
		t.Errorf("error %v, want RESOURCE_EXHAUSTED saying too fast", err)
	}
}

// TestGeminiDecodeErrors: what wire refuses in a Gemini body names where.
func TestGeminiDecodeErrors(t *testing.T) {
	path := "/v1beta/models/gemini-test:generateContent"
	for _, tc := range []struct{ body, want string }{
		{`{"contents": [{"role": "narrator", "parts": [{"text": "x"}]}]}`, `contents[0].role: unknown role "narrator"`},
		{`{"contents": [{"role": "user", "parts": [{"text": 7}]}]}`, `invalid request: contents[0]: json: cannot unmarshal number`},
		{`{"contents": [{"role": "user", "parts": [{"text": "x"}]}], "tools": 7}`, `invalid request: tools: json: cannot unmarshal number`},
		{`{"tools": [{"googleSearch": {}}]}`, `tools[0]: googleSearch tools are not supported`},
		{`{"tools": [{"functionDeclarations": [{"description": "x"}]}]}`, `tools[0].functionDeclarations[0].name: missing`},
		{`{"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]}`, `contents[0].parts[0].functionCall.name: missing`},
		{`{"contents": [{"role": "user", "parts": [{"functionResponse": {"response": {}}}]}]}`, `contents[0].parts[0].functionResponse.name: missing`},
		{`not json`, `invalid request: gemini body:`},
	} {
		_, err := wire.Decode(path, []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, wire.ErrRequest) {
			t.Errorf("Decode(%s) = %v, want an ErrRequest holding %q", tc.body, err, tc.want)
		}
	}
}

// TestGeminiSpacingIsNotCompared: the same request with other spacing and
// key order decodes to the same call.
func TestGeminiSpacingIsNotCompared(t *testing.T) {
	path := "/v1beta/models/gemini-test:generateContent"
	a := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1}}}]}],"generationConfig":{"temperature":0.5},"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT"}}]}]}`
	b := "{\n  \"tools\": [ { \"functionDeclarations\": [ { \"parameters\": { \"type\": \"OBJECT\" }, \"name\": \"f\" } ] } ],\n  \"generationConfig\": { \"temperature\": 0.5 },\n  \"contents\": [ { \"parts\": [ { \"text\": \"hi\" } ], \"role\": \"user\" },\n    { \"role\": \"model\", \"parts\": [ { \"functionCall\": { \"args\": { \"x\": 1 }, \"name\": \"f\" } } ] } ]\n}"
	ca, err := wire.Decode(path, []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := wire.Decode(path, []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ca, cb) {
		t.Errorf("spacing changed the call:\n%+v\n%+v", ca, cb)
	}
	var v any
	if json.Unmarshal([]byte(b), &v) != nil {
		t.Fatal("b is not JSON")
	}
}
