package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"github.com/tapeloop/tapeloop/workspace"
)

// RunOptions configures Run. A nil *RunOptions is the zero value.
type RunOptions struct {
	// Perturb, when non-zero, seeds random scheduling perturbations (yields
	// before and inside each tool call), for checking that the outcome does
	// not depend on scheduling. Zero means none.
	Perturb uint64
	// Observer also receives the loop's events; nil means none.
	Observer agent.Observer
	// Model, when set, answers the run's model calls instead of the
	// scenario's tape: a live run (evaluation, recording). Nil replays the
	// tape, failing closed when a request diverges from it.
	Model llm.Model
	// ModelName is the "PROVIDER/MODEL" Model was opened as. Where a
	// scenario names another model as its own (setup.loop.request.model),
	// its requests still pin the scenario's and the recording says that
	// ModelName answered (llm.WithAnsweredBy, tape.Offered.AnsweredBy).
	// Empty means unknown: nothing is said.
	ModelName string
	// Clock, when set, is the loop's clock (retry backoff, timeouts); a live
	// run passes clock.Real{}. Nil means a virtual clock starting at
	// clock.Epoch, so a replay never sleeps.
	Clock clock.Clock
	// Replay, when set, replays instead of a model built from the
	// scenario's tape (ReplayTape): one in rebase mode, say. It serves the
	// user turns too, and a run that leaves entries unused fails. Unused
	// when Model is set.
	Replay *replay.Model
	// Redactor is the replay's redaction policy (the command's, with its
	// --redact-env and --redact): the tape's [REDACTED] matches a value it
	// knows, whatever characters the value holds
	// (replay.ModelOptions.Redactor). Unused when Model or Replay is set.
	// Nil means none: [REDACTED] matches a secret's token only
	// (redact.Matches).
	Redactor *redact.Redactor
	// Tools are the tool factories a scenario may name in setup.tools beside
	// the built-in fixtures, exactly as it names a fixture: each is called
	// once per run with the run's toolkit.Env (workspace, seed, clock,
	// iteration) and the entry's with: node. Build them with
	// toolkit.NewFactory; tools sharing state beyond files share it through
	// toolkit.Shared, and a shared toolkit.World's snapshot goes into the
	// golden under state:. A factory named like a fixture, or twice, is an
	// error. Nil means the fixtures only.
	Tools []*toolkit.Factory
	// Checks are the user's checks expect.check may name (NewChecker):
	// Validate configures each item against them; a run does not call
	// them (VerifyOptions.Checks and Failures do). Nil means none.
	Checks []*Checker
	// User writes the user's messages of a live run (Model set) of a
	// scenario with setup.user, after each final answer (eval.NewUser
	// builds tapeloop's); the tape's user turns are then not spoken. A
	// replay never calls it: the tape's user turns are the recording of
	// what the user model wrote. Nil makes a live run of such a scenario
	// fail with ErrNoUser.
	User UserFunc
	// ConnectMCP connects a live run (Model set) to each server of the
	// scenario's setup.mcp; a replay connects to none. It connects reg to
	// one server, registering the server's tools (each replacing a setup
	// tool of the same name, such as the recorded stand-in a capture left
	// for replays), and returns a function that closes the connection and
	// removes them; dir is the scenario's folder, where a server command
	// runs. It is a seam so that the harness links no MCP SDK:
	// eval.ConnectMCP is one, over package mcptools. Nil makes a live run
	// of a scenario with setup.mcp fail with ErrNoMCP.
	ConnectMCP func(ctx context.Context, reg *tools.Registry, server scenario.MCPSetup, dir string) (close func(), err error)
	// Agents run the bridged scenarios (setup.agent) whose setup.agent.go
	// names them, as Tools are the factories setup.tools names:
	// bridge.Runner makes one of your agent. Run hands such a scenario to
	// its runner with these options (Model, Replay, Redactor, User and
	// Observer apply; the loop's options do not). Nil means none: running a
	// scenario that names one is an error wrapping scenario.ErrBridged.
	Agents map[string]Runner
	// Commands runs the bridged scenarios whose agent is a program
	// (setup.agent.command): bridge.Runner(nil, nil) starts it. Nil makes
	// running one an error wrapping scenario.ErrBridged.
	Commands Runner
	// AllowHosts lists what a replay (Model nil) may reach through
	// http.DefaultTransport: a host ("localhost", any port), a host and
	// port ("127.0.0.1:8931"), or "*" for everything. Any other request
	// sent through it (http.Get, http.DefaultClient, a client whose
	// transport was cloned from it) during the replay is refused, the
	// caller gets an error wrapping ErrRefused, and the outcome lists it
	// (Outcome.Refused): the scenario fails naming the address. The
	// scenario's setup.allow_hosts allows more. Nil allows nothing; a
	// live run is never refused.
	AllowHosts []string
}

