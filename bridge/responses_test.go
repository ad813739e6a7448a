package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/replay"
)

// responsesAgent is the notes agent on openai-go's Responses API,
// streamed or not; chained, it keeps its conversation on the server
// (previous_response_id, only the new items each call), else it sends the
// whole input with store false.
type responsesAgent struct {
	system, readDesc, model, toolChoice string
	stream, chained                     bool
	// alter, when set, changes the encrypted content of each reasoning
	// item it sends back (a broken agent).
	alter bool
}

func newResponsesAgent(stream, chained bool) *responsesAgent {
	return &responsesAgent{system: "You keep notes in files.", readDesc: "Read a file.", model: "gpt-test", toolChoice: "auto", stream: stream, chained: chained}
}

func (a *responsesAgent) run(ctx context.Context, r *bridge.Run) error {
	client := openai.NewClient(ooption.WithBaseURL(r.OpenAIBaseURL), ooption.WithHTTPClient(r.HTTPClient),
		ooption.WithAPIKey(r.APIKey), ooption.WithMaxRetries(0))
	fn := func(name, desc string, props map[string]any, required ...string) responses.ToolUnionParam {
		return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: name, Description: param.NewOpt(desc), Strict: param.NewOpt(false),
			Parameters: map[string]any{"type": "object", "properties": props, "required": required}}}
	}
	params := responses.ResponseNewParams{
		Model:        a.model,
		Instructions: param.NewOpt(a.system),
		Tools: []responses.ToolUnionParam{
			fn("read_file", a.readDesc, map[string]any{"path": map[string]any{"type": "string"}}, "path"),
			fn("write_file", "Write a file.", map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "path", "content"),
		},
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptions(a.toolChoice))},
		Store:      param.NewOpt(a.chained),
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(r.Input[len(r.Input)-1].Content, responses.EasyInputMessageRoleUser)}
	for range 10 {
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
		var resp *responses.Response
		if a.stream {
			s := client.Responses.NewStreaming(ctx, params)
			for s.Next() {
				if ev := s.Current(); ev.Type == "response.completed" {
					resp = &ev.Response
				}
			}
			err := s.Err()
			s.Close()
			if err != nil {
				return err
			}
			if resp == nil {
				return errors.New("the stream ended without response.completed")
			}
		} else {
			var err error
			if resp, err = client.Responses.New(ctx, params); err != nil {
				return err
			}
		}
		if a.chained {
			params.PreviousResponseID = param.NewOpt(resp.ID)
			input = nil
		}
		var outputs responses.ResponseInputParam
		for _, it := range resp.Output {
			if !a.chained {
				raw := it.RawJSON()
				if a.alter && it.Type == "reasoning" {
					raw = strings.Replace(raw, `"encrypted_content":"`, `"encrypted_content":"A`, 1)
				}
				input = append(input, param.Override[responses.ResponseInputItemUnionParam](jsonRaw(raw)))
			}
			if it.Type == "function_call" {
				fc := it.AsFunctionCall()
				out := responses.ResponseInputItemParamOfFunctionCallOutput(runTool(r.Dir, fc.Name, fc.Arguments))
				out.OfFunctionCallOutput.CallID = param.NewOpt(fc.CallID)
				outputs = append(outputs, out)
			}
		}
		if len(outputs) == 0 {
			r.Final(resp.OutputText())
			return nil
		}
		input = append(input, outputs...)
	}
	return errors.New("too many steps")
}

// jsonRaw is an output item's JSON, sent back as it came (what the SDK's
// ToParam does for the items it knows).
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// TestResponsesAgent records the notes agent on openai-go's Responses API
// (stateless, and chained by previous_response_id) through the
// openai-responses provider against a scripted local server, replays it
// with the server gone, streamed and whole, fails closed when its system
// prompt, a tool's description, its model or its tool choice changes, and
// replays a changed system prompt once it is rebased.
func TestResponsesAgent(t *testing.T) {
	for _, chained := range []bool{false, true} {
		name := map[bool]string{false: "store false", true: "previous_response_id"}[chained]
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(bridge.Handler(notesScript(), nil))
			live, err := llm.Open(t.Context(), "openai-responses/gpt-test", &llm.OpenOptions{BaseURL: srv.URL + "/v1", APIKey: "sk-local-test"})
			if err != nil {
				t.Fatal(err)
			}
			path := record(t, notesScenario, newResponsesAgent(true, chained).run, live)
			srv.Close()
			for _, stream := range []bool{true, false} {
				if v := verify(t, path, newResponsesAgent(stream, chained).run, stream); !v.Passed() {
					t.Fatalf("stream %v: the replay fails:\n%s", stream, fmt.Sprint(v.Failure()))
				}
			}
			a := newResponsesAgent(false, chained)
			a.system += " Be brief."
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "Be brief.")
			a = newResponsesAgent(false, chained)
			a.readDesc = "Read a text file."
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "read_file")
			a = newResponsesAgent(false, chained)
			a.model = "gpt-other"
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "model", "gpt-other")
			a = newResponsesAgent(false, chained)
			a.toolChoice = "required"
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "tool_choice", "required")

			// Rebased, the changed system prompt replays.
			a = newResponsesAgent(false, chained)
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
			failsClosed(t, verify(t, path, newResponsesAgent(false, chained).run, false), "notes.yaml:", "Be brief.")
		})
	}
}

