package notes_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/notes"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/openai" // the provider evalrun record opens
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var record = flag.Bool("record", false, "record the scenarios' tapes against the scripted model")

// runNotes runs the notes agent on a bridged run: its openai-go client
// pointed at the bridge, its folder the run's workspace, its first request
// the scenario's input. It answers the user's turns one after another, in
// one conversation, until the user has nothing more to say.
func runNotes(ctx context.Context, r *bridge.Run, stream bool) error {
	a := notes.New(r.Dir,
		option.WithBaseURL(r.OpenAIBaseURL),
		option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey),
		option.WithMaxRetries(0))
	a.Stream = stream
	chat := a.Chat() // one history for the whole conversation
	text := r.Input[len(r.Input)-1].Content
	for {
		answer, err := chat.Say(ctx, text)
		if err != nil {
			return err
		}
		r.Final(answer)
		next, ok := r.NextUser(ctx)
		if !ok {
			return nil // the conversation is over
		}
		text = next.Content
	}
}

// agents is the notes agent by the name bridged scenarios give in
// setup.agent.go, for harness.Test and for evalrun, as a main of your own
// would register it (cmd/notesrun).
var agents = map[string]harness.Runner{
	"notes": bridge.Runner(func(ctx context.Context, r *bridge.Run) error { return runNotes(ctx, r, true) }, nil),
}

// TestScenarios replays scenarios/ with the agent streaming its answers:
// one subtest per scenario, goldens and expectations as for a native
// scenario (go test -update rewrites the goldens); a failure's hints name
// cmd/notesrun, the example's own evalrun.
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Agents: agents, Command: notesrun})
}

// notesrun is how this example's own evalrun (cmd/notesrun) is run from
// the module root: the failures of TestScenarios name it in their hints.
const notesrun = "go run ./examples/notes/cmd/notesrun"

// TestScenariosWhole replays the same tapes with whole (not streamed)
// answers: the same goldens hold.
func TestScenariosWhole(t *testing.T) {
	whole := bridge.Runner(func(ctx context.Context, r *bridge.Run) error { return runNotes(ctx, r, false) }, nil)
	harness.Test(t, "scenarios", &harness.TestOptions{Agents: map[string]harness.Runner{"notes": whole}})
}

// scripts stand in for a live model when the tapes are recorded (go test
// -record): the model's answers, scenario by scenario.
var scripts = map[string][]any{
	"add-item": {
		call("call_1", "read_note", `{"name":"shopping"}`),
		call("call_2", "write_note", `{"name":"shopping","text":"milk\neggs\n"}`),
		answer("Added eggs to your shopping note: milk, eggs."),
	},
	"missing-note": {
		call("call_1", "read_note", `{"name":"todo"}`),
		answer("You have no note called todo."),
	},
	"two-requests": {
		call("call_1", "read_note", `{"name":"shopping"}`),
		call("call_2", "write_note", `{"name":"shopping","text":"milk\neggs\n"}`),
		answer("Added eggs to your shopping note: milk, eggs."),
		call("call_3", "write_note", `{"name":"shopping","text":"milk\neggs\nbread\n"}`),
		answer("Added bread: milk, eggs, bread."),
	},
	"model-down": {
		&llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "The server is overloaded; try again later."},
	},
}

// TestRecord records each scenario's tape in place, with the scripted
// model answering through the bridge as a live one would (bridge.Record).
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("go test -record records the tapes")
	}
	for name, steps := range scripts {
		path := filepath.Join("scenarios", name+".yaml")
		s, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		agent := func(ctx context.Context, r *bridge.Run) error { return runNotes(ctx, r, true) }
		_, tape, err := bridge.Record(t.Context(), s, agent, scripted(steps), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bridge.WriteRecording(path, tape); err != nil {
			t.Fatal(err)
		}
	}
}

func scripted(steps []any) llm.Model {
	n := 0
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		step := steps[min(n, len(steps)-1)]
		n++
		if err, ok := step.(error); ok {
			return nil, err
		}
		return step.(*llm.Response), nil
	})
}

func call(id, name, args string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args}),
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 210, OutputTokens: 18}}
}

func answer(text string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 260, OutputTokens: 14}}
}

