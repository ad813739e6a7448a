package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/internal/udiff"
)

// rawFormat is one wire format's rows: its vendor SDK agent and, for the
// raw row, how a client with no SDK reads that format's answers.
type rawFormat struct {
	// name is the SDK agent's name in its scenario; the raw agent's is
	// "raw-" + name.
	name string
	// rows names the format and its rows in the printed comparison.
	rows benchrow.FormatRows
	// agent is the format's vendor SDK agent, whose requests the raw
	// agent sends.
	agent bridge.Agent
	// read returns an answer's text and tool calls.
	read func(body []byte) (text string, calls []rawCall, err error)
}

// rawCall is a tool call read from an answer: the tool's name and its
// arguments as JSON.
type rawCall struct{ name, args string }

// rawFormats are the five wire formats, Chat Completions first: the
// others' raw rows are compared with its raw row.
var rawFormats = []rawFormat{
	{"openai", benchrow.FormatRows{Format: "Chat Completions", Bridged: benchrow.BridgeRow, Alone: benchrow.AgentRow,
		Raw: "raw: Chat Completions requests (openai-go's bytes) replayed through bridge.Runner"}, benchagent.Agent, readChat},
	{"messages", benchrow.FormatRows{Format: "Messages API", Bridged: messagesBridgeRow, Alone: messagesAloneRow,
		Raw: "raw: Messages API requests (anthropic-sdk-go's bytes) replayed through bridge.Runner"}, messagesAgent, readMessages},
	{"responses", benchrow.FormatRows{Format: "Responses API", Bridged: responsesBridgeRow, Alone: responsesAloneRow,
		Raw: "raw: Responses API requests (openai-go's bytes) replayed through bridge.Runner"}, responsesAgent, readResponses},
	{"gemini", benchrow.FormatRows{Format: "Gemini API", Bridged: geminiBridgeRow, Alone: geminiAloneRow,
		Raw: "raw: Gemini API requests (genai's bytes) replayed through bridge.Runner"}, geminiAgent, readGemini},
	{"bedrock", benchrow.FormatRows{Format: "Bedrock Converse", Bridged: bedrockBridgeRow, Alone: bedrockAloneRow,
		Raw: "raw: Bedrock Converse requests (aws-sdk-go-v2's bytes) replayed through bridge.Runner"}, bedrockAgent, readBedrock},
}

// BenchmarkRaw is, per wire format, BenchmarkBridge with an agent that is
// no vendor SDK: it posts, turn by turn, the request bytes and headers
// the format's SDK agent sent in the same workload (captured from one
// bridged replay of that agent), reads each JSON answer with
// encoding/json and runs the tool calls it holds, as the SDK agent does.
// A row is thus the bridge's own cost for its format, plus the same small
// client and tool work in each: compare each with the Chat Completions
// row of the same run (issue 36's target, ≤ 1.2×).
func BenchmarkRaw(b *testing.B) {
	for i, f := range rawFormats {
		var answers []benchagent.Answer
		b.Run(f.name, func(b *testing.B) {
			if answers == nil {
				answers = captureAnswers(b, f.name, f.agent)
			}
			benchBridged(b, "raw-"+f.name, rawAgent(answers, f.read), 30+i, f.rows.Raw)
		})
	}
}

// rawAgent is the agent with no SDK that sends calls' requests in order
// through the run's HTTP client (the captured URL, headers and body bytes)
// and reads each answer with read. It runs each tool call an answer holds
// in the run's directory, with benchagent.Tool as the SDK agents do, and
// fails unless the next captured request carries each result (as a JSON
// string), since its bytes were sent after the same tool work; an answer
// with no call is the final text, which must be the last.
func rawAgent(calls []benchagent.Answer, read func([]byte) (string, []rawCall, error)) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		for i, c := range calls {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(c.Request))
			if err != nil {
				return err
			}
			req.Header = c.Header.Clone()
			resp, err := r.HTTPClient.Do(req)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("call %d: %s: %s", i+1, resp.Status, body)
			}
			text, tools, err := read(body)
			if err != nil {
				return fmt.Errorf("call %d: reading the answer: %w", i+1, err)
			}
			if len(tools) == 0 {
				if i != len(calls)-1 {
					return fmt.Errorf("call %d: a final answer before the last of %d calls", i+1, len(calls))
				}
				r.Final(text)
				return nil
			}
			if i == len(calls)-1 {
				return fmt.Errorf("call %d: tool calls in the last answer", i+1)
			}
			for _, t := range tools {
				out, err := json.Marshal(benchagent.Tool(r.Dir, t.name, t.args))
				if err != nil {
					return err
				}
				if !bytes.Contains(calls[i+1].Request, out) {
					return fmt.Errorf("call %d: the SDK's next request does not carry %s's result %s", i+1, t.name, out)
				}
			}
		}
		return errors.New("no final answer")
	}
}