// TestResponsesUnknownPrevious: a request continuing a response the run
// never served fails the scenario, naming the id, in the test's output.
func TestResponsesUnknownPrevious(t *testing.T) {
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	agent := func(ctx context.Context, r *bridge.Run) error {
		client := openai.NewClient(ooption.WithBaseURL(r.OpenAIBaseURL), ooption.WithHTTPClient(r.HTTPClient), ooption.WithAPIKey(r.APIKey), ooption.WithMaxRetries(0))
		_, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-test", PreviousResponseID: param.NewOpt("resp_from_yesterday"),
			Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Go on.")}})
		return err
	}
	v := verify(t, path, agent, false)
	all := fmt.Sprint(v.Failure())
	if v.Passed() || !strings.Contains(all, `previous_response_id "resp_from_yesterday"`) {
		t.Errorf("passed %v; failures:\n%s", v.Passed(), all)
	}
}

// vendorResponses is a scripted Responses API vendor with ids of its own
// ("resp_vendor_N", unlike any id the bridge makes): it resolves a
// previous_response_id only from the responses it gave.
func vendorResponses(t *testing.T, model llm.Model) http.Handler {
	var mu sync.Mutex
	var dec wire.Decoder
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c, err := dec.Decode(r.URL.Path, body)
		if err != nil {
			t.Errorf("the vendor refuses %s: %v", body, err)
			(&wire.Error{Kind: llm.ErrBadRequest, Message: err.Error()}).Write(w, wire.Responses)
			return
		}
		resp, err := model.Generate(r.Context(), &c.Request)
		if err != nil {
			wire.ErrorOf(err).Write(w, c.Format)
			return
		}
		mu.Lock()
		n++
		id := fmt.Sprintf("resp_vendor_%d", n)
		mu.Unlock()
		dec.KeepAs(id, c, resp)
		wire.WriteResponse(w, c, resp, &wire.Options{ID: id})
	})
}

// TestResponsesRecordForwards: recording a Responses agent forwards its
// own requests to the vendor byte for byte, and the ids the agent gets
// are the vendor's, so a chained agent's previous_response_id reaches a
// vendor that knows it; the tape replays with the vendor gone.
func TestResponsesRecordForwards(t *testing.T) {
	for _, chained := range []bool{false, true} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("chained %v stream %v", chained, stream), func(t *testing.T) {
				var sent, got wireLog
				srv := httptest.NewServer(got.vendor(vendorResponses(t, notesScript())))
				defer srv.Close()
				live, err := llm.Open(t.Context(), "openai-responses/gpt-test", &llm.OpenOptions{BaseURL: srv.URL + "/v1", APIKey: liveKey, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				path := record(t, notesScenario, sent.capture(newResponsesAgent(stream, chained).run), live)
				if len(sent.got) != 3 || len(got.got) != 3 {
					t.Fatalf("the agent sent %d requests, the vendor got %d; want 3 and 3", len(sent.got), len(got.got))
				}
				for i, s := range sent.got {
					if !bytes.Equal(got.got[i].body, s.body) {
						t.Errorf("request %d: the vendor got another body:\n got %s\nsent %s", i+1, got.got[i].body, s.body)
					}
				}
				if chained && !bytes.Contains(sent.got[2].body, []byte(`"previous_response_id":"resp_vendor_2"`)) {
					t.Errorf("the third request does not continue the vendor's second response:\n%s", sent.got[2].body)
				}
				for _, replayStream := range []bool{false, true} {
					if v := verify(t, path, newResponsesAgent(replayStream, chained).run, !replayStream); !v.Passed() {
						t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
					}
				}
			})
		}
	}
}
