package evalrun

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
)

// paramScenario is bridged and unrecorded: record writes its tape.
const paramScenario = `format: tapeloop/v1
setup:
  agent: {go: echo}
input:
  - {role: user, content: "Say hello."}
expect:
  termination: final_text
`

// agentRequest is one request a rawAgent sends, as it is: in format (a
// wire format's name), to path after the root the bridge gives the
// format's clients (the format's own path when empty), with body and
// header.
type agentRequest struct {
	format, path, body string
	header             map[string]string
}

// url returns where the request goes on the bridge of r.
func (a agentRequest) url(r *bridge.Run) string {
	switch a.format {
	case "anthropic":
		return r.AnthropicBaseURL + cmp.Or(a.path, "/v1/messages")
	case "responses":
		return r.OpenAIBaseURL + cmp.Or(a.path, "/responses")
	case "gemini":
		return r.GeminiBaseURL + a.path
	case "bedrock":
		return r.BedrockBaseURL + a.path
	}
	return r.OpenAIBaseURL + cmp.Or(a.path, "/chat/completions")
}

// rawAgent sends one request, a, and reports the answer's status as its
// final text.
func rawAgent(a agentRequest) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.url(r), strings.NewReader(a.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+r.APIKey)
		for k, v := range a.header {
			req.Header.Set(k, v)
		}
		resp, err := r.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		r.Final("answered")
		return nil
	}
}

func chatBody(model, params string) string {
	return `{"model":"` + model + `","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Say hello."}],` +
		`"tools":[{"type":"function","function":{"name":"greet","description":"Greet.","parameters":{"type":"object"}}}],"user":"u-1"` + params + `}`
}

func responsesBody(model, params string) string {
	return `{"model":"` + model + `","instructions":"Be brief.","input":[{"role":"user","content":"Say hello."}],` +
		`"tools":[{"type":"function","name":"greet","description":"Greet.","parameters":{"type":"object"}}],"user":"u-1","store":false` + params + `}`
}

func geminiBody(params string) string {
	return `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Say hello."}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"greet","description":"Greet.","parameters":{"type":"object"}}]}],"labels":{"team":"a"}` + params + `}`
}

func bedrockBody(toolChoice, params string) string {
	return `{"system":[{"text":"Be brief."}],"messages":[{"role":"user","content":[{"text":"Say hello."}]}],` +
		`"toolConfig":{"tools":[{"toolSpec":{"name":"greet","description":"Greet.","inputSchema":{"json":{"type":"object"}}}}]` + toolChoice + `},` +
		`"requestMetadata":{"user":"u-1"}` + params + `}`
}

func messagesBody(model, params string) string {
	return `{"model":"` + model + `","system":"Be brief.","messages":[{"role":"user","content":"Say hello."}],` +
		`"tools":[{"name":"greet","description":"Greet.","input_schema":{"type":"object"}}],"metadata":{"user_id":"u-1"}` + params + `}`
}

// mcpServers is a Messages request's mcp_servers (the MCP connector)
// holding one URL server, with the tool_configuration config and, unless
// token is empty, an authorization_token.
func mcpServers(url, config, token string) string {
	auth := ""
	if token != "" {
		auth = `,"authorization_token":"` + token + `"`
	}
	return `,"mcp_servers":[{"type":"url","url":"` + url + `","name":"docs"` + auth + `,"tool_configuration":` + config + `}]`
}

// scriptedVendor is a vendor's server answering "Hello." in the format
// it is called in, keeping each request body it got.
type scriptedVendor struct {
	mu     sync.Mutex
	bodies [][]byte
	header []http.Header
	paths  []string
}

func (v *scriptedVendor) server(t *testing.T) *httptest.Server {
	h := bridge.Handler(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("Hello.")}, nil
	}), nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		v.mu.Lock()
		v.bodies, v.header, v.paths = append(v.bodies, body), append(v.header, r.Header.Clone()), append(v.paths, r.URL.Path)
		v.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// paramRecorders are, per wire format, the provider record forwards
// through (--model) and its root on the scripted vendor, after the
// server's URL (--base-url).
var paramRecorders = map[string]struct{ model, root string }{
	"openai":    {"openai-compatible/gpt-4.1", "/v1"},
	"anthropic": {"anthropic/claude-sonnet-4-5", ""},
	"responses": {"openai-responses/gpt-5", "/v1"},
	"gemini":    {"gemini/gemini-2.5-flash", ""},
	"bedrock":   {"bedrock/amazon.nova-pro-v1:0", ""},
}

// responses is a Responses API request naming model, with params.
func responses(model, params string) agentRequest {
	return agentRequest{format: "responses", body: responsesBody(model, params)}
}

// gemini is a Gemini API request (generateContent) to the model at path
// (after the root: version and model), with params.
func gemini(path, params string) agentRequest {
	return agentRequest{format: "gemini", path: path + ":generateContent", body: geminiBody(params)}
}

