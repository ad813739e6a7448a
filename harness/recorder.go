package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"github.com/tapeloop/tapeloop/workspace"
)

// Recorder turns a run of agent.Run that you drive yourself (your own hooks,
// your own prompt builder) into an Outcome, and so a golden with per-turn
// diffs that expectations can check. Run uses one too. Make it
// before the run (it snapshots the workspace), chain its Observer into
// agent.Options.Observer, and hand the run's result to Outcome:
//
//	rec, err := harness.NewRecorder(ws, &harness.RecorderOptions{Name: "refund-flow", Env: env})
//	if err != nil { ... }
//	opts.Observer = rec.Observer(opts.Observer)
//	run, runErr := agent.Run(ctx, model, registry, input, opts)
//	o, err := rec.Outcome(run, runErr)
//	if err != nil { ... }
//	golden, _ := o.Golden(redact.Default()) // or harness.CompareGolden / updateGolden
//
// A Recorder records one run; its Observer is safe for concurrent events.
type Recorder struct {
	name  string
	ws    workspace.FS
	env   *toolkit.Env
	diffs *diffrecorder.Recorder
	// base is the workspace before the run; nil when unknown (outcomeOf).
	base map[string]workspace.Entry

	mu        sync.Mutex
	turnDiffs []string
	delivered [][]AsyncOutcome
	pending   []AsyncOutcome
	// users are the user messages by the turn they precede.
	users map[int]*llm.Message
	// modelRetries are the retried model-call attempts so far.
	modelRetries []ModelRetryOutcome
	// backoffs are the retry waits of each call, by turn and call id.
	backoffs map[callKey][]time.Duration
	err      error
}

// RecorderOptions configures NewRecorder. A nil *RecorderOptions is the zero
// value.
type RecorderOptions struct {
	// Name is the outcome's name (the golden's name:); "" leaves it empty.
	Name string
	// Env is the toolkit.Env the run's tools were built with; the worlds its
	// tools shared (toolkit.Shared) go into the outcome's state. Nil means
	// no state.
	Env *toolkit.Env
	// Base is what ws holds as the run starts, in workspace.Entries'
	// form, when the caller has just read it: NewRecorder takes it (the map
	// is the Recorder's from then on) instead of reading ws again. Nil
	// means NewRecorder reads ws.
	Base map[string]workspace.Entry
}

// NewRecorder snapshots ws, the workspace the run's tools act on, as the
// baseline of the first turn's diff.
func NewRecorder(ws workspace.FS, opts *RecorderOptions) (*Recorder, error) {
	if opts == nil {
		opts = &RecorderOptions{}
	}
	base := opts.Base
	if base == nil {
		var err error
		if base, err = workspace.Entries(ws); err != nil {
			return nil, fmt.Errorf("recording the workspace: %w", err)
		}
	}
	d := diffrecorder.NewFrom(ws, base)
	return &Recorder{name: opts.Name, ws: ws, env: opts.Env, diffs: d, base: base, users: map[int]*llm.Message{}, backoffs: map[callKey][]time.Duration{}}, nil
}

// FirstUser notes that the run's input ends with the user message m that
// starts the conversation, so that the golden shows it on turn 1 like the
// user turns the loop asks for later (agent.Options.NextUser).
func (r *Recorder) FirstUser(m llm.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.users[1] = &m
}

// Observer returns an agent.Observer that records each turn's workspace diff
// and the asynchronous results delivered before each request, then passes
// every event on to next (nil: none).
func (r *Recorder) Observer(next agent.Observer) agent.Observer {
	return func(e agent.Event) {
		r.observe(e)
		if next != nil {
			next(e)
		}
	}
}

