package eval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/report/fromharness"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// Trial is one finished trial, as Options.Trial sees it.
type Trial struct {
	// Scenario is the trial's scenario: the original with setup.seed set to
	// the trial's seed.
	Scenario *scenario.Scenario
	// Model is the model's name.
	Model string
	// Report is the trial's entry of the report; the hook may set Saved.
	Report *report.EvalTrial
	// Tape is what the model was offered (its Offered block) and answered,
	// call by call, and the judges' verdicts on its expect.judge items,
	// secrets redacted: a tape that replays this trial.
	Tape *tape.Tape
}

// TrialSeed is the fixtures' seed for trial number trial (from 1) of a
// scenario whose setup.seed is seed: a SplitMix64 mix of the two, kept in
// the range a scenario file's seed may have, so that a saved trial replays
// with the same seed.
func TrialSeed(seed int64, trial int) int64 {
	x := uint64(seed) + uint64(trial)*0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x >> 2) // [0, 2^62)
}

// callStat is one model call as the trial measured it.
type callStat struct {
	latency time.Duration
	tokens  report.Tokens
	err     error
	// request is what the call offered and its last message (the tape's
	// entries record only what changed).
	request *tape.RequestSummary
}

// meter is the model a trial's loop talks to: it waits at the provider's
// gate, calls the live model, retries what may pass, and measures each call.
type meter struct {
	model   llm.Model
	gate    *gate
	clock   clock.Clock
	retries int

	mu    sync.Mutex
	calls []callStat
}