// geminiSnake is a Gemini API request (generateContent) to the model at
// path with the system instruction system, spelled in snake_case, as the
// REST API accepts too.
func geminiSnake(path, system string) agentRequest {
	return agentRequest{format: "gemini", path: path + ":generateContent",
		body: `{"system_instruction":{"parts":[{"text":"` + system + `"}]},"contents":[{"role":"user","parts":[{"text":"Say hello."}]}]}`}
}

// bedrock is a Converse request to model, with toolChoice (a toolConfig
// member) and params.
func bedrock(model, toolChoice, params string) agentRequest {
	return agentRequest{format: "bedrock", path: "/model/" + model + "/converse", body: bedrockBody(toolChoice, params)}
}

// chat is a Chat Completions request naming model, with params.
func chat(model, params string) agentRequest {
	return agentRequest{format: "openai", body: chatBody(model, params)}
}

// legacyChat is a Chat Completions request naming model without tools,
// with params (the deprecated functions and function_call among them).
func legacyChat(model, params string) agentRequest {
	return agentRequest{format: "openai", body: `{"model":"` + model + `","messages":[{"role":"user","content":"Say hello."}]` + params + `}`}
}

// messages is a Messages request naming model, with params and the
// anthropic-version header (then header, name and value pairs).
func messages(model, params string, header ...string) agentRequest {
	a := agentRequest{format: "anthropic", body: messagesBody(model, params), header: map[string]string{"anthropic-version": "2023-06-01"}}
	for i := 0; i+1 < len(header); i += 2 {
		a.header[header[i]] = header[i+1]
	}
	return a
}

