// Package clientproof proves the bridge with a model client nobody on
// this project wrote: the nested modules' tests (bridge/clients and those
// below it) give it an agent on the client, which it records against a
// scripted local server speaking the agent's wire format, replays with
// the server gone, and changes (system prompt, a tool's description,
// model, tool choice, API version) to see each replay fail closed, before
// a rebase accepts the changes. A proof run as a subtest named "stream"
// (StreamSubtest) must have been answered in streams throughout, and any
// other in single answers. It links no model client of its own: the
// caller registers the provider that records (an llm/... import).
package clientproof

import (
	"encoding/json"
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
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
)

// notesScenario is a bridged scenario: the agent reads notes.txt, appends
// a line and says what it did.
const notesScenario = `format: tapeloop/v1
description: The notes agent appends a line to a file.
setup:
  agent: {go: notes}
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
expect:
  termination: final_text
  iterations: 3
  calls:
    match: in_order
    list:
      - {name: read_file, arguments: {path: notes.txt}}
      - {name: write_file, arguments: {path: notes.txt, content: "hello\nworld\n"}}
  final: {contains: "hello and world"}
  files:
    notes.txt: "hello\nworld\n"
`

// Knobs are what a proof changes in an agent to see replay fail closed:
// its system prompt and the description of its read_file tool.
type Knobs struct{ System, ReadDesc string }

// Defaults are the knobs an agent is recorded with.
var Defaults = Knobs{
	System:   "You keep notes in files.",
	ReadDesc: "Read a file in the notes folder.",
}