// ErrRefused is wrapped by the error a request sent through
// http.DefaultTransport during a replay gets when the replay does not
// allow its address (RunOptions.AllowHosts).
var ErrRefused = netguard.ErrRefused

// Runner runs one scenario and returns its outcome: the seam behind Run,
// Verify and Test, as an http.RoundTripper is behind an http.Client. Run
// is the runner of every scenario; a bridged scenario's runner
// (RunOptions.Agents, RunOptions.Commands, made by bridge.Runner) drives
// your own agent against the tape. The error is non-nil only when the
// scenario could not be run at all; a run that ends badly is an outcome.
type Runner func(ctx context.Context, s *scenario.Scenario, opts *RunOptions) (*Outcome, error)

// Run runs the scenario s and returns the normalised outcome. A native
// scenario replays through the full registry and loop: Run builds the
// workspace and the tools (fixtures, and opts.Tools), replays the tape with
// a virtual clock and records each turn's workspace diff. A bridged one
// (setup.agent) goes to its runner, opts.Agents[setup.agent.go] or
// opts.Commands: this is the one place where the two kinds part. The error
// is non-nil only when the scenario could not be run at all (its workspace
// or a tool could not be built, no runner for its agent); a run that ends
// badly is an outcome.
//
// A scenario with expect.cache has its model requests gathered as they are
// sent, and Outcome.Cache reads their prefix stability (package cost).
func Run(ctx context.Context, s *scenario.Scenario, opts *RunOptions) (*Outcome, error) {
	if opts == nil {
		opts = &RunOptions{}
	}
	if opts.Model != nil {
		return gathered(netguard.Live(ctx), s, opts)
	}
	ctx, guard := netguard.Begin(ctx, s.Name, append(slices.Clip(opts.AllowHosts), s.Setup.AllowHosts...))
	o, err := gathered(ctx, s, opts)
	if refused := guard.End(); o != nil {
		o.Refused = append(o.Refused, refused...)
	}
	return o, err
}

// gathered is Run without the guard of http.DefaultTransport: it gathers
// the model requests of a scenario with expect.cache.
func gathered(ctx context.Context, s *scenario.Scenario, opts *RunOptions) (*Outcome, error) {
	if s.Expect == nil || s.Expect.Cache == nil {
		return runScenario(ctx, s, opts)
	}
	var col cost.Collector
	ro := *opts
	ro.Observer = col.Observer(opts.Observer)
	o, err := runScenario(ctx, s, &ro)
	if o != nil {
		o.Cache = cacheOutcome(s.Expect.Cache, col.Calls())
	}
	return o, err
}