// TestBridgedParamsPinned, per behaviour-changing parameter of each wire
// format: record forwards the agent's request to the vendor byte for
// byte, the tape pins the parameter, the replay passes, the agent sending
// another value fails naming the parameter and the line of the offered
// block, rebase accepts it, and the old value then fails.
func TestBridgedParamsPinned(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
	t.Setenv("GEMINI_API_KEY", "AIzaTest0123456789abcdefghij")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIATEST0123456789AB")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-test-0123456789abcdefghij")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	const gpt, claude, gpt5 = "gpt-4.1", "claude-sonnet-4-5", "gpt-5"
	const flash, nova = "/v1beta/models/gemini-2.5-flash", "amazon.nova-pro-v1:0"
	cases := []struct {
		name      string
		base, now agentRequest
		field     string
	}{
		{"chat model", chat(gpt, ""), chat("gpt-3.5-turbo", ""), "offered.params.model"},
		{"chat tool_choice", chat(gpt, `,"tool_choice":"auto"`), chat(gpt, `,"tool_choice":"none"`), "offered.params.tool_choice"},
		{"chat parallel_tool_calls", chat(gpt, `,"parallel_tool_calls":true`), chat(gpt, `,"parallel_tool_calls":false`), "offered.params.parallel_tool_calls"},
		{"chat temperature", chat(gpt, `,"temperature":0.2`), chat(gpt, `,"temperature":2`), "offered.params.temperature"},
		{"chat top_p", chat(gpt, `,"top_p":1`), chat(gpt, `,"top_p":0.1`), "offered.params.top_p"},
		{"chat max_tokens", chat(gpt, `,"max_tokens":4096`), chat(gpt, `,"max_tokens":1`), "offered.params.max_tokens"},
		{"chat max_completion_tokens", chat(gpt, `,"max_completion_tokens":300`), chat(gpt, `,"max_completion_tokens":30`), "offered.params.max_completion_tokens"},
		{"chat stop", chat(gpt, ""), chat(gpt, `,"stop":["END"]`), "offered.params.stop"},
		{"chat response_format", chat(gpt, `,"response_format":{"type":"text"}`), chat(gpt, `,"response_format":{"type":"json_object"}`), "offered.params.response_format"},
		{"chat response schema",
			chat(gpt, `,"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"object"}}}`),
			chat(gpt, `,"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"array"}}}`), "offered.response_schema"},
		{"chat reasoning_effort", chat(gpt, `,"reasoning_effort":"low"`), chat(gpt, `,"reasoning_effort":"high"`), "offered.params.reasoning_effort"},
		{"chat logit_bias", chat(gpt, `,"logit_bias":{"50256":-100}`), chat(gpt, `,"logit_bias":{"50256":100}`), "offered.params.logit_bias"},
		{"chat verbosity", chat(gpt, `,"verbosity":"medium"`), chat(gpt, `,"verbosity":"low"`), "offered.params.verbosity"},
		{"chat web_search_options", chat(gpt, ""), chat(gpt, `,"web_search_options":{"search_context_size":"low"}`), "offered.params.web_search_options"},
		{"chat modalities", chat(gpt, `,"modalities":["text"]`), chat(gpt, `,"modalities":["text","audio"]`), "offered.params.modalities"},
		{"chat audio", chat(gpt, `,"audio":{"voice":"alloy","format":"wav"}`), chat(gpt, `,"audio":{"voice":"ash","format":"wav"}`), "offered.params.audio"},
		{"chat moderation", chat(gpt, ""), chat(gpt, `,"moderation":{"model":"omni-moderation-latest"}`), "offered.params.moderation"},
		{"chat legacy functions",
			legacyChat(gpt, `,"functions":[{"name":"greet","description":"Greet.","parameters":{"type":"object"}}]`),
			legacyChat(gpt, `,"functions":[{"name":"greet","description":"Greet warmly.","parameters":{"type":"object"}}]`), "offered.params.functions"},
		{"chat legacy function_call",
			legacyChat(gpt, `,"functions":[{"name":"greet","parameters":{"type":"object"}}],"function_call":"auto"`),
			legacyChat(gpt, `,"functions":[{"name":"greet","parameters":{"type":"object"}}],"function_call":{"name":"greet"}`), "offered.params.function_call"},
		{"messages model", messages(claude, `,"max_tokens":1024`), messages("claude-haiku-4-5", `,"max_tokens":1024`), "offered.params.model"},
		{"messages tool_choice", messages(claude, `,"max_tokens":1024,"tool_choice":{"type":"auto"}`), messages(claude, `,"max_tokens":1024,"tool_choice":{"type":"none"}`), "offered.params.tool_choice"},
		{"messages parallel tool use", messages(claude, `,"max_tokens":1024,"tool_choice":{"type":"auto"}`), messages(claude, `,"max_tokens":1024,"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`), "offered.params.tool_choice"},
		{"messages temperature", messages(claude, `,"max_tokens":1024,"temperature":0`), messages(claude, `,"max_tokens":1024,"temperature":1`), "offered.params.temperature"},
		{"messages top_p", messages(claude, `,"max_tokens":1024,"top_p":0.9`), messages(claude, `,"max_tokens":1024,"top_p":0.5`), "offered.params.top_p"},
		{"messages max_tokens", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1`), "offered.params.max_tokens"},
		{"messages stop_sequences", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024,"stop_sequences":["END"]`), "offered.params.stop_sequences"},
		{"messages thinking budget", messages(claude, `,"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024}`), messages(claude, `,"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048}`), "offered.params.thinking"},
		{"messages anthropic-version", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024`, "anthropic-version", "2026-10-21"), "offered.params.anthropic-version"},
		{"messages output_config effort", messages(claude, `,"max_tokens":1024,"output_config":{"effort":"low"}`), messages(claude, `,"max_tokens":1024,"output_config":{"effort":"high"}`), "offered.params.output_config"},
		{"messages output_config format", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}`), "offered.params.output_config"},
		{"messages output_config schema",
			messages(claude, `,"max_tokens":1024,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}`),
			messages(claude, `,"max_tokens":1024,"output_config":{"format":{"type":"json_schema","schema":{"type":"array"}}}`), "offered.response_schema"},
		{"messages output_format schema",
			messages(claude, `,"max_tokens":1024,"output_format":{"type":"json_schema","schema":{"type":"object"}}`),
			messages(claude, `,"max_tokens":1024,"output_format":{"type":"json_schema","schema":{"type":"array"}}`), "offered.response_schema"},
		{"messages context_management", messages(claude, `,"max_tokens":1024`),
			messages(claude, `,"max_tokens":1024,"context_management":{"edits":[{"type":"clear_tool_uses_20250919","keep":{"type":"tool_uses","value":2}}]}`), "offered.params.context_management"},
		{"messages compaction", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024,"compaction":{"type":"summarize"}`), "offered.params.compaction"},
		{"messages fallbacks", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024,"fallbacks":[{"model":"claude-haiku-4-5"}]`), "offered.params.fallbacks"},
		{"messages mcp_servers url", messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true}`, "tok-one-0123456789")),
			messages(claude, `,"max_tokens":1024`+mcpServers("https://evil.example.com/sse", `{"enabled":true}`, "tok-one-0123456789")), "offered.params.mcp_servers"},
		{"messages mcp_servers tool_configuration", messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true}`, "tok-one-0123456789")),
			messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true,"allowed_tools":["delete_all"]}`, "tok-one-0123456789")), "offered.params.mcp_servers"},
		{"messages mcp_servers added", messages(claude, `,"max_tokens":1024`),
			messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true}`, "tok-one-0123456789")), "offered.params.mcp_servers"},
		{"messages mcp_servers token added", messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true}`, "")),
			messages(claude, `,"max_tokens":1024`+mcpServers("https://mcp.example.com/sse", `{"enabled":true}`, "tok-one-0123456789")), "offered.params.mcp_servers"},
		{"messages anthropic-beta", messages(claude, `,"max_tokens":1024`), messages(claude, `,"max_tokens":1024`, "anthropic-beta", "interleaved-thinking-2025-05-14"), "offered.params.anthropic-beta"},

		{"responses model", responses(gpt5, ""), responses("gpt-5-mini", ""), "offered.params.model"},
		{"responses tool_choice", responses(gpt5, `,"tool_choice":"auto"`), responses(gpt5, `,"tool_choice":"required"`), "offered.params.tool_choice"},
		{"responses tool_choice forced", responses(gpt5, `,"tool_choice":"auto"`), responses(gpt5, `,"tool_choice":{"type":"function","name":"greet"}`), "offered.params.tool_choice"},
		{"responses parallel_tool_calls", responses(gpt5, `,"parallel_tool_calls":true`), responses(gpt5, `,"parallel_tool_calls":false`), "offered.params.parallel_tool_calls"},
		{"responses temperature", responses(gpt5, `,"temperature":1`), responses(gpt5, `,"temperature":0.2`), "offered.params.temperature"},
		{"responses top_p", responses(gpt5, `,"top_p":1`), responses(gpt5, `,"top_p":0.5`), "offered.params.top_p"},
		{"responses max_output_tokens", responses(gpt5, `,"max_output_tokens":2048`), responses(gpt5, `,"max_output_tokens":16`), "offered.params.max_output_tokens"},
		{"responses max_tool_calls", responses(gpt5, ""), responses(gpt5, `,"max_tool_calls":1`), "offered.params.max_tool_calls"},
		{"responses text.format", responses(gpt5, `,"text":{"format":{"type":"text"}}`), responses(gpt5, `,"text":{"format":{"type":"json_object"}}`), "offered.params.text"},
		{"responses text.format schema",
			responses(gpt5, `,"text":{"format":{"type":"json_schema","name":"a","schema":{"type":"object"}}}`),
			responses(gpt5, `,"text":{"format":{"type":"json_schema","name":"a","schema":{"type":"array"}}}`), "offered.response_schema"},
		{"responses text.verbosity", responses(gpt5, `,"text":{"verbosity":"medium"}`), responses(gpt5, `,"text":{"verbosity":"low"}`), "offered.params.text"},
		{"responses reasoning.effort", responses(gpt5, `,"reasoning":{"effort":"low"}`), responses(gpt5, `,"reasoning":{"effort":"high"}`), "offered.params.reasoning"},
		{"responses truncation", responses(gpt5, `,"truncation":"disabled"`), responses(gpt5, `,"truncation":"auto"`), "offered.params.truncation"},
		{"responses instructions", responses(gpt5, ""), agentRequest{format: "responses", body: strings.Replace(responsesBody(gpt5, ""), "Be brief.", "Be thorough.", 1)}, "offered.system"},
		{"responses prompt", responses(gpt5, `,"prompt":{"id":"pmpt_1","version":"1"}`), responses(gpt5, `,"prompt":{"id":"pmpt_1","version":"2"}`), "offered.params.prompt"},
		{"responses context_management", responses(gpt5, ""), responses(gpt5, `,"context_management":[{"type":"compaction","compact_threshold":2000}]`), "offered.params.context_management"},
		{"responses access_programs", responses(gpt5, ""), responses(gpt5, `,"access_programs":{"cyber":"daybreak_blue"}`), "offered.params.access_programs"},
		{"responses moderation", responses(gpt5, ""), responses(gpt5, `,"moderation":{"model":"omni-moderation-latest"}`), "offered.params.moderation"},

		{"gemini model", gemini(flash, ""), gemini("/v1beta/models/gemini-2.5-pro", ""), "offered.params.model"},
		{"gemini API version", gemini(flash, ""), gemini("/v1/models/gemini-2.5-flash", ""), "offered.params.apiVersion"},
		{"gemini function calling mode", gemini(flash, `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}`), gemini(flash, `,"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}`), "offered.params.toolConfig"},
		{"gemini allowedFunctionNames", gemini(flash, `,"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`), gemini(flash, `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["greet"]}}`), "offered.params.toolConfig"},
		{"gemini temperature", gemini(flash, `,"generationConfig":{"temperature":1}`), gemini(flash, `,"generationConfig":{"temperature":0.1}`), "offered.params.temperature"},
		{"gemini topP", gemini(flash, `,"generationConfig":{"topP":0.95}`), gemini(flash, `,"generationConfig":{"topP":0.5}`), "offered.params.topP"},
		{"gemini topK", gemini(flash, `,"generationConfig":{"topK":64}`), gemini(flash, `,"generationConfig":{"topK":1}`), "offered.params.topK"},
		{"gemini maxOutputTokens", gemini(flash, `,"generationConfig":{"maxOutputTokens":8192}`), gemini(flash, `,"generationConfig":{"maxOutputTokens":8}`), "offered.params.maxOutputTokens"},
		{"gemini stopSequences", gemini(flash, ""), gemini(flash, `,"generationConfig":{"stopSequences":["END"]}`), "offered.params.stopSequences"},
		{"gemini candidateCount", gemini(flash, `,"generationConfig":{"candidateCount":1}`), gemini(flash, `,"generationConfig":{"candidateCount":2}`), "offered.params.candidateCount"},
		{"gemini seed", gemini(flash, `,"generationConfig":{"seed":1}`), gemini(flash, `,"generationConfig":{"seed":2}`), "offered.params.seed"},
		{"gemini presencePenalty", gemini(flash, ""), gemini(flash, `,"generationConfig":{"presencePenalty":0.5}`), "offered.params.presencePenalty"},
		{"gemini frequencyPenalty", gemini(flash, ""), gemini(flash, `,"generationConfig":{"frequencyPenalty":0.5}`), "offered.params.frequencyPenalty"},
		{"gemini responseMimeType", gemini(flash, `,"generationConfig":{"responseMimeType":"text/plain"}`), gemini(flash, `,"generationConfig":{"responseMimeType":"application/json"}`), "offered.params.responseMimeType"},
		{"gemini responseSchema",
			gemini(flash, `,"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT"}}`),
			gemini(flash, `,"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"ARRAY"}}`), "offered.response_schema"},
		{"gemini responseJsonSchema",
			gemini(flash, `,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}`),
			gemini(flash, `,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"array"}}`), "offered.response_schema"},
		{"gemini responseModalities", gemini(flash, `,"generationConfig":{"responseModalities":["TEXT"]}`), gemini(flash, `,"generationConfig":{"responseModalities":["TEXT","IMAGE"]}`), "offered.params.responseModalities"},
		{"gemini thinkingBudget", gemini(flash, `,"generationConfig":{"thinkingConfig":{"thinkingBudget":512}}`), gemini(flash, `,"generationConfig":{"thinkingConfig":{"thinkingBudget":0}}`), "offered.params.thinkingConfig"},
		{"gemini thinkingLevel", gemini(flash, `,"generationConfig":{"thinkingConfig":{"thinkingLevel":"low"}}`), gemini(flash, `,"generationConfig":{"thinkingConfig":{"thinkingLevel":"high"}}`), "offered.params.thinkingConfig"},
		{"gemini safetySettings", gemini(flash, ""), gemini(flash, `,"safetySettings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","threshold":"BLOCK_LOW_AND_ABOVE"}]`), "offered.params.safetySettings"},
		{"gemini cachedContent", gemini(flash, `,"cachedContent":"cachedContents/a1"`), gemini(flash, `,"cachedContent":"cachedContents/b2"`), "offered.params.cachedContent"},
		{"gemini mediaResolution", gemini(flash, ""), gemini(flash, `,"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}`), "offered.params.mediaResolution"},
		{"gemini enableEnhancedCivicAnswers", gemini(flash, ""), gemini(flash, `,"generationConfig":{"enableEnhancedCivicAnswers":true}`), "offered.params.enableEnhancedCivicAnswers"},
		{"gemini generation_config", gemini(flash, `,"generation_config":{"temperature":1}`), gemini(flash, `,"generation_config":{"temperature":0.1}`), "offered.params.temperature"},
		{"gemini max_output_tokens", gemini(flash, `,"generation_config":{"max_output_tokens":8192}`), gemini(flash, `,"generation_config":{"max_output_tokens":8}`), "offered.params.maxOutputTokens"},
		{"gemini response_json_schema",
			gemini(flash, `,"generation_config":{"response_mime_type":"application/json","response_json_schema":{"type":"object"}}`),
			gemini(flash, `,"generation_config":{"response_mime_type":"application/json","response_json_schema":{"type":"array"}}`), "offered.response_schema"},
		{"gemini tool_config", gemini(flash, `,"tool_config":{"function_calling_config":{"mode":"AUTO"}}`), gemini(flash, `,"tool_config":{"function_calling_config":{"mode":"NONE"}}`), "offered.params.toolConfig"},
		{"gemini safety_settings", gemini(flash, ""), gemini(flash, `,"safety_settings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","threshold":"BLOCK_LOW_AND_ABOVE"}]`), "offered.params.safetySettings"},
		{"gemini cached_content", gemini(flash, `,"cached_content":"cachedContents/a1"`), gemini(flash, `,"cached_content":"cachedContents/b2"`), "offered.params.cachedContent"},
		{"gemini system_instruction", geminiSnake(flash, "Be brief."), geminiSnake(flash, "Be thorough."), "offered.system"},

		{"bedrock model", bedrock(nova, "", ""), bedrock("amazon.nova-lite-v1:0", "", ""), "offered.params.model"},
		{"bedrock toolChoice", bedrock(nova, `,"toolChoice":{"auto":{}}`, ""), bedrock(nova, `,"toolChoice":{"any":{}}`, ""), "offered.params.toolChoice"},
		{"bedrock toolChoice tool", bedrock(nova, "", ""), bedrock(nova, `,"toolChoice":{"tool":{"name":"greet"}}`, ""), "offered.params.toolChoice"},
		{"bedrock maxTokens", bedrock(nova, "", `,"inferenceConfig":{"maxTokens":1024}`), bedrock(nova, "", `,"inferenceConfig":{"maxTokens":1}`), "offered.params.maxTokens"},
		{"bedrock temperature", bedrock(nova, "", `,"inferenceConfig":{"temperature":0.5}`), bedrock(nova, "", `,"inferenceConfig":{"temperature":1}`), "offered.params.temperature"},
		{"bedrock topP", bedrock(nova, "", `,"inferenceConfig":{"topP":0.9}`), bedrock(nova, "", `,"inferenceConfig":{"topP":0.1}`), "offered.params.topP"},
		{"bedrock stopSequences", bedrock(nova, "", `,"inferenceConfig":{"maxTokens":1024}`), bedrock(nova, "", `,"inferenceConfig":{"maxTokens":1024,"stopSequences":["END"]}`), "offered.params.stopSequences"},
		{"bedrock additionalModelRequestFields", bedrock(nova, "", `,"additionalModelRequestFields":{"inferenceConfig":{"topK":50}}`), bedrock(nova, "", `,"additionalModelRequestFields":{"inferenceConfig":{"topK":5}}`), "offered.params.additionalModelRequestFields"},
		{"bedrock reasoning effort", bedrock(nova, "", `,"additionalModelRequestFields":{"reasoningConfig":{"type":"enabled","maxReasoningEffort":"low"}}`),
			bedrock(nova, "", `,"additionalModelRequestFields":{"reasoningConfig":{"type":"enabled","maxReasoningEffort":"high"}}`), "offered.params.additionalModelRequestFields"},
		{"bedrock outputConfig schema",
			bedrock(nova, "", `,"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"name":"a","schema":"{\"type\":\"object\"}"}}}}`),
			bedrock(nova, "", `,"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"name":"a","schema":"{\"type\":\"array\"}"}}}}`), "offered.response_schema"},
		{"bedrock guardrailConfig", bedrock(nova, "", `,"guardrailConfig":{"guardrailIdentifier":"g1","guardrailVersion":"1"}`), bedrock(nova, "", `,"guardrailConfig":{"guardrailIdentifier":"g1","guardrailVersion":"2"}`), "offered.params.guardrailConfig"},
		{"bedrock performanceConfig", bedrock(nova, "", `,"performanceConfig":{"latency":"standard"}`), bedrock(nova, "", `,"performanceConfig":{"latency":"optimized"}`), "offered.params.performanceConfig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var vendor scriptedVendor
			srv := vendor.server(t)
			rec := paramRecorders[c.base.format]
			dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
			path := filepath.Join(dir, "p", "param.yaml")
			before, after := rawAgent(c.base), rawAgent(c.now)

			if code, out, errOut := runAgentCmd(t, before, "record", "--model", rec.model, "--base-url", srv.URL+rec.root, path); code != exitOK {
				t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
			}
			if len(vendor.bodies) != 1 || string(vendor.bodies[0]) != c.base.body {
				t.Fatalf("the vendor got %d requests, the first:\n%s\nwant the agent's body:\n%s", len(vendor.bodies), vendor.bodies, c.base.body)
			}
			if c.base.path != "" && (len(vendor.paths) != 1 || vendor.paths[0] != c.base.path) {
				t.Errorf("the vendor got the path %q, the agent sent %q", vendor.paths, c.base.path)
			}
			for k, want := range c.base.header {
				if got := vendor.header[0].Get(k); got != want {
					t.Errorf("the vendor got %s: %q, the agent sent %q", k, got, want)
				}
			}
			if code, out, errOut := runAgentCmd(t, before, "replay", path); code != exitOK {
				t.Fatalf("replay of the recorded agent: exit %d\n%s%s", code, out, errOut)
			}
			file, _ := os.ReadFile(path)
			// The offered block's line: its first key's, after "offered:".
			line := 2 + strings.Count(string(file[:strings.Index(string(file), "\noffered:")+1]), "\n")
			code, out, errOut := runAgentCmd(t, after, "replay", path)
			want := fmt.Sprintf("%s (recorded at p/param.yaml:%d)", c.field, line)
			if code != exitFailed || !strings.Contains(out, want) {
				t.Fatalf("replay with the parameter changed: exit %d, want %d naming %q\n%s%s\n%s", code, exitFailed, want, out, errOut, file)
			}
			if code, out, errOut := runAgentCmd(t, after, "rebase", path); code != exitOK {
				t.Fatalf("rebase: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, errOut := runAgentCmd(t, after, "replay", path); code != exitOK {
				t.Fatalf("replay after rebase: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, _ := runAgentCmd(t, before, "replay", path); code != exitFailed || !strings.Contains(out, c.field) {
				t.Errorf("the old agent after rebase: exit %d, want %d naming %s\n%s", code, exitFailed, c.field, out)
			}
		})
	}
}

