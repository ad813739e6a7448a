package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// A placeFormat is one wire format as an agent without an SDK speaks it:
// the URL it posts to, the body of a request from what the agent says,
// and the tool call or the text it reads from an answer.
type placeFormat struct {
	name string
	// live opens the vendor's side of a recording, at a local server.
	live func(t *testing.T, url string) llm.Model
	url  func(r *bridge.Run) string
	// body is a request: the system prompt, the user's turn, and after a
	// tool call (c not nil) the call and its result. args is the call's
	// arguments as the agent writes them (JSON).
	body func(system, user, tools string, c *placeCall, args, result string) string
	// answer reads a tool call (nil when the answer is text) and the text.
	answer func(body []byte) (*placeCall, string, error)
}

// placeCall is a tool call an answer made.
type placeCall struct{ id, name, args string }

// jstr is s as a JSON string.
func jstr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// placeTool is the one tool of placeAgent, in each format's shape: its
// description and its parameter's name the workspace's path.
func placeTool(dir string) (desc, params string) {
	return "Write a file; its path starts with " + dir + "/.",
		`{"type":"object","properties":{"path":{"type":"string","description":` + jstr("under "+dir) + `},"content":{"type":"string"}},"required":["path","content"]}`
}

var placeFormats = []placeFormat{{
	name: "openai",
	live: func(t *testing.T, url string) llm.Model { return openLive(t, "openai/gpt-test", url+"/v1", nil) },
	url:  func(r *bridge.Run) string { return r.OpenAIBaseURL + "/chat/completions" },
	body: func(system, user, tool string, c *placeCall, args, result string) string {
		desc, params := splitTool(tool)
		msgs := `{"role":"system","content":` + jstr(system) + `},{"role":"user","content":` + jstr(user) + `}`
		if c != nil {
			msgs += `,{"role":"assistant","content":null,"tool_calls":[{"id":` + jstr(c.id) + `,"type":"function","function":{"name":` + jstr(c.name) + `,"arguments":` + jstr(args) + `}}]}` +
				`,{"role":"tool","tool_call_id":` + jstr(c.id) + `,"content":` + jstr(result) + `}`
		}
		return `{"model":"gpt-test","messages":[` + msgs + `],"tools":[{"type":"function","function":{"name":"write_file","description":` + jstr(desc) + `,"parameters":` + params + `}}]}`
	},
	answer: func(body []byte) (*placeCall, string, error) {
		var a struct {
			Choices []struct {
				Message struct {
					Content   string     `json:"content"`
					ToolCalls []chatCall `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &a); err != nil || len(a.Choices) == 0 {
			return nil, "", fmt.Errorf("no choice in %s (%v)", body, err)
		}
		m := a.Choices[0].Message
		if len(m.ToolCalls) > 0 {
			c := m.ToolCalls[0]
			return &placeCall{c.ID, c.Function.Name, c.Function.Arguments}, "", nil
		}
		return nil, m.Content, nil
	},
}, {
	name: "responses",
	live: func(t *testing.T, url string) llm.Model {
		return openLive(t, "openai-responses/gpt-test", url+"/v1", nil)
	},
	url: func(r *bridge.Run) string { return r.OpenAIBaseURL + "/responses" },
	body: func(system, user, tool string, c *placeCall, args, result string) string {
		desc, params := splitTool(tool)
		input := `{"role":"user","content":` + jstr(user) + `}`
		if c != nil {
			input += `,{"type":"function_call","call_id":` + jstr(c.id) + `,"name":` + jstr(c.name) + `,"arguments":` + jstr(args) + `}` +
				`,{"type":"function_call_output","call_id":` + jstr(c.id) + `,"output":` + jstr(result) + `}`
		}
		return `{"model":"gpt-test","store":false,"instructions":` + jstr(system) + `,"input":[` + input + `],"tools":[{"type":"function","name":"write_file","description":` + jstr(desc) + `,"parameters":` + params + `}]}`
	},
	answer: func(body []byte) (*placeCall, string, error) {
		var a struct {
			Output []struct {
				Type, CallID, Name, Arguments string
				Content                       []struct{ Text string }
			} `json:"output"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, "", fmt.Errorf("%s: %w", body, err)
		}
		text := ""
		for _, o := range a.Output {
			switch o.Type {
			case "function_call":
				return &placeCall{callIDOf(body), o.Name, o.Arguments}, "", nil
			case "message":
				for _, p := range o.Content {
					text += p.Text
				}
			}
		}
		return nil, text, nil
	},
}, {
	name: "anthropic",
	live: func(t *testing.T, url string) llm.Model { return openLive(t, "anthropic/claude-test", url, nil) },
	url:  func(r *bridge.Run) string { return r.AnthropicBaseURL + "/v1/messages" },
	body: func(system, user, tool string, c *placeCall, args, result string) string {
		desc, params := splitTool(tool)
		msgs := `{"role":"user","content":` + jstr(user) + `}`
		if c != nil {
			msgs += `,{"role":"assistant","content":[{"type":"tool_use","id":` + jstr(c.id) + `,"name":` + jstr(c.name) + `,"input":` + args + `}]}` +
				`,{"role":"user","content":[{"type":"tool_result","tool_use_id":` + jstr(c.id) + `,"content":[{"type":"text","text":` + jstr(result) + `}]}]}`
		}
		return `{"model":"claude-test","max_tokens":512,"system":[{"type":"text","text":` + jstr(system) + `}],"messages":[` + msgs + `],"tools":[{"name":"write_file","description":` + jstr(desc) + `,"input_schema":` + params + `}]}`
	},
	answer: func(body []byte) (*placeCall, string, error) {
		var a struct {
			Content []struct {
				Type, ID, Name, Text string
				Input                json.RawMessage
			}
		}
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, "", fmt.Errorf("%s: %w", body, err)
		}
		text := ""
		for _, b := range a.Content {
			switch b.Type {
			case "tool_use":
				return &placeCall{b.ID, b.Name, string(b.Input)}, "", nil
			case "text":
				text += b.Text
			}
		}
		return nil, text, nil
	},
}, {
	name: "gemini",
	live: func(t *testing.T, url string) llm.Model { return openLive(t, "gemini/gemini-test", url, nil) },
	url:  func(r *bridge.Run) string { return r.GeminiBaseURL + "/v1beta/models/gemini-test:generateContent" },
	body: func(system, user, tool string, c *placeCall, args, result string) string {
		desc, params := splitTool(tool)
		contents := `{"role":"user","parts":[{"text":` + jstr(user) + `}]}`
		if c != nil {
			contents += `,{"role":"model","parts":[{"functionCall":{"name":` + jstr(c.name) + `,"args":` + args + `}}]}` +
				`,{"role":"user","parts":[{"functionResponse":{"name":` + jstr(c.name) + `,"response":{"result":` + jstr(result) + `}}}]}`
		}
		return `{"systemInstruction":{"parts":[{"text":` + jstr(system) + `}]},"contents":[` + contents + `],"tools":[{"functionDeclarations":[{"name":"write_file","description":` + jstr(desc) + `,"parameters":` + params + `}]}]}`
	},
	answer: func(body []byte) (*placeCall, string, error) {
		var a struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						Text         string
						FunctionCall *struct {
							Name string
							Args json.RawMessage
						}
					}
				}
			}
		}
		if err := json.Unmarshal(body, &a); err != nil || len(a.Candidates) == 0 {
			return nil, "", fmt.Errorf("no candidate in %s (%v)", body, err)
		}
		text := ""
		for _, p := range a.Candidates[0].Content.Parts {
			if f := p.FunctionCall; f != nil {
				return &placeCall{f.Name, f.Name, string(f.Args)}, "", nil
			}
			text += p.Text
		}
		return nil, text, nil
	},
}, {
	name: "bedrock",
	live: func(t *testing.T, url string) llm.Model {
		return openLive(t, "bedrock/amazon.nova-pro-v1:0", url, map[string]string{"AWS_ACCESS_KEY_ID": "AKIDLIVE", "AWS_SECRET_ACCESS_KEY": "live-secret", "AWS_REGION": "us-east-1"})
	},
	url: func(r *bridge.Run) string { return r.BedrockBaseURL + "/model/amazon.nova-pro-v1:0/converse" },
	body: func(system, user, tool string, c *placeCall, args, result string) string {
		desc, params := splitTool(tool)
		msgs := `{"role":"user","content":[{"text":` + jstr(user) + `}]}`
		if c != nil {
			msgs += `,{"role":"assistant","content":[{"toolUse":{"toolUseId":` + jstr(c.id) + `,"name":` + jstr(c.name) + `,"input":` + args + `}}]}` +
				`,{"role":"user","content":[{"toolResult":{"toolUseId":` + jstr(c.id) + `,"content":[{"text":` + jstr(result) + `}]}}]}`
		}
		return `{"system":[{"text":` + jstr(system) + `}],"messages":[` + msgs + `],"toolConfig":{"tools":[{"toolSpec":{"name":"write_file","description":` + jstr(desc) + `,"inputSchema":{"json":` + params + `}}}]}}`
	},
	answer: func(body []byte) (*placeCall, string, error) {
		var a struct {
			Output struct {
				Message struct {
					Content []struct {
						Text    string
						ToolUse *struct {
							ToolUseID string `json:"toolUseId"`
							Name      string
							Input     json.RawMessage
						} `json:"toolUse"`
					}
				}
			}
		}
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, "", fmt.Errorf("%s: %w", body, err)
		}
		text := ""
		for _, b := range a.Output.Message.Content {
			if u := b.ToolUse; u != nil {
				return &placeCall{u.ToolUseID, u.Name, string(u.Input)}, "", nil
			}
			text += b.Text
		}
		return nil, text, nil
	},
}}