func (m *meter) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var tokens report.Tokens
	for attempt := 1; ; attempt++ {
		if err := m.gate.wait(ctx); err != nil {
			return nil, err
		}
		start := m.clock.Now()
		resp, err := m.model.Generate(ctx, req)
		latency := m.clock.Now().Sub(start)
		var t report.Tokens
		if resp != nil {
			t = tokensOf(resp.Usage)
		}
		tokens = tokens.Add(t)
		wait := m.gate.done(t.Input+t.Output, err, attempt)
		if ctx.Err() != nil {
			return resp, err // not recorded: the run was stopped
		}
		if err == nil || !retryable(err) || attempt > m.retries || outOfRetries(err, attempt) {
			m.mu.Lock()
			m.calls = append(m.calls, callStat{latency: latency, tokens: tokens, err: err, request: tape.Summarize(req)})
			m.mu.Unlock()
			return resp, err
		}
		if err := m.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func tokensOf(u llm.Usage) report.Tokens {
	return report.Tokens{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedInputTokens}
}

// trialSpec is one trial to run.
type trialSpec struct {
	scenario *scenario.Scenario
	model    string
	number   int
}

// runTrial runs one trial (again, up to retryErrors times, while it is an
// error trial). done is false when ctx ended it before it finished.
func (r *runner) runTrial(ctx context.Context, spec trialSpec) (t *Trial, done bool) {
	sc := *spec.scenario
	sc.Setup.Seed = TrialSeed(spec.scenario.Setup.Seed, spec.number)
	for attempt := 1; ; attempt++ {
		start := r.clock.Now()
		t = r.attemptTrial(ctx, &sc, spec)
		report.RedactStrings(t.Report, r.redactor.Quiet)
		t.Report.Attempts = attempt
		t.Report.DurationMS = ms(r.clock.Now().Sub(start))
		if ctx.Err() != nil {
			return t, false
		}
		if t.Report.Status != report.StatusError || attempt > r.opts.RetryErrors {
			return t, true
		}
	}
}

func (r *runner) attemptTrial(ctx context.Context, sc *scenario.Scenario, spec trialSpec) *Trial {
	m := &meter{model: r.models[spec.model], gate: r.gates[providerOf(spec.model)], clock: r.clock, retries: r.opts.modelRetries()}
	rec := replay.NewRecorder(m, &replay.RecorderOptions{Redactor: r.redactor})
	et := &report.EvalTrial{Trial: spec.number, Seed: sc.Setup.Seed, Failures: []string{}}
	t := &Trial{Scenario: sc, Model: spec.model, Report: et}
	if len(sc.Faults) > 0 {
		faulty, err := r.opts.openFaulty(ctx, spec.model, sc)
		if err != nil {
			et.Status = report.StatusError
			et.Error = err.Error()
			return t
		}
		m.model = faulty
	}
	run := r.opts.Run
	if run == nil {
		run = harness.Run
	}
	um, user := r.userMeter(sc)
	o, err := run(ctx, sc, &harness.RunOptions{Model: rec, ModelName: spec.model, Clock: r.clock, Tools: r.opts.Tools, ConnectMCP: ConnectMCP, User: user})
	tp := rec.Tape()
	recorded := tp.Entries
	t.Tape = &tape.Tape{Name: sc.Name, Offered: tp.Offered, Entries: recorded}
	if o := tp.Offered; o != nil && o.AnsweredBy != "" {
		// The bridged agent named another model, which the vendor got
		// replaced by the one evaluated (wire.Forward); or the native
		// scenario did, and the model evaluated answered in its place.
		var asked string
		if json.Unmarshal(o.Params["model"], &asked) == nil {
			if sc.Setup.Agent == nil {
				et.ScenarioModel = asked
			} else {
				et.AgentModel = asked
			}
		}
	}
	if o != nil {
		t.Tape.Entries = o.WithUserTurns(recorded, r.redactor)
	}
	m.mu.Lock()
	calls := m.calls
	m.mu.Unlock()
	et.Tape = tapeEntries(recorded, calls)
	for _, c := range calls {
		et.Tokens = et.Tokens.Add(c.tokens)
	}
	if p, ok := r.opts.Prices[spec.model]; ok {
		c := p.Cost(et.Tokens)
		et.Cost = &c
	}
	if et.User = r.userSpent(sc, um, userTurns(o)); et.User != nil && et.User.Cost != nil {
		c := *et.User.Cost
		if et.Cost != nil {
			c += *et.Cost
		}
		et.Cost = &c
	}
	if err != nil {
		et.Status = report.StatusError
		et.Error = err.Error()
		return t
	}
	et.Termination = string(o.Termination)
	et.Iterations = o.Iterations
	et.Transcript = fromharness.Transcript(o)
	et.EndState = endState(sc, o)
	et.Error = o.Error
	if o.Termination == agent.ReasonModelError {
		et.Status = report.StatusError
		return t
	}
	verdicts, err := r.judge(ctx, sc, o, et)
	if err != nil {
		et.Status = report.StatusError
		et.Error = err.Error()
		return t
	}
	t.Tape.Verdicts = verdicts
	for _, f := range harness.Failures(sc, o, r.opts.Checks...) {
		key := f.Key
		if x := expectation(nil); errors.As(f, &x) {
			key = x.Expectation()
		}
		et.Failures = append(et.Failures, f.Error())
		et.FailureKeys = append(et.FailureKeys, key)
	}
	for _, u := range o.Unused {
		// The run ended before the tape's user turns were all spoken, or
		// left a recorded stand-in's recordings unused.
		key := "unused"
		if strings.Contains(u.Problem, "before every user turn") {
			key = "user_turns"
		}
		et.Failures = append(et.Failures, u.Error())
		et.FailureKeys = append(et.FailureKeys, key)
	}
	et.Passed = len(et.Failures) == 0
	et.Status = report.StatusFail
	if et.Passed {
		et.Status = report.StatusPass
	}
	return t
}

// expectation is how a failure of harness.Failures names its expectation
// as reports count it ("files[notes.txt]").
type expectation interface{ Expectation() string }

// tapeEntries pairs the recorded tape with the measured calls (both have
// one entry per model call the loop made): the call gives the tools it
// offered, its last message and its latency.
func tapeEntries(entries []tape.Entry, calls []callStat) []report.EvalTapeEntry {
	out := make([]report.EvalTapeEntry, len(entries))
	for i, e := range entries {
		te := report.EvalTapeEntry{Error: e.Error, Tools: []string{}}
		if i < len(calls) {
			te.LatencyMS = ms(calls[i].latency)
			if r := calls[i].request; r != nil {
				te.Tools, te.LastMessage = r.Tools, r.LastMessage
			}
		}
		if e.Response != nil {
			te.Response = &report.EvalResponse{Message: e.Response.Message, FinishReason: string(e.Response.FinishReason), Tokens: tokensOf(e.Response.Usage)}
		}
		out[i] = te
	}
	return out
}

func providerOf(model string) string {
	p, _, _ := splitModel(model)
	return p
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// endState is the part of o's end state that sc's expect block checks: the
// files expect.files names and the worlds' state when expect.state is set;
// nil when it checks neither.
func endState(sc *scenario.Scenario, o *harness.Outcome) *report.EndState {
	if sc.Expect == nil || (len(sc.Expect.Files) == 0 && sc.Expect.State == nil) {
		return nil
	}
	es := &report.EndState{}
	if len(sc.Expect.Files) > 0 {
		content := map[string]string{}
		for _, f := range o.Workspace {
			content[f.Path] = f.Content
		}
		es.Files = map[string]*string{}
		for _, f := range sc.Expect.Files {
			if c, ok := content[f.Path]; ok {
				es.Files[f.Path] = &c
			} else {
				es.Files[f.Path] = nil
			}
		}
	}
	if sc.Expect.State != nil && o.State != nil {
		if data, err := json.MarshalIndent(o.State, "", "  "); err == nil {
			es.State = string(data)
		}
	}
	return es
}