// TestRecordAnotherModel: --model naming another model than the agent's
// replaces the body's model field alone; the tape pins the agent's model,
// so the replay compares what the agent sends, and says in a comment which
// model answered, as the report does.
func TestRecordAnotherModel(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
	path := filepath.Join(dir, "p", "param.yaml")
	body := chatBody("gpt-4.1", `,"temperature":0.2`)
	agent := rawAgent(agentRequest{format: "openai", body: body})
	code, out, errOut := runAgentCmd(t, agent, "record", "--model", "openai-compatible/gpt-4.1-mini", "--base-url", srv.URL+"/v1", path)
	if code != exitOK || !strings.Contains(out, "    answered by gpt-4.1-mini: sent instead of the model the agent asked for (--model); the tape pins the agent's\n") {
		t.Fatalf("record: exit %d, want 0 saying which model answered\n%s%s", code, out, errOut)
	}
	want := strings.Replace(body, `"model":"gpt-4.1"`, `"model":"gpt-4.1-mini"`, 1)
	if len(vendor.bodies) != 1 || string(vendor.bodies[0]) != want {
		t.Fatalf("the vendor got:\n%s\nwant the agent's body with the model replaced:\n%s", vendor.bodies, want)
	}
	file, _ := os.ReadFile(path)
	if !strings.Contains(string(file), "    model: \"gpt-4.1\" # answered by gpt-4.1-mini: the recording sent it instead (--model)\n") {
		t.Errorf("the tape does not pin the agent's model and say which answered:\n%s", file)
	}
	if code, out, errOut := runAgentCmd(t, agent, "replay", path); code != exitOK {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	// The answers stay gpt-4.1-mini's through a rebase of the agent's
	// changed request, so the comment saying so stays too.
	changed := rawAgent(agentRequest{format: "openai", body: chatBody("gpt-4.1", `,"temperature":0.7`)})
	for _, args := range [][]string{{"rebase", path}, {"rebase", "--all", path}} {
		if code, out, errOut := runAgentCmd(t, changed, args...); code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", args, code, out, errOut)
		}
		file, _ = os.ReadFile(path)
		if !strings.Contains(string(file), "    model: \"gpt-4.1\" # answered by gpt-4.1-mini: the recording sent it instead (--model)\n") ||
			!strings.Contains(string(file), "    temperature: 0.7\n") {
			t.Errorf("%s dropped the comment saying which model answered, or the new temperature:\n%s", args, file)
		}
	}
	if code, out, errOut := runAgentCmd(t, changed, "replay", path); code != exitOK {
		t.Fatalf("replay after rebase: exit %d\n%s%s", code, out, errOut)
	}
}