// runScenario is Run without the guard and without gathering requests
// for expect.cache.
func runScenario(ctx context.Context, s *scenario.Scenario, opts *RunOptions) (*Outcome, error) {
	if s.Setup.Agent != nil {
		run, err := opts.agent(s)
		if err != nil {
			return nil, err
		}
		return run(ctx, s, opts)
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.NewVirtual(clock.Epoch)
	}
	// iteration is the loop's current iteration as fixtures see it: 1 until
	// the first turn ends, n during turn n and while its request is built.
	var iteration atomic.Int64
	iteration.Store(1)
	env := &toolkit.Env{Seed: s.Setup.Seed, Clock: clk, Iteration: func() int { return int(iteration.Load()) }}
	ws, reg, err := setUp(s, env, opts)
	if err != nil {
		return nil, err
	}
	rec, err := NewRecorder(ws, &RecorderOptions{Name: s.Name, Env: env})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	// sim is the user model of a live run of a scenario with setup.user;
	// nil when the tape's user turns are the user.
	var sim *SimulatedUser
	observer := rec.Observer(func(e agent.Event) {
		if e.Kind == agent.EventTurnEnd {
			iteration.Add(1)
		}
		if sim != nil {
			sim.Observe(e)
		}
		if opts.Observer != nil {
			opts.Observer(e)
		}
	})
	loopOpts := loopOptions(s, clk, observer)
	tape := opts.Replay
	if tape == nil {
		// The loop changes no response it is served, so the tape's are
		// served as they are, not copied.
		tape = replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Shared: true, Redactor: opts.Redactor})
	}
	var model llm.Model = tape
	nextUser := tape.NextUser
	if opts.Model != nil {
		model = opts.Model
		nextUser = userScript(s)
		if u := s.Setup.User; u != nil {
			if opts.User == nil {
				return nil, s.ErrorAt(u.Line, "setup.user", ErrNoUser, "%v", ErrNoUser)
			}
			// The user model is the user: the tape's user turns (an
			// earlier recording's) are not spoken.
			sim = NewSimulatedUser(opts.User, s)
			nextUser = func() (llm.Message, bool) { return llm.Message{}, false }
		}
	}
	// A tape that starts with a user turn starts the conversation with it.
	input := slices.Clone(s.Input)
	if startsWithUser(s) {
		if m, ok := nextUser(); ok {
			input = append(input, m)
			rec.FirstUser(m)
		}
	}
	loopOpts.NextUser = func(ctx context.Context) (llm.Message, bool) {
		if sim != nil {
			return sim.Next(ctx)
		}
		return nextUser()
	}
	if opts.Model != nil && len(s.Setup.MCP) > 0 {
		closeMCP, err := connectMCP(ctx, s, reg, opts.ConnectMCP)
		if err != nil {
			return nil, err
		}
		defer closeMCP()
	}
	if params := s.Setup.Loop.Params(); params != nil {
		rm := &requestModel{next: model, opts: s.Setup.Loop.Request, params: params}
		if own := s.Setup.Loop.Model; opts.Model != nil && own != "" && opts.ModelName != "" && opts.ModelName != own {
			rm.answeredBy = opts.ModelName
		}
		model = rm
	}
	run, runErr := agent.Run(ctx, model, reg, input, loopOpts)
	o, err := rec.Outcome(run, runErr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	o.Places = []Place{ScenarioPlace(s.Path)}
	if sim != nil {
		sim.End(o)
	}
	o.Unused = append(o.Unused, leftUnused(s, o, tape, nextUser, opts.Model != nil, reg)...)
	return o, nil
}

// leftUnused says what of the scenario the finished run o left unused, each
// naming the file: in a replay, tape entries never served; in a live run
// (live), user turns never spoken; and recordings of setup tools never
// used. A replay that diverged reports only the divergence.
func leftUnused(s *scenario.Scenario, o *Outcome, tape *replay.Model, nextUser func() (llm.Message, bool), live bool, reg *tools.Registry) []*fileerr.Error {
	var out []*fileerr.Error
	if !live && !o.Diverged {
		if err := tape.Unused(); err != nil {
			out = append(out, &fileerr.Error{File: s.Path, Problem: err.Error(), Kind: err})
		}
	} else if live {
		if _, ok := nextUser(); ok {
			out = append(out, &fileerr.Error{File: s.Path, Problem: fmt.Sprintf("the run ended (%s) before every user turn of the tape was spoken", o.Termination)})
		}
	}
	if !o.Diverged {
		out = append(out, unusedRecordings(s, reg)...)
	}
	return out
}

