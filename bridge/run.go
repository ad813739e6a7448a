package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"github.com/tapeloop/tapeloop/workspace"
)

// Agent runs your agent on one scenario: it points its model client at r
// (HTTPClient and a base URL), starts from r.Input in the directory r.Dir,
// reports its final answer with r.Final (and any end state with r.State),
// in a conversation goes on with r.NextUser's message after each answer,
// and returns nil, or the error it ended with.
type Agent func(ctx context.Context, r *Run) error

// Run is what an Agent gets: where its model is, what to start from and
// where to work. Its methods are safe for concurrent use.
type Run struct {
	// Scenario is the scenario being run.
	Scenario *scenario.Scenario
	// HTTPClient answers the agent's model calls in process, in either wire
	// format, from the tape (or, recording, from a live model).
	HTTPClient *http.Client
	// Handler is the same server as an http.Handler, to serve on a
	// listener for an agent that must dial one (Serve does).
	Handler http.Handler
	// OpenAIBaseURL, AnthropicBaseURL and GeminiBaseURL are the roots to
	// give the clients (with HTTPClient): OpenAIBaseURL for Chat
	// Completions and the Responses API alike, GeminiBaseURL for the Gemini
	// API and Vertex AI alike. APIKey is a key for clients that insist on
	// one.
	OpenAIBaseURL, AnthropicBaseURL, GeminiBaseURL, APIKey string
	// BedrockBaseURL is the endpoint to give a Bedrock Runtime client
	// (BaseEndpoint, with HTTPClient); it appends /model/M/converse.
	BedrockBaseURL string
	// Input is the scenario's input: the messages the agent starts from
	// (system prompt, user message).
	Input []llm.Message
	// Dir is the workspace: a directory seeded from setup.workspace, new
	// each run. Its files at the end are the golden's workspace, and its
	// changes between model calls are each turn's diff. The model and the
	// tape see its path as WorkPlaceholder: the bridge rewrites it in each
	// request, and the placeholder in each answer as Dir.
	Dir string

	mu      sync.Mutex
	served  []func() // Serve's servers, closed when the run ends
	final   *string
	state   map[string]any
	traffic *traffic
	users   *userSide
	// sandbox is the command's sandbox's notes (Outcome.Sandbox).
	sandbox []string
	// conversation is set when the user may speak after an answer.
	conversation bool
	// seen is where a command agent saw the workspace (its sandbox's
	// folder); "" when it is Dir.
	seen string
}

// Final reports an answer the agent shows the user; the last is its final
// answer: the golden's final and what expect.final checks. Unreported, the
// final text is the model's last answer. Every answer reported is checked:
// each is an assistant message expect.said sees, and one that is not the
// model's answer of its turn, or a second one for a turn, is in the golden
// (the turn's answered:).
func (r *Run) Final(text string) {
	r.mu.Lock()
	r.final = &text
	r.mu.Unlock()
	if r.traffic != nil {
		r.traffic.answer(text)
	}
}

// State reports one part of the end state of the agent's world, under key:
// the golden's state.KEY and what expect.state checks. v must encode as
// JSON.
func (r *Run) State(key string, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		r.state = map[string]any{}
	}
	r.state[key] = v
}

// Serve serves Handler on a new listener on 127.0.0.1 until the run
// ends, for an agent that must dial one, and returns its root,
// "http://127.0.0.1:PORT" (append /v1 for OpenAIBaseURL's place). During
// a replay, requests to it through http.DefaultTransport pass the guard
// that refuses every other (harness.RunOptions.AllowHosts).
func (r *Run) Serve() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("bridge: serving the run on a loopback port: %w", err)
	}
	srv := &http.Server{Handler: r.Handler, ReadHeaderTimeout: commandReadHeaderTimeout}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	allowed := netguard.Serve(ln.Addr().String())
	r.mu.Lock()
	r.served = append(r.served, func() { _ = srv.Close(); <-done; allowed() })
	r.mu.Unlock()
	return "http://" + ln.Addr().String(), nil
}

// closeServed closes the servers Serve started.
func (r *Run) closeServed() {
	r.mu.Lock()
	served := r.served
	r.served = nil
	r.mu.Unlock()
	for _, c := range served {
		c()
	}
}

// runOptions configures runScenario (see Runner for what each field does).
type runOptions struct {
	// Model answers the agent's model calls instead of the tape (a live
	// run); nil replays the tape, failing closed.
	Model llm.Model
	// Replay, when set and Model is nil, replays instead of a model built
	// from the scenario's tape.
	Replay *replay.Model
	// Redactor is the replay's redaction policy when Model and Replay are
	// nil (replay.ModelOptions.Redactor); nil means none.
	Redactor *redact.Redactor
	// Wire configures how answers are encoded; nil means wire's defaults.
	Wire *wire.Options
	// User writes the user's messages instead of the tape's user turns;
	// nil means the tape's user turns.
	User harness.UserFunc
	// Observer sees the events the bridge makes of the traffic; nil means
	// none.
	Observer agent.Observer
}