// TestEvalAnotherModel: eval --model naming another model than the
// bridged agent's sends the agent's request with the model alone
// replaced, and the text and JSON reports name the agent's own model.
func TestEvalAnotherModel(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
	body := chatBody("gpt-4.1", `,"temperature":0.2`)
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	code, out, errOut := runAgentCmd(t, rawAgent(agentRequest{format: "openai", body: body}), "eval", "--model", "openai-compatible/gpt-4.1-mini", "--base-url", srv.URL+"/v1", "--trials", "1", "--json", jsonPath, dir)
	if code != exitOK || !strings.Contains(out, "  p/param (openai-compatible/gpt-4.1-mini): the agent asked for gpt-4.1; its requests went to openai-compatible/gpt-4.1-mini with the model alone replaced\n") {
		t.Fatalf("eval: exit %d, want 0 and the text report naming the agent's model\n%s%s", code, out, errOut)
	}
	want := strings.Replace(body, `"model":"gpt-4.1"`, `"model":"gpt-4.1-mini"`, 1)
	if len(vendor.bodies) != 1 || string(vendor.bodies[0]) != want {
		t.Errorf("the vendor got:\n%s\nwant the agent's body with the model replaced:\n%s", vendor.bodies, want)
	}
	report, _ := os.ReadFile(jsonPath)
	if !strings.Contains(string(report), `"agent_model": "gpt-4.1"`) {
		t.Errorf("the report does not name the agent's model:\n%s", report)
	}
}