func (r *Recorder) observe(e agent.Event) {
	switch e.Kind {
	case agent.EventToolEnd, agent.EventMemoHit:
		if e.Result != nil && len(e.Result.Effects) > 0 {
			r.diffs.Record(e.Result.Effects)
		}
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case agent.EventModelRequest:
		r.delivered = append(r.delivered, r.pending)
		r.pending = nil
	case agent.EventModelRetry:
		r.modelRetries = append(r.modelRetries, ModelRetryOutcome{Turn: len(r.delivered), Attempt: e.Attempt, Kind: e.ErrorKind, Backoff: e.Backoff, Error: e.Error})
	case agent.EventUserMessage:
		r.users[e.Turn+1] = e.User
	case agent.EventRetry:
		k := callKey{e.Turn, e.CallID}
		r.backoffs[k] = append(r.backoffs[k], e.Backoff)
	case agent.EventAsyncResult:
		r.pending = append(r.pending, AsyncOutcome{ID: e.CallID, Name: e.Tool, Result: e.Result.Content})
	case agent.EventTurnEnd:
		d, err := r.diffs.EndTurn()
		if err != nil && r.err == nil {
			r.err = err
		}
		r.turnDiffs = append(r.turnDiffs, d.String())
	}
}

// Outcome returns the normalised outcome of run, which ended with runErr:
// per turn the response, each call and the turn's diff, then the
// termination, the final text, the end state of the workspace and the
// worlds' state. The error is non-nil only when the workspace or a world
// could not be read.
func (r *Recorder) Outcome(run *agent.RunResult, runErr error) (*Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, fmt.Errorf("recording the workspace diff: %w", r.err)
	}
	if run == nil {
		run = &agent.RunResult{}
	}
	o := &Outcome{Name: r.name, Run: run, Termination: run.Termination.Reason, Iterations: run.ModelCalls, Final: run.FinalText(), ModelRetries: r.modelRetries}
	if runErr != nil {
		o.Error = runErr.Error()
		o.Diverged = errors.Is(runErr, replay.ErrDiverged)
	}
	if len(run.Turns) > 0 {
		o.Turns = make([]TurnOutcome, 0, len(run.Turns)+1)
	}
	for i, t := range run.Turns {
		to := TurnOutcome{Index: t.Index, Response: t.Response, User: r.users[t.Index]}
		if i < len(r.delivered) {
			to.Delivered = r.delivered[i]
		}
		if i < len(r.turnDiffs) {
			to.Diff = r.turnDiffs[i]
		}
		if t.Extraction != nil {
			to.Envelope = t.Extraction.Envelope
		}
		if len(t.Calls) > 0 {
			to.Calls = make([]CallOutcome, 0, len(t.Calls))
		}
		for _, c := range t.Calls {
			to.Calls = append(to.Calls, CallOutcome{Record: c, Backoffs: r.backoffs[callKey{t.Index, c.Call.ID}]})
		}
		o.Turns = append(o.Turns, to)
	}
	// A user turn whose model call failed still shows where it happened.
	if u := r.users[len(run.Turns)+1]; u != nil {
		o.Turns = append(o.Turns, TurnOutcome{Index: len(run.Turns) + 1, User: u})
	}
	files, err := workspace.Entries(r.ws)
	if err != nil {
		return nil, fmt.Errorf("reading the end state of the workspace: %w", err)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		old, existed := r.base[p]
		o.Workspace = append(o.Workspace, fileState(p, files[p], existed && old.Equal(files[p])))
	}
	for _, p := range slices.Sorted(maps.Keys(r.base)) {
		if _, ok := files[p]; !ok {
			o.Deleted = append(o.Deleted, p)
		}
	}
	if o.State, err = worldState(r.env.Worlds()); err != nil {
		return nil, err
	}
	return o, nil
}

// callKey names a call of a run: call ids may be reused across turns.
type callKey struct {
	turn int
	id   string
}

// outcomeOf turns a finished run and the workspace it acted on into an
// Outcome named name, for a run recorded without a Recorder: everything but
// the per-turn diffs, user turns and delivered asynchronous results, which only a
// Recorder watching the run can see. env (nil: none) supplies the worlds.
// state.
func outcomeOf(name string, run *agent.RunResult, runErr error, ws workspace.FS, env *toolkit.Env) (*Outcome, error) {
	r := &Recorder{name: name, ws: ws, env: env, users: map[int]*llm.Message{}}
	return r.Outcome(run, runErr)
}