// TestEvalrunReplay replays scenarios/ through the evalrun entry point with
// the agent registered.
func TestEvalrunReplay(t *testing.T) {
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), []string{"scenarios"}, &out, &errb, &evalrun.Options{Agents: agents})
	if code != 0 || !strings.Contains(out.String(), "4 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := evalrun.Main(t.Context(), []string{"scenarios"}, &out, &errb, nil); code != 2 || !strings.Contains(out.String()+errb.String(), `no Go agent "notes"`) {
		t.Errorf("without the agent: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// TestEvalrunRecord records a scenario with evalrun record: the notes
// agent's calls go through the bridge to a live model (here a scripted
// one behind a local Chat Completions server), the tape is written in
// place, and it then replays with the server gone.
func TestEvalrunRecord(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("scenarios", "add-item.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	text = text[:strings.Index(text, "offered:")] + "tape: []\n" + text[strings.Index(text, "expect:"):]
	dir := filepath.Join(t.TempDir(), "scenarios")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "add-item.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bridge.Handler(scripted(scripts["add-item"]), nil))
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), []string{"record", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL + "/v1", path}, &out, &errb, &evalrun.Options{Agents: agents})
	srv.Close()
	if code != 0 {
		t.Fatalf("record: exit %d\n%s%s", code, out.String(), errb.String())
	}
	recorded, _ := os.ReadFile(path)
	if !strings.Contains(string(recorded), "name: write_note") || !strings.Contains(string(recorded), "offered:") {
		t.Errorf("the recorded scenario:\n%s", recorded)
	}
	out.Reset()
	if code := evalrun.Main(t.Context(), []string{path}, &out, &errb, &evalrun.Options{Agents: agents}); code != 0 {
		t.Errorf("replay of the recording: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// TestEvalrunEval runs the bridged scenario live for two trials with
// evalrun eval: each trial's calls go through the bridge to the model (a
// scripted one behind a local Chat Completions server that answers by
// the conversation so far), and both pass.
func TestEvalrunEval(t *testing.T) {
	live := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		results := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				results++
			}
		}
		return scripts["add-item"][min(results, 2)].(*llm.Response), nil
	})
	srv := httptest.NewServer(bridge.Handler(live, nil))
	defer srv.Close()
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), []string{"eval", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL + "/v1", "--trials", "2", filepath.Join("scenarios", "add-item.yaml")}, &out, &errb, &evalrun.Options{Agents: agents})
	if testing.Verbose() {
		t.Log(out.String())
	}
	if code != 0 || !strings.Contains(out.String(), "2/2") {
		t.Errorf("eval: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// TestConversationForgetful: the tape of a conversation holds what the
// model saw on each turn, so an agent that starts a new history for the
// user's second request (the model would not see the note it read, nor
// its first answer) fails closed on that request, naming it.
func TestConversationForgetful(t *testing.T) {
	s, err := scenario.Load(filepath.Join("scenarios", "two-requests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	forgetful := func(ctx context.Context, r *bridge.Run) error {
		a := notes.New(r.Dir, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient),
			option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
		text := r.Input[len(r.Input)-1].Content
		for {
			answer, err := a.Chat().Say(ctx, text) // a new history each time
			if err != nil {
				return err
			}
			r.Final(answer)
			next, ok := r.NextUser(ctx)
			if !ok {
				return nil
			}
			text = next.Content
		}
	}
	v := harness.VerifyScenario(t.Context(), s, &harness.VerifyOptions{Agents: map[string]harness.Runner{"notes": bridge.Runner(forgetful, nil)}})
	if v.Passed() {
		t.Fatal("an agent that forgets the conversation passed")
	}
	all := fmt.Sprint(v.Failure())
	// The entry that diverges is the model call after the user's second
	// turn: the line below "- user: Add bread as well." in the file.
	src, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := strings.Cut(string(src), "  - user: Add bread as well.\n")
	entry := fmt.Sprintf("two-requests.yaml:%d: request diverged from the recording", strings.Count(before, "\n")+2)
	for _, want := range []string{entry, "does not extend the previous request's conversation"} {
		if !strings.Contains(all, want) {
			t.Errorf("the failure does not say %q:\n%s", want, all)
		}
	}
	if testing.Verbose() {
		t.Log(all)
	}
}