// readChat reads a Chat Completions answer: the first choice's message.
func readChat(body []byte) (string, []rawCall, error) {
	var a struct {
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return "", nil, err
	}
	if len(a.Choices) == 0 {
		return "", nil, errors.New("no choice")
	}
	m := a.Choices[0].Message
	var calls []rawCall
	for _, c := range m.ToolCalls {
		calls = append(calls, rawCall{c.Function.Name, c.Function.Arguments})
	}
	return m.Content, calls, nil
}

// readMessages reads a Messages API answer: its text and tool_use blocks.
func readMessages(body []byte) (string, []rawCall, error) {
	var a struct {
		Content []struct {
			Type, Text, Name string
			Input            json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return "", nil, err
	}
	var text strings.Builder
	var calls []rawCall
	for _, c := range a.Content {
		switch c.Type {
		case "text":
			text.WriteString(c.Text)
		case "tool_use":
			calls = append(calls, rawCall{c.Name, string(c.Input)})
		}
	}
	return text.String(), calls, nil
}

// readResponses reads a Responses API answer: its output items' text and
// function calls.
func readResponses(body []byte) (string, []rawCall, error) {
	var a struct {
		Output []struct {
			Type, Name, Arguments string
			Content               []struct{ Type, Text string } `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return "", nil, err
	}
	var text strings.Builder
	var calls []rawCall
	for _, it := range a.Output {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if c.Type == "output_text" {
					text.WriteString(c.Text)
				}
			}
		case "function_call":
			calls = append(calls, rawCall{it.Name, it.Arguments})
		}
	}
	return text.String(), calls, nil
}

// readGemini reads a Gemini API answer: the first candidate's parts.
func readGemini(body []byte) (string, []rawCall, error) {
	var a struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string `json:"text"`
					FunctionCall *struct {
						Name string          `json:"name"`
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return "", nil, err
	}
	if len(a.Candidates) == 0 {
		return "", nil, errors.New("no candidate")
	}
	var text strings.Builder
	var calls []rawCall
	for _, p := range a.Candidates[0].Content.Parts {
		if fc := p.FunctionCall; fc != nil {
			calls = append(calls, rawCall{fc.Name, string(fc.Args)})
		} else {
			text.WriteString(p.Text)
		}
	}
	return text.String(), calls, nil
}

// readBedrock reads a Bedrock Converse answer: its message's text and
// toolUse blocks.
func readBedrock(body []byte) (string, []rawCall, error) {
	var a struct {
		Output struct {
			Message struct {
				Content []struct {
					Text    string `json:"text"`
					ToolUse *struct {
						Name  string          `json:"name"`
						Input json.RawMessage `json:"input"`
					} `json:"toolUse"`
				} `json:"content"`
			} `json:"message"`
		} `json:"output"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return "", nil, err
	}
	var text strings.Builder
	var calls []rawCall
	for _, c := range a.Output.Message.Content {
		if c.ToolUse != nil {
			calls = append(calls, rawCall{c.ToolUse.Name, string(c.ToolUse.Input)})
		} else {
			text.WriteString(c.Text)
		}
	}
	return text.String(), calls, nil
}

// TestRawAgentIsTheSDKAgentsWorkload holds each raw row to its SDK row's
// workload: the raw agent, replaying what the SDK agent sent, records the
// same tape as the SDK agent (its requests are the same bytes, and its
// tool results the same), and fails when its tool work differs from what
// the SDK's requests carry.
func TestRawAgentIsTheSDKAgentsWorkload(t *testing.T) {
	for _, f := range rawFormats {
		t.Run(f.name, func(t *testing.T) {
			answers := captureAnswers(t, f.name, f.agent)
			sdk, _ := prepareBridged(t, f.name, f.agent)
			raw, _ := prepareBridged(t, "raw-"+f.name, rawAgent(answers, f.read))
			want, err := os.ReadFile(sdk().Path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(raw().Path)
			if err != nil {
				t.Fatal(err)
			}
			got = bytes.Replace(got, []byte("{go: raw-"+f.name+"}"), []byte("{go: "+f.name+"}"), 1)
			if !bytes.Equal(got, want) {
				t.Errorf("the raw agent's recording differs from the SDK agent's:\n%s", udiff.FirstHunk(string(want), string(got)))
			}

			// Seeded otherwise, read_file's result is not what the SDK sent.
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte("other\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &bridge.Run{HTTPClient: &http.Client{Transport: benchagent.NewCanned(answers)}, Dir: dir}
			err = rawAgent(answers, f.read)(context.Background(), r)
			if err == nil || !strings.Contains(err.Error(), `does not carry read_file's result "other\n`) {
				t.Errorf("a raw agent whose tool work differs from the SDK's ended with %v", err)
			}
		})
	}
}