// loopOptions are the loop's options for a run of s: setup.loop's limits,
// retry policies, timeouts, memo and text-call extraction, on clk, with
// observer watching. A run always awaits its asynchronous calls.
func loopOptions(s *scenario.Scenario, clk clock.Clock, observer agent.Observer) *agent.Options {
	l := &s.Setup.Loop
	o := &agent.Options{
		MaxIterations: l.MaxIterations,
		Execution:     l.Execution,
		Clock:         clk,
		Observer:      observer,
		Memoize:       l.Memoize,
		ToolTimeout:   l.ToolTimeout,
		ModelTimeout:  l.ModelTimeout,
		AwaitAsync:    true,
		RunInfo:       tools.RunInfo{Channel: "replay", ChatID: s.Name, RunID: s.Name},
	}
	if l.RetryAttempts > 1 {
		o.Retry = &agent.RetryPolicy{Attempts: l.RetryAttempts, Backoff: l.RetryBackoff}
	}
	if l.ModelRetryAttempts > 1 {
		o.ModelRetry = &agent.ModelRetryPolicy{Attempts: l.ModelRetryAttempts, Backoff: l.ModelRetryBackoff, MaxBackoff: l.ModelRetryMaxBackoff}
	}
	if l.TextCalls {
		o.TextCalls = &textcalls.Extractor{Options: l.TextCallOptions}
	}
	return o
}

// unusedRecordings asks every setup tool that keeps recordings
// (toolkit.UnusedReporter, such as an in_order recorded stand-in) whether
// the run left some unused, naming the tool's setup line.
func unusedRecordings(s *scenario.Scenario, reg *tools.Registry) []*fileerr.Error {
	var out []*fileerr.Error
	for _, ts := range s.Setup.Tools {
		t, ok := reg.Lookup(ts.Name)
		if p, wrapped := t.(*perturbed); wrapped {
			t = p.Tool
		}
		if u, reports := t.(toolkit.UnusedReporter); ok && reports {
			if err := u.Unused(); err != nil {
				out = append(out, &fileerr.Error{File: s.Path, Line: ts.Line, Key: "setup.tools[" + ts.Name + "]", Problem: err.Error(), Kind: err})
			}
		}
	}
	return out
}

// startsWithUser reports whether the tape's first entry is a user turn.
func startsWithUser(s *scenario.Scenario) bool { return len(s.Tape) > 0 && s.Tape[0].User != nil }

// userScript serves the user turns of s's tape in order, then false, for a
// live run: the live model answers, and the tape's user turns still drive
// the conversation (bridge uses it for bridged agents too).
func userScript(s *scenario.Scenario) func() (llm.Message, bool) {
	turns := s.UserTurns()
	return func() (llm.Message, bool) {
		if len(turns) == 0 {
			return llm.Message{}, false
		}
		m := turns[0]
		turns = turns[1:]
		return m, true
	}
}

// Workspace makes the scenario's workspace in memory, as a run starts from
// it: the setup.workspace.from tree, then the files. Errors name the file,
// line and key.
func Workspace(s *scenario.Scenario) (workspace.FS, error) {
	ws := workspace.NewMemory()
	if w := &s.Setup.Workspace; w.From != "" {
		if err := copySeedTree(ws, w, maxSeedTreeSize); err != nil {
			return nil, s.ErrorAt(w.FromLine, "setup.workspace.from", err, "%v", err)
		}
	}
	for _, f := range s.Setup.Workspace.Files {
		if err := ws.WriteFile(f.Path, []byte(f.Content)); err != nil {
			return nil, s.ErrorAt(f.Line, "setup.workspace.files."+f.Path, err, "%v", err)
		}
	}
	return ws, nil
}

