// Package benchagent is the reference workload (ten turns of a read and an
// append, then a final text) as an agent tapeloop did not write: a
// hand-written loop on openai-go with read_file and append_file over a
// directory, and the bridged scenario it replays; beside it the same
// workload as a native scenario (NativeText) and the agent's captured
// answers served with no harness (Canned). The bridge benchmark (package
// bench) and the go-vcr comparison (module bench/vcr) both run it, so they
// measure the same agent.
package benchagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// Prompt is the user's request.
const Prompt = "Append ten lines."

// Turns is the workload's model calls.
const Turns = 11

var tools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name: "read_file", Description: openai.String("Read a file."),
		Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}},
	}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name: "append_file", Description: openai.String("Append text to a file."),
		Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "required": []string{"path", "content"}},
	}),
}

// Run is the agent: it answers Prompt with client, running the tools in
// dir, and returns the final text.
func Run(ctx context.Context, client openai.Client, dir string) (string, error) {
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-4.1-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You append lines to files."), openai.UserMessage(Prompt)},
		Tools:    tools,
	}
	for range Turns + 1 {
		resp, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		if len(resp.Choices) == 0 {
			return "", errors.New("no choice")
		}
		msg := resp.Choices[0].Message
		params.Messages = append(params.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		for _, c := range msg.ToolCalls {
			params.Messages = append(params.Messages, openai.ToolMessage(Tool(dir, c.Function.Name, c.Function.Arguments), c.ID))
		}
	}
	return "", errors.New("too many turns")
}

// Tool runs the workload's read_file and append_file in dir with the
// call's JSON arguments, and returns what the model is told: the file's
// text, the bytes appended, or "error: ..." for bad arguments, a path
// leaving dir or a missing file. The other SDKs' agents of bench call it
// too, so every row does the same tool work.
func Tool(dir, name, args string) string {
	var a struct{ Path, Content string }
	if err := json.Unmarshal([]byte(args), &a); err != nil || a.Path == "" || strings.Contains(a.Path, "..") {
		return "error: bad arguments"
	}
	p := filepath.Join(dir, filepath.FromSlash(a.Path))
	if name == "append_file" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return "error: " + err.Error()
		}
		defer f.Close()
		if _, err := f.WriteString(a.Content); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("appended %d bytes", len(a.Content))
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "error: no such file"
	}
	return string(b)
}

// Client returns an openai-go client with base URL and HTTP client set,
// and no retries.
func Client(baseURL string, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey("sk-bench"), option.WithMaxRetries(0)}, opts...)...)
}

// Agent is Run as a bridge.Agent.
func Agent(ctx context.Context, r *bridge.Run) error {
	final, err := Run(ctx, Client(r.OpenAIBaseURL, option.WithHTTPClient(r.HTTPClient)), r.Dir)
	if err != nil {
		return err
	}
	r.Final(final)
	return nil
}

// Script is the live model the workload is recorded against: each turn a
// read and an append of the next line, then "Done.".
func Script() llm.Model {
	n := 0
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		n++
		if n >= Turns {
			n = 0
			return &llm.Response{Message: llm.AssistantMessage("Done."), FinishReason: llm.FinishStop}, nil
		}
		return &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("Turn %d: reading and appending.", n),
			llm.ToolCall{ID: fmt.Sprintf("r%d", n), Name: "read_file", Arguments: `{"path":"log.txt"}`},
			llm.ToolCall{ID: fmt.Sprintf("w%d", n), Name: "append_file", Arguments: fmt.Sprintf(`{"path":"log.txt","content":"line %d\n"}`, n)}),
			FinishReason: llm.FinishToolCalls}, nil
	})
}

// scenarioText is the bridged scenario before its tape is recorded.
const scenarioText = `format: tapeloop/v1
setup:
  agent: {go: bench}
  workspace:
    files: {log.txt: "start\n"}
input:
  - {role: user, content: "Append ten lines."}
tape: []
expect:
  termination: final_text
  iterations: 11
`

// Agents is the workload's agent by the name its scenario gives
// (setup.agent.go: bench), for harness.VerifyOptions.Agents.
func Agents() map[string]harness.Runner {
	return map[string]harness.Runner{"bench": bridge.Runner(Agent, nil)}
}

// Prepare writes the bridged scenario into dir/scenarios, records its tape
// against Script through the bridge, writes its golden and returns its
// path.
func Prepare(ctx context.Context, dir string) (string, error) {
	sdir := filepath.Join(dir, "scenarios")
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(sdir, "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(scenarioText), 0o644); err != nil {
		return "", err
	}
	s, err := scenario.Load(path)
	if err != nil {
		return "", err
	}
	_, tape, err := bridge.Record(ctx, s, Agent, Script(), nil)
	if err != nil {
		return "", err
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		return "", err
	}
	if s, err = scenario.Load(path); err != nil {
		return "", err
	}
	if v := harness.VerifyScenario(ctx, s, &harness.VerifyOptions{Update: true, Agents: Agents()}); !v.Passed() {
		return "", fmt.Errorf("the recorded workload does not pass: %v %v", v.Err, v.Failures)
	}
	return path, nil
}