// The agents' two tools, read_file (described by Knobs.ReadDesc) and
// write_file: their parameters' JSON Schemas and write_file's description.
const (
	ReadSchema  = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	WriteSchema = `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
	WriteDesc   = "Write a file in the notes folder."
)

// RunTool runs one of the agents' two tools, name with its JSON
// arguments args, on the files in dir, and returns what the model is told:
// the file, what was written, or an error starting "error:".
func RunTool(dir, name, args string) string {
	var a struct{ Path, Content string }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "error: " + err.Error()
	}
	p := filepath.Join(dir, filepath.FromSlash(a.Path))
	switch name {
	case "read_file":
		b, err := os.ReadFile(p)
		if err != nil {
			return "error: no such file"
		}
		return string(b)
	case "write_file":
		if err := os.WriteFile(p, []byte(a.Content), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("wrote %d bytes", len(a.Content))
	}
	return "error: unknown tool " + name
}

// liveServer is a scripted model behind a local HTTP server speaking the
// wire format of each request it gets (package wire, as the bridge does):
// the n-th request gets the n-th answer, streamed when the client asks for
// a stream.
type liveServer struct {
	*httptest.Server
	mu       sync.Mutex
	n        int
	requests int
}

// newLiveServer starts the scripted server, closed when t ends.
func newLiveServer(t *testing.T) *liveServer {
	t.Helper()
	answers := []*llm.Response{
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_2", Name: "write_file", Arguments: `{"path":"notes.txt","content":"hello\nworld\n"}`}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("Done: notes.txt now says hello and world."), FinishReason: llm.FinishStop},
	}
	s := &liveServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c, err := wire.Decode(r.URL.Path, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests++
		if s.n >= len(answers) {
			(&wire.Error{Kind: llm.ErrBadRequest, Message: "the script has no more answers"}).Write(w, c.Format)
			return
		}
		resp := answers[s.n]
		s.n++
		wire.WriteResponse(w, c, resp, nil)
	}))
	t.Cleanup(s.Close)
	return s
}

// Client records agent against the scripted live server through the
// openai-compatible provider (the caller registers it: import
// llm/openai), replays it with the server closed (golden written, then
// checked), and checks that a changed system prompt and a changed tool
// description fail the replay with a diff naming the scenario file.
func Client(t *testing.T, agent func(k Knobs) bridge.Agent) {
	path := writeScenario(t)
	live := newLiveServer(t)
	model, err := llm.Open(t.Context(), "openai-compatible/scripted", &llm.OpenOptions{BaseURL: live.URL, APIKey: "sk-local-test"})
	if err != nil {
		t.Fatal(err)
	}
	recordAndReplay(t, path, live, model, Defaults, agent)
}

// recordAndReplay records agent(def) through model against live, writes
// the recording to path and checks it holds the offered block, def's
// system prompt and tool description, the second call and wants; then
// replays it (the golden written, then checked with the server gone) and
// checks that a changed system prompt and a changed tool description fail
// the replay with a diff naming the scenario file. The recording and both
// replays must each answer the agent as a stream in a StreamSubtest, and
// never elsewhere.
func recordAndReplay(t *testing.T, path string, live *liveServer, model llm.Model, def Knobs, agent func(Knobs) bridge.Agent, wants ...string) {
	t.Helper()
	seen := &answers{}
	o, tape, err := bridge.Record(t.Context(), load(t, path), seen.observe(agent(def)), model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
	live.Close()
	if live.requests != 3 {
		t.Fatalf("the live server saw %d requests, want 3", live.requests)
	}
	recorded, _ := os.ReadFile(path)
	for _, want := range append([]string{"offered:", def.System, def.ReadDesc, "call_2"}, wants...) {
		if !strings.Contains(string(recorded), want) {
			t.Errorf("the recorded scenario does not hold %q:\n%s", want, recorded)
		}
	}
	if v := verify(t, path, seen.observe(agent(def)), true); !v.Passed() {
		t.Fatalf("the first replay (writing the golden) fails:\n%s", v.Failure().Error())
	}
	if v := verify(t, path, seen.observe(agent(def)), false); !v.Passed() {
		t.Fatalf("the replay with the server gone fails:\n%s", v.Failure().Error())
	}
	seen.check(t)
	changed := def
	changed.System = "You keep notes in files. Be brief."
	failsClosed(t, "system prompt", verify(t, path, agent(changed), false), "notes.yaml:", "Be brief.")
	changed = def
	changed.ReadDesc = "Read a text file."
	failsClosed(t, "tool description", verify(t, path, agent(changed), false), "notes.yaml:", "read_file", "Read a text file.")
}

// load loads the scenario at path.
func load(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// verify replays the scenario at path with agent, writing its golden
// when update is set.
func verify(t *testing.T, path string, agent bridge.Agent, update bool) *harness.Verdict {
	t.Helper()
	s := load(t, path)
	v := harness.VerifyScenario(t.Context(), s, &harness.VerifyOptions{Update: update,
		Agents: map[string]harness.Runner{s.Setup.Agent.Go: bridge.Runner(agent, nil)}})
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	return v
}

// failsClosed checks that v, the replay after what changed, failed and
// that its failures say each of wants.
func failsClosed(t *testing.T, what string, v *harness.Verdict, wants ...string) {
	t.Helper()
	if v.Passed() {
		t.Errorf("%s changed: the replay passed; want it to fail closed", what)
		return
	}
	all := v.Failure().Error()
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("%s changed: the failures do not say %q:\n%s", what, w, all)
		}
	}
}

// LastUser is the scenario's user message, the agents' input.
func LastUser(r *bridge.Run) string { return r.Input[len(r.Input)-1].Content }

// ModelKnobs are Knobs with what an agent also chooses in each request:
// the model it names, and its tool choice, "" (none sent), "auto" or
// "forced", which each agent says in its own SDK's words.
type ModelKnobs struct {
	Knobs
	Model  string
	Choice string
	// Version, when set, is the API version the agent sends in its
	// format's version header instead of its SDK's own.
	Version string
}

// Format is what Prove needs of one wire format: the provider a
// recording forwards the agent's request to (Provider/Model) and a key of
// the kind it takes, the agents' model and another, and what a failed
// replay names when the agent forces a tool call (ForcedWants: the
// request's key for the tool choice and the format's word for forced). A
// format that names its API version in a header (VersionHeader) has the
// Version the agent's SDK sends, which the recording must hold, and, for
// an agent that can send another (ModelKnobs.Version), an OlderVersion,
// which must fail the replay; an empty one is not tried.
type Format struct {
	Provider, Key                        string
	Model, OtherModel                    string
	ForcedWants                          []string
	VersionHeader, Version, OlderVersion string
}

// The formats' parts of Prove, each recorded through a provider of the
// format (the caller imports llm/gemini, llm/anthropic or llm/openai).
var (
	// Gemini is the Gemini API: the model named in the path, function
	// calling mode ANY (toolConfig) the forced tool choice.
	Gemini = Format{Provider: "gemini", Key: "AIza-local-test", Model: "gemini-2.5-flash", OtherModel: "gemini-2.5-pro",
		ForcedWants: []string{"toolConfig", "ANY"}}
	// Messages is Anthropic's Messages API: tool_choice {"type":"any"}
	// the forced tool choice, the API version in anthropic-version (a
	// client's proof sets the Version its SDK sends).
	Messages = Format{Provider: "anthropic", Key: "sk-ant-local-test", Model: "claude-sonnet-4-5", OtherModel: "claude-opus-4-5",
		ForcedWants: []string{"tool_choice", `"any"`}, VersionHeader: "anthropic-version"}
	// ChatCompletions is OpenAI's Chat Completions, recorded through the
	// openai-compatible provider: tool_choice "required" the forced
	// tool choice.
	ChatCompletions = Format{Provider: "openai-compatible", Key: "sk-local-test", Model: "gpt-test", OtherModel: "gpt-test-2",
		ForcedWants: []string{"tool_choice", `"required"`}}
)

// Knobs are the Defaults with the format's model.
func (p Format) Knobs() ModelKnobs { return ModelKnobs{Knobs: Defaults, Model: p.Model} }

// Prove is Client for an agent that a provider of its own format records
// (p.Provider, which the caller registers), the agent's own request
// forwarded to the scripted server: replayed with the server gone,
// failing closed when its system prompt, a tool's description, its model,
// its tool choice or its API version changes, and replaying a changed
// model and tool choice once rebased, the old model failing then.
func Prove(t *testing.T, p Format, agent func(k ModelKnobs) bridge.Agent) {
	path := writeScenario(t)
	live := newLiveServer(t)
	model, err := llm.Open(t.Context(), p.Provider+"/"+p.Model, &llm.OpenOptions{BaseURL: live.URL, APIKey: p.Key})
	if err != nil {
		t.Fatal(err)
	}
	def := p.Knobs()
	recordAndReplay(t, path, live, model, def.Knobs, func(k Knobs) bridge.Agent {
		m := def
		m.Knobs = k
		return agent(m)
	}, def.Model, p.VersionHeader, p.Version)
	changed := def
	changed.Model = p.OtherModel
	failsClosed(t, "model", verify(t, path, agent(changed), false), "notes.yaml:", "model", p.OtherModel)
	changed = def
	changed.Choice = "forced"
	failsClosed(t, "tool choice", verify(t, path, agent(changed), false), append([]string{"notes.yaml:"}, p.ForcedWants...)...)
	if p.OlderVersion != "" {
		changed = def
		changed.Version = p.OlderVersion
		failsClosed(t, "API version", verify(t, path, agent(changed), false), "notes.yaml:", p.VersionHeader, p.OlderVersion)
	}

	// Rebased, the agent's new model and tool choice replay, and the old
	// model fails.
	changed = def
	changed.Model, changed.Choice = p.OtherModel, "auto"
	s := load(t, path)
	m := replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Rebase: true})
	if _, err := bridge.Runner(agent(changed), nil)(t.Context(), s, &harness.RunOptions{Replay: m}); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || !rb.Changed() {
		t.Fatalf("rebase: %v, changed %v", err, rb != nil && rb.Changed())
	}
	if err := bridge.WriteRecording(path, rb.Tape); err != nil {
		t.Fatal(err)
	}
	if v := verify(t, path, agent(changed), false); !v.Passed() {
		t.Errorf("the rebased replay fails:\n%s", v.Failure().Error())
	}
	failsClosed(t, "model, after the rebase", verify(t, path, agent(def), false), "notes.yaml:", p.Model)
}

// writeScenario writes notesScenario to a scenarios folder of its own and
// returns its path.
func writeScenario(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, []byte(notesScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