// TestBridgedMCPTokenRedacted: a Messages request's mcp_servers is pinned
// with each authorization_token redacted: neither the tape nor the golden
// nor anything printed holds the token; a replay whose agent sends another
// token alone passes (the tape cannot hold a token to compare), and one
// whose url changed too fails without printing either token.
func TestBridgedMCPTokenRedacted(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
	const first, second = "mcp-first-token-0123456789", "mcp-second-token-9876543210"
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
	path := filepath.Join(dir, "p", "param.yaml")
	agent := func(url, token string) bridge.Agent {
		return rawAgent(messages("claude-sonnet-4-5", `,"max_tokens":1024`+mcpServers(url, `{"enabled":true}`, token)))
	}
	code, out, errOut := runAgentCmd(t, agent("https://mcp.example.com/sse", first), "record", "--model", "anthropic/claude-sonnet-4-5", "--base-url", srv.URL, path)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	if len(vendor.bodies) != 1 || !strings.Contains(string(vendor.bodies[0]), first) {
		t.Errorf("the vendor did not get the agent's token:\n%s", vendor.bodies)
	}
	// The token is counted with the other redactions record reports.
	if !strings.Contains(out, "\nredacted: mcp authorization token 1\n") {
		t.Errorf("record's redaction count does not count the token once:\n%s", out)
	}
	file, _ := os.ReadFile(path)
	golden, _ := os.ReadFile(filepath.Join(dir, "p", "param.golden.yaml"))
	for what, text := range map[string]string{"the tape": string(file), "the golden": string(golden), "record's output": out + errOut} {
		if strings.Contains(text, first) {
			t.Errorf("%s holds the token:\n%s", what, text)
		}
	}
	if !strings.Contains(string(file), "mcp_servers:") || !strings.Contains(string(file), "authorization_token: '[REDACTED]'") || !strings.Contains(string(file), "https://mcp.example.com/sse") {
		t.Errorf("the tape does not pin mcp_servers with its token redacted:\n%s", file)
	}
	code, out, errOut = runAgentCmd(t, agent("https://mcp.example.com/sse", second), "replay", path)
	if code != exitOK || strings.Contains(out+errOut, second) {
		t.Errorf("replay with another token alone: exit %d, want %d, the token not printed\n%s%s", code, exitOK, out, errOut)
	}
	code, out, errOut = runAgentCmd(t, agent("https://other.example.com/sse", second), "replay", path)
	if code != exitFailed || !strings.Contains(out, "offered.params.mcp_servers") || strings.Contains(out+errOut, second) || strings.Contains(out+errOut, first) {
		t.Errorf("replay with the url changed: exit %d, want %d naming offered.params.mcp_servers without a token\n%s%s", code, exitFailed, out, errOut)
	}
	if code, out, errOut := runAgentCmd(t, agent("https://other.example.com/sse", second), "rebase", path); code != exitOK || strings.Contains(out+errOut, second) {
		t.Fatalf("rebase: exit %d, want 0 printing no token\n%s%s", code, out, errOut)
	}
	if file, _ := os.ReadFile(path); strings.Contains(string(file), second) || !strings.Contains(string(file), "https://other.example.com/sse") {
		t.Errorf("the rebased tape holds the token, or not the new url:\n%s", file)
	}
}

