package sdkagents_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/examples/sdkagents"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var record = flag.Bool("record", false, "record the scenarios' tapes against the scripted model")

// answer runs one of the agents on a bridged run: its request the
// scenario's last input message, its answer reported as the final one.
func answer(run func(context.Context, *bridge.Run, string) (string, error)) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		text, err := run(ctx, r, r.Input[len(r.Input)-1].Content)
		r.Final(text)
		return err
	}
}

// sdk are the four agents by the names the scenarios give in
// setup.agent.go, each with its SDK's client pointed at the bridge: its
// base URL (or endpoint), the bridge's in-process HTTP client, a key, and
// the SDK's own retries off.
var sdk = map[string]bridge.Agent{
	"messages": answer(func(ctx context.Context, r *bridge.Run, request string) (string, error) {
		client := anthropic.NewClient(aoption.WithBaseURL(r.AnthropicBaseURL), aoption.WithHTTPClient(r.HTTPClient),
			aoption.WithAPIKey(r.APIKey), aoption.WithMaxRetries(0))
		return sdkagents.Messages(ctx, client, r.Dir, request)
	}),
	"responses": answer(func(ctx context.Context, r *bridge.Run, request string) (string, error) {
		client := openai.NewClient(ooption.WithBaseURL(r.OpenAIBaseURL), ooption.WithHTTPClient(r.HTTPClient),
			ooption.WithAPIKey(r.APIKey), ooption.WithMaxRetries(0))
		return sdkagents.Responses(ctx, client, r.Dir, request)
	}),
	"gemini": answer(func(ctx context.Context, r *bridge.Run, request string) (string, error) {
		client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
			HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL}})
		if err != nil {
			return "", err
		}
		return sdkagents.Gemini(ctx, client, r.Dir, request)
	}),
	"bedrock": answer(func(ctx context.Context, r *bridge.Run, request string) (string, error) {
		client := bedrockruntime.New(bedrockruntime.Options{
			Region: "us-east-1", BaseEndpoint: aws.String(r.BedrockBaseURL), HTTPClient: r.HTTPClient, RetryMaxAttempts: 1,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: r.APIKey}, nil
			}),
		})
		return sdkagents.Bedrock(ctx, client, r.Dir, request)
	}),
}

// agents are sdk's agents as the harness runs them (bridge.Runner).
var agents = func() map[string]harness.Runner {
	m := map[string]harness.Runner{}
	for name, a := range sdk {
		m[name] = bridge.Runner(a, nil)
	}
	return m
}()

// TestScenarios replays scenarios/, one scenario per wire format, each
// through its agent: goldens and expectations as for a native scenario
// (go test -update rewrites the goldens).
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Agents: agents})
}

// TestSystemPromptChange: each agent's requests are pinned by its tape, so
// a system prompt other than the recorded one fails closed, in every
// format, naming the entry and showing the prompt's difference.
func TestSystemPromptChange(t *testing.T) {
	for name := range agents {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "scenarios")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, file := range []string{name + ".yaml", name + ".golden.yaml"} {
				b, err := os.ReadFile(filepath.Join("scenarios", file))
				if err != nil {
					t.Fatal(err)
				}
				old := strings.Replace(string(b), "system: You keep the user's notes in files. Read a note before you change it.", "system: You keep the user's notes in files.", 1)
				if old == string(b) && !strings.Contains(file, "golden") {
					t.Fatalf("%s: no offered.system line to change", file)
				}
				if err := os.WriteFile(filepath.Join(dir, file), []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v := harness.Verify(t.Context(), filepath.Join(dir, name+".yaml"), &harness.VerifyOptions{Agents: agents})
			all := fmt.Sprint(v.Failure())
			for _, want := range []string{"the run diverged from the tape", name + ".yaml:", "-You keep the user's notes in files.\n+You keep the user's notes in files. Read a note before you change it."} {
				if v.Passed() || !strings.Contains(all, want) {
					t.Errorf("the changed prompt's failure does not say %q:\n%s (error %v)", want, all, v.Err)
				}
			}
		})
	}
}

// script stands in for a live model when the tapes are recorded (go test
// -record): the same three answers for every format.
var script = []*llm.Response{
	call("call_1", "read_note", `{"name":"shopping"}`),
	call("call_2", "write_note", `{"name":"shopping","text":"milk\neggs\n"}`),
	{Message: llm.AssistantMessage("Added eggs to your shopping note: milk, eggs."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 260, OutputTokens: 14}},
}

func call(id, name, args string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args}),
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 210, OutputTokens: 18}}
}

// TestRecord records each scenario's tape in place, with the scripted
// model answering through the bridge in the agent's wire format, as a live
// one would (bridge.Record).
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("go test -record records the tapes")
	}
	for name := range agents {
		path := filepath.Join("scenarios", name+".yaml")
		s, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			step := script[min(n, len(script)-1)]
			n++
			return step, nil
		})
		_, tape, err := bridge.Record(t.Context(), s, sdk[name], model, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bridge.WriteRecording(path, tape); err != nil {
			t.Fatal(err)
		}
	}
}