// callIDOf is the call_id of a Responses answer's first function call.
func callIDOf(body []byte) string {
	var a struct {
		Output []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		} `json:"output"`
	}
	_ = json.Unmarshal(body, &a)
	for _, o := range a.Output {
		if o.Type == "function_call" {
			return o.CallID
		}
	}
	return ""
}

// splitTool splits placeTool's two parts, joined by a NUL.
func splitTool(tool string) (desc, params string) {
	desc, params, _ = strings.Cut(tool, "\x00")
	return desc, params
}

// openLive opens a live model named name at url, with env as its
// environment (nil: none).
func openLive(t *testing.T, name, url string, env map[string]string) llm.Model {
	t.Helper()
	opts := &llm.OpenOptions{BaseURL: url, Getenv: func(k string) string { return env[k] }}
	if env == nil {
		opts.APIKey = liveKey
	}
	m, err := llm.Open(t.Context(), name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// escapeJSON writes every slash and every character past ASCII of a JSON
// text as a \uXXXX escape (a UTF-16 surrogate pair past the BMP), as
// encoders that escape them do (Python's json.dumps escapes non-ASCII by
// default). The text decodes to the same value.
func escapeJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '/':
			b.WriteString(`\u002f`)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// placeAgent is an in-process agent speaking f without an SDK that puts
// the folder it works in everywhere a request has text: the system prompt
// (each format's own field), the user's turn, the tool's description and
// parameters, and after the model's tool call the call's arguments (as it
// got them: with its own path) and the tool's result. With escaped, its
// JSON encoder writes slashes and non-ASCII as \u escapes, also inside
// the arguments. It checks that the call names a path in its folder.
func placeAgent(f placeFormat, escaped bool) bridge.Agent {
	enc := func(s string) string {
		if escaped {
			return escapeJSON(s)
		}
		return s
	}
	return func(ctx context.Context, r *bridge.Run) error {
		dir := r.Dir
		system := "You work in " + dir + ". Name files by absolute paths."
		user := "My folder is " + dir + ". " + r.Input[len(r.Input)-1].Content
		desc, params := placeTool(dir)
		tool := desc + "\x00" + params
		var c *placeCall
		args, result := "", ""
		for range 3 {
			var out json.RawMessage
			body := enc(f.body(system, user, tool, c, enc(args), result))
			if err := newNotesAgent().post(ctx, r.HTTPClient, f.url(r), []byte(body), &out); err != nil {
				return err
			}
			next, text, err := f.answer(out)
			if err != nil {
				return err
			}
			if next == nil {
				r.Final(text)
				return nil
			}
			c, args = next, next.args
			var a struct{ Path, Content string }
			if err := json.Unmarshal([]byte(args), &a); err != nil {
				return fmt.Errorf("the call's arguments %s: %w", args, err)
			}
			if !strings.HasPrefix(a.Path, dir+string(filepath.Separator)) {
				return fmt.Errorf("the call names %s, outside %s", a.Path, dir)
			}
			if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
				return err
			}
			result = "wrote " + a.Path
		}
		return errors.New("too many steps")
	}
}

// TestWorkspacePlacedInEveryFormat: in every wire format, an agent that
// names its folder in each text of a request (system field, user turn,
// tool description and schema, tool call arguments, tool result), plainly
// or with a JSON encoder that escapes slashes and non-ASCII, records from
// a folder whose path is not ASCII, and replays from two other folders
// with the same golden. Neither the tape, the golden, the model nor (the
// agent's own request forwarded, as evalrun record does) the vendor sees
// the recording's folder; the model's tool call naming the placeholder
// reaches the agent as a path in its own folder, in whichever folder it
// runs.
func TestWorkspacePlacedInEveryFormat(t *testing.T) {
	const mark = "Zqx" // in every folder's name: no text may hold it
	for _, f := range placeFormats {
		for _, escaped := range []bool{false, true} {
			for _, forwarded := range []bool{false, true} {
				name := f.name + map[bool]string{false: "", true: "/escaped"}[escaped] + map[bool]string{false: "/decoded", true: "/forwarded"}[forwarded]
				t.Run(name, func(t *testing.T) {
					root := t.TempDir()
					inTempDir(t, root, mark+"-één-🗂-rec")
					var seen []string // the requests the model got, as JSON
					var model llm.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
						b, _ := json.Marshal(req)
						seen = append(seen, string(b))
						switch len(seen) {
						case 1:
							return call("call_1", "write_file", `{"path":"`+bridge.WorkPlaceholder+`/notes.txt","content":"hi\n"}`), nil
						case 2:
							return text("Saved in " + bridge.WorkPlaceholder + "/notes.txt."), nil
						}
						return nil, errors.New("script exhausted")
					})
					var vendor wireLog
					if forwarded {
						srv := httptest.NewServer(vendor.vendor(bridge.Handler(model, nil)))
						defer srv.Close()
						model = f.live(t, srv.URL)
					}
					path := record(t, whereScenario, placeAgent(f, escaped), model)
					if len(seen) != 2 {
						t.Fatalf("the model got %d requests, want 2", len(seen))
					}
					for i, s := range seen {
						if strings.Contains(s, mark) {
							t.Errorf("request %d: the model got the recording's folder: %s", i+1, s)
						}
					}
					for _, w := range []string{"You work in " + bridge.WorkPlaceholder + ".", "My folder is " + bridge.WorkPlaceholder + ".", "starts with " + bridge.WorkPlaceholder + "/.", "under " + bridge.WorkPlaceholder} {
						if !strings.Contains(seen[0], w) {
							t.Errorf("the model's first request does not hold %q: %s", w, seen[0])
						}
					}
					if !strings.Contains(seen[1], "wrote "+bridge.WorkPlaceholder) {
						t.Errorf("the model's second request does not hold the tool's result with the placeholder: %s", seen[1])
					}
					for i, e := range vendor.got {
						if bytes.Contains(e.body, []byte(mark)) {
							t.Errorf("request %d: the vendor got the recording's folder: %s", i+1, e.body)
						}
					}
					recorded, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Contains(recorded, []byte(mark)) {
						t.Errorf("the tape names the recording's folder:\n%s", recorded)
					}

					inTempDir(t, root, mark+"-two")
					if v := verify(t, path, placeAgent(f, escaped), true); !v.Passed() {
						t.Fatalf("the replay from another folder fails:\n%s", fmt.Sprint(v.Failure()))
					}
					golden, err := os.ReadFile(scenario.GoldenPath(path))
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Contains(golden, []byte(mark)) || bytes.Contains(golden, []byte(bridge.WorkPlaceholder)) {
						t.Errorf("the golden names a folder of the machine or the placeholder, not $WORK:\n%s", golden)
					}
					inTempDir(t, root, mark+"-ünï/three")
					if v := verify(t, path, placeAgent(f, escaped), false); !v.Passed() {
						t.Errorf("the replay from a third folder fails:\n%s", fmt.Sprint(v.Failure()))
					}
				})
			}
		}
	}
}