// buildTool builds one tool from a fixture or one of the user's factories;
// errors carry the file and line.
func buildTool(s *scenario.Scenario, ts scenario.ToolSetup, env *toolkit.Env, user []*toolkit.Factory) (tools.Tool, error) {
	f, ok := lookupFactory(ts.Fixture, user)
	if !ok {
		return nil, s.ErrorAt(ts.Line, "setup.tools["+ts.Name+"].fixture", nil, "unknown tool %q (known: %s)", ts.Fixture, knownTools(user))
	}
	t, err := f.New(ts.Name, env, ts.With)
	if err != nil {
		if cerr := withError(s, err, "setup.tools["+ts.Name+"].with", ts.Line); cerr != nil {
			return nil, cerr
		}
		return nil, s.ErrorAt(ts.Line, "setup.tools["+ts.Name+"]", err, "%v", err)
	}
	return t, nil
}

// perturb wraps a tool so that each call yields the processor a pseudo-random
// number of times before running, shaking up the order in which a batch's
// calls finish.
func perturb(t tools.Tool, seed uint64) tools.Tool {
	return &perturbed{Tool: t, seed: seed}
}

type perturbed struct {
	tools.Tool
	seed  uint64
	calls atomic.Uint64
}

func (p *perturbed) Execute(ctx context.Context, call tools.Call) (*tools.Result, error) {
	n := rand.New(rand.NewPCG(p.seed, p.calls.Add(1))).IntN(64)
	for range n {
		runtime.Gosched()
	}
	return p.Tool.Execute(ctx, call)
}

// Available forwards to the wrapped tool.
func (p *perturbed) Available() (bool, string) {
	if a, ok := p.Tool.(tools.Availability); ok {
		return a.Available()
	}
	return true, ""
}

// PrepareArguments forwards to the wrapped tool.
func (p *perturbed) PrepareArguments(raw string) string {
	if a, ok := p.Tool.(tools.ArgumentPreparer); ok {
		return a.PrepareArguments(raw)
	}
	return raw
}

// Validate builds the scenario s's workspace and tools without running it, so
// that a bad tool configuration or seed tree is found by a lint, and
// configures each expect.check item. opts.Tools are the user's tool
// factories setup.tools may name, opts.Checks the checks expect.check may
// name; the other fields are not used. A nil opts means the fixtures only.
func Validate(s *scenario.Scenario, opts *RunOptions) error {
	if opts == nil {
		opts = &RunOptions{}
	}
	if _, _, err := setUp(s, &toolkit.Env{Seed: s.Setup.Seed, Clock: clock.NewVirtual(clock.Epoch)}, opts); err != nil {
		return err
	}
	return validateChecks(s, opts.Checks)
}

// setUp builds what a run starts from: the workspace (the from tree, then the
// files) and a registry holding every setup tool built from its fixture or
// the user's factory (opts.Tools) with env, with the repair cascade unless
// setup.loop.repair is false. A non-zero opts.Perturb wraps each tool to
// perturb scheduling. It sets env.Workspace.
func setUp(s *scenario.Scenario, env *toolkit.Env, opts *RunOptions) (workspace.FS, *tools.Registry, error) {
	if err := checkFactories(opts.Tools); err != nil {
		return nil, nil, err
	}
	ws, err := Workspace(s)
	if err != nil {
		return nil, nil, err
	}
	env.Workspace = ws
	var regOpts tools.RegistryOptions
	if s.Setup.Loop.Repair {
		regOpts.Repairer = repair.Cascade{}
	}
	reg := tools.NewRegistry(&regOpts)
	var rng *rand.Rand
	if opts.Perturb != 0 {
		rng = rand.New(rand.NewPCG(opts.Perturb, 0x7a9e))
	}
	for _, ts := range s.Setup.Tools {
		t, err := buildTool(s, ts, env, opts.Tools)
		if err != nil {
			return nil, nil, err
		}
		if rng != nil {
			t = perturb(t, rng.Uint64())
		}
		provider := ""
		if ts.Fixture == "recorded" {
			provider = fixtures.StandInProvider
		}
		if err := reg.RegisterProvider(provider, t); err != nil {
			return nil, nil, s.ErrorAt(ts.Line, "setup.tools["+ts.Name+"]", err, "%v", err)
		}
	}
	return ws, reg, nil
}