// ErrNotBridged is wrapped by the error of a Runner's run of a scenario
// without setup.agent.
var ErrNotBridged = errors.New("not a bridged scenario (it has no setup.agent)")

// ErrRefused is wrapped by a run's error when the bridge refused one of the
// agent's requests: a path no wire format serves (the message names the
// method, the path and the formats served), or a body that does not decode.
var ErrRefused = errors.New("the bridge refused a request")

// runScenario runs agent on the bridged scenario s and returns the
// outcome, built from the traffic and the workspace as a native run's is
// (see Runner).
func runScenario(ctx context.Context, s *scenario.Scenario, agent Agent, opts *runOptions) (*harness.Outcome, error) {
	if s.Setup.Agent == nil {
		return nil, fmt.Errorf("%s: %w", s.Path, ErrNotBridged)
	}
	dir, err := os.MkdirTemp("", "tapeloop-bridge-")
	if err != nil {
		return nil, fmt.Errorf("%s: the workspace directory: %w", s.Path, err)
	}
	defer os.RemoveAll(dir)
	ws, err := seed(s, dir)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	env := &toolkit.Env{Seed: s.Setup.Seed}
	var tape *replay.Model
	model := opts.Model
	if model == nil {
		tape = opts.Replay
		if tape == nil {
			tape = replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Redactor: opts.Redactor})
		}
		model = tape
	}
	// The traffic's first scan reads the files too, as the recorder's
	// baseline: one listing of the workspace for both.
	base := map[string]workspace.Entry{}
	tr, err := newTraffic(model, ws, nil, base)
	if err != nil {
		return nil, fmt.Errorf("%s: recording the workspace: %w", s.Path, err)
	}
	rec, err := harness.NewRecorder(ws, &harness.RecorderOptions{Name: s.Name, Env: env, Base: base})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	tr.observe = rec.Observer(opts.Observer)
	tr.setWorkspace(dir)
	h := Handler(tr, opts.Wire)
	r := &Run{
		Scenario: s, HTTPClient: Client(h), Handler: h,
		OpenAIBaseURL: OpenAIBaseURL, AnthropicBaseURL: AnthropicBaseURL, GeminiBaseURL: GeminiBaseURL, BedrockBaseURL: BedrockBaseURL, APIKey: APIKey,
		Input: cloneMessages(s.Input), Dir: dir,
		traffic: tr, conversation: conversation(s, opts),
	}
	defer r.closeServed()
	if r.users, err = userSource(s, tape, opts); err != nil {
		return nil, err
	}
	// A tape that starts with a user turn starts the conversation with it,
	// as a native run's does: it ends the input.
	if len(s.Tape) > 0 && s.Tape[0].User != nil && r.users.sim == nil {
		if m, ok := r.users.next(ctx); ok {
			r.Input = append(r.Input, m)
			rec.FirstUser(m)
		}
	}
	agentErr := agent(ctx, r)
	r.closeServed()
	run, runErr, err := tr.finish(r, agentErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	for k, v := range r.state {
		toolkit.Shared(env, k, func() reported { return reported{v} })
	}
	o, err := rec.Outcome(run, runErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	o.Diverged = tr.diverged != nil
	r.mu.Lock()
	o.Sandbox = r.sandbox
	r.mu.Unlock()
	// The golden writes the workspace as $WORK wherever the agent's texts
	// name it: its folder, the folder its sandbox showed, and the
	// placeholder (the user's turns hold it).
	o.Places = []harness.Place{{Path: dir, Name: harness.PlaceWork}, {Path: r.seen, Name: harness.PlaceWork}, {Path: WorkPlaceholder, Name: harness.PlaceWork}, harness.ScenarioPlace(s.Path)}
	tr.showAnswers(o)
	o.Unused = append(o.Unused, r.users.unused(s, o, tape)...)
	return o, nil
}

// reported is a state the agent reported, as a toolkit.World.
type reported struct{ v any }

// State returns the reported value.
func (r reported) State() any { return r.v }

func cloneMessages(ms []llm.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}

// seed makes dir, a directory runScenario has just made, the scenario's
// workspace: setup.workspace written into it.
func seed(s *scenario.Scenario, dir string) (*workspace.Disk, error) {
	mem, err := harness.Workspace(s)
	if err != nil {
		return nil, err
	}
	files, err := workspace.Snapshot(mem)
	if err != nil {
		return nil, err
	}
	ws, err := workspace.NewDisk(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: the workspace directory: %w", s.Path, err)
	}
	for _, p := range sortedKeys(files) {
		if err := ws.WriteFile(p, files[p]); err != nil {
			ws.Close()
			return nil, fmt.Errorf("%s: seeding the workspace: %w", s.Path, err)
		}
	}
	return ws, nil
}
