package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/bedrock" // the live provider the recording forwards through
	"github.com/tapeloop/tapeloop/replay"
)

// bedrockAgent is the notes agent on aws-sdk-go-v2's Bedrock Runtime
// client: Converse, or ConverseStream when stream is set.
type bedrockAgent struct {
	system, readDesc, model, toolChoice string
	stream                              bool
	// alter, when set, changes the signature of each reasoning block it
	// sends back (a broken agent).
	alter bool
}

func newBedrockAgent(stream bool) *bedrockAgent {
	return &bedrockAgent{system: "You keep notes in files.", readDesc: "Read a file.", model: "amazon.nova-pro-v1:0", toolChoice: "auto", stream: stream}
}

func (a *bedrockAgent) run(ctx context.Context, r *bridge.Run) error {
	client := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(r.BedrockBaseURL), HTTPClient: r.HTTPClient, RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDAGENT", SecretAccessKey: r.APIKey}, nil
		}),
	})
	tool := func(name, desc string, props map[string]any, required ...string) types.Tool {
		return &types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String(name), Description: aws.String(desc),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object", "properties": props, "required": required})}}}
	}
	cfg := &types.ToolConfiguration{Tools: []types.Tool{
		tool("read_file", a.readDesc, map[string]any{"path": map[string]any{"type": "string"}}, "path"),
		tool("write_file", "Write a file.", map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "path", "content"),
	}}
	if a.toolChoice == "any" {
		cfg.ToolChoice = &types.ToolChoiceMemberAny{}
	} else {
		cfg.ToolChoice = &types.ToolChoiceMemberAuto{}
	}
	msgs := []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: r.Input[len(r.Input)-1].Content}}}}
	for range 10 {
		var content []types.ContentBlock
		if a.stream {
			out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(a.model), Messages: msgs,
				System: []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: a.system}}, ToolConfig: cfg})
			if err != nil {
				return err
			}
			if content, err = gather(out.GetStream()); err != nil {
				return err
			}
		} else {
			out, err := client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(a.model), Messages: msgs,
				System: []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: a.system}}, ToolConfig: cfg})
			if err != nil {
				return err
			}
			content = out.Output.(*types.ConverseOutputMemberMessage).Value.Content
		}
		for _, b := range content {
			if rc, ok := b.(*types.ContentBlockMemberReasoningContent); ok && a.alter {
				if rt, ok := rc.Value.(*types.ReasoningContentBlockMemberReasoningText); ok && rt.Value.Signature != nil {
					rt.Value.Signature = aws.String(*rt.Value.Signature + "A")
				}
			}
		}
		msgs = append(msgs, types.Message{Role: types.ConversationRoleAssistant, Content: content})
		var results []types.ContentBlock
		var text string
		for _, b := range content {
			switch b := b.(type) {
			case *types.ContentBlockMemberText:
				text += b.Value
			case *types.ContentBlockMemberToolUse:
				raw, err := b.Value.Input.MarshalSmithyDocument()
				if err != nil {
					return err
				}
				results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: b.Value.ToolUseId,
					Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: runTool(r.Dir, *b.Value.Name, string(raw))}}}})
			}
		}
		if results == nil {
			r.Final(text)
			return nil
		}
		msgs = append(msgs, types.Message{Role: types.ConversationRoleUser, Content: results})
	}
	return errors.New("too many steps")
}

// gather reads a ConverseStream into the message's blocks, as an agent
// accumulates one: reasoning text and signature joined (one block), text
// joined, each tool use's input fragments joined and parsed.
func gather(es *bedrockruntime.ConverseStreamEventStream) ([]types.ContentBlock, error) {
	defer es.Close()
	var text, thought, signature strings.Builder
	type use struct {
		id, name string
		input    strings.Builder
	}
	var uses []*use
	for ev := range es.Events() {
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				uses = append(uses, &use{id: *tu.Value.ToolUseId, name: *tu.Value.Name})
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				text.WriteString(d.Value)
			case *types.ContentBlockDeltaMemberToolUse:
				uses[len(uses)-1].input.WriteString(*d.Value.Input)
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					thought.WriteString(r.Value)
				case *types.ReasoningContentBlockDeltaMemberSignature:
					signature.WriteString(r.Value)
				}
			}
		}
	}
	if err := es.Err(); err != nil {
		return nil, err
	}
	var out []types.ContentBlock
	if thought.Len() > 0 || signature.Len() > 0 {
		rt := types.ReasoningTextBlock{Text: aws.String(thought.String())}
		if signature.Len() > 0 {
			rt.Signature = aws.String(signature.String())
		}
		out = append(out, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: rt}})
	}
	if text.Len() > 0 {
		out = append(out, &types.ContentBlockMemberText{Value: text.String()})
	}
	for _, u := range uses {
		var v any
		if err := json.Unmarshal([]byte(u.input.String()), &v); err != nil {
			return nil, err
		}
		out = append(out, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(u.id), Name: aws.String(u.name), Input: document.NewLazyDocument(v)}})
	}
	return out, nil
}

// TestBedrockAgent records the notes agent on aws-sdk-go-v2 (Converse)
// through the bedrock provider (the agent's own request forwarded, signed
// anew) against a scripted local server, replays it with the server gone,
// streamed and whole, fails closed when its system prompt, a tool's
// description, its model or its tool choice changes, and replays a
// changed system prompt once it is rebased.
func TestBedrockAgent(t *testing.T) {
	srv := httptest.NewServer(bridge.Handler(notesScript(), nil))
	live, err := llm.Open(t.Context(), "bedrock/amazon.nova-pro-v1:0", &llm.OpenOptions{BaseURL: srv.URL,
		Getenv: func(k string) string {
			return map[string]string{"AWS_ACCESS_KEY_ID": "AKIDLIVE", "AWS_SECRET_ACCESS_KEY": "live-secret", "AWS_REGION": "us-east-1"}[k]
		}})
	if err != nil {
		t.Fatal(err)
	}
	path := record(t, notesScenario, newBedrockAgent(false).run, live)
	srv.Close()
	for _, stream := range []bool{false, true} {
		if !t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			if v := verify(t, path, newBedrockAgent(stream).run, !stream); !v.Passed() {
				t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
			}
		}) {
			t.FailNow()
		}
	}
	a := newBedrockAgent(false)
	a.system += " Be brief."
	failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "Be brief.")
	a = newBedrockAgent(false)
	a.readDesc = "Read a text file."
	failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "read_file")
	a = newBedrockAgent(false)
	a.model = "amazon.nova-lite-v1:0"
	failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "model", "amazon.nova-lite-v1:0")
	a = newBedrockAgent(true)
	a.toolChoice = "any"
	failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "toolChoice")

	a = newBedrockAgent(false)
	a.system += " Be brief."
	s := load(t, path)
	m := replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Rebase: true})
	if _, err := bridge.Runner(a.run, nil)(t.Context(), s, &harness.RunOptions{Replay: m}); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || !rb.Changed() {
		t.Fatalf("rebase: %v, changed %v", err, rb != nil && rb.Changed())
	}
	if err := bridge.WriteRecording(path, rb.Tape); err != nil {
		t.Fatal(err)
	}
	if v := verify(t, path, a.run, false); !v.Passed() {
		t.Errorf("the rebased replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	failsClosed(t, verify(t, path, newBedrockAgent(false).run, false), "notes.yaml:", "Be brief.")
}