// TestBridgedParamSecretStrict: a known secret inside a pinned parameter
// (here a key in an MCP server's url) is redacted in the tape; a replay
// whose agent sends the same url with the key matches it, and one whose
// url changed around the key fails naming the parameter, without the key
// in its output ([REDACTED] stands for one token: redact.Matches).
func TestBridgedParamSecretStrict(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
	const key = "docs-key-0123456789abcdef"
	t.Setenv("DOCS_API_KEY", key)
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
	path := filepath.Join(dir, "p", "param.yaml")
	agent := func(url string) bridge.Agent {
		return rawAgent(messages("claude-sonnet-4-5", `,"max_tokens":1024`+mcpServers(url, `{"enabled":true}`, "")))
	}
	if code, out, errOut := runAgentCmd(t, agent("https://mcp.example.com/sse?key="+key), "record", "--model", "anthropic/claude-sonnet-4-5", "--base-url", srv.URL, path); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	if file, _ := os.ReadFile(path); strings.Contains(string(file), key) || !strings.Contains(string(file), "url: https://mcp.example.com/sse?key=[REDACTED]") {
		t.Fatalf("the tape does not hold the url with its key redacted:\n%s", file)
	}
	if code, out, errOut := runAgentCmd(t, agent("https://mcp.example.com/sse?key="+key), "replay", path); code != exitOK {
		t.Errorf("replay with the same url: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runAgentCmd(t, agent("https://mcp.example.com/admin?key="+key), "replay", path)
	if code != exitFailed || !strings.Contains(out, "offered.params.mcp_servers") || strings.Contains(out+errOut, key) {
		t.Errorf("replay with the url changed around the key: exit %d, want %d naming offered.params.mcp_servers without the key\n%s%s", code, exitFailed, out, errOut)
	}
}

// TestBridgedThreadRefused: a Messages agent that sends thread (the
// vendor holding the conversation) fails its recording, and the replay of
// a tape recorded without it, naming the key: never a silent pass.
func TestBridgedThreadRefused(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdefghij")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"p/param.yaml": paramScenario})
	path := filepath.Join(dir, "p", "param.yaml")
	plain := rawAgent(messages("claude-sonnet-4-5", `,"max_tokens":1024`))
	threaded := rawAgent(messages("claude-sonnet-4-5", `,"max_tokens":1024,"thread":{"type":"create"}`))
	code, out, errOut := runAgentCmd(t, threaded, "record", "--model", "anthropic/claude-sonnet-4-5", "--base-url", srv.URL, path)
	if code != exitFailed || !strings.Contains(out, "thread: a Messages Thread") || len(vendor.bodies) != 0 {
		t.Errorf("record of an agent sending thread: exit %d, %d requests to the vendor; want %d naming thread, none sent\n%s%s", code, len(vendor.bodies), exitFailed, out, errOut)
	}
	if code, out, errOut := runAgentCmd(t, plain, "record", "--model", "anthropic/claude-sonnet-4-5", "--base-url", srv.URL, path); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runAgentCmd(t, threaded, "replay", path); code != exitFailed || !strings.Contains(out, "thread: a Messages Thread") {
		t.Errorf("replay with thread added: exit %d, want %d naming thread\n%s", code, exitFailed, out)
	}
}
