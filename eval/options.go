package eval

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// DefaultTrials, DefaultParallel and DefaultModelRetries are the values of
// Options.Trials, Options.Parallel and Options.ModelRetries when they are
// zero.
const (
	DefaultTrials       = 5
	DefaultParallel     = 4
	DefaultModelRetries = 3
)

// Errors Run returns, wrapped with context.
var (
	// ErrNoExpect: a scenario has no expect block, so there is nothing to
	// score a live run with.
	ErrNoExpect = errors.New("scenario has no expect block (nothing to score a live run with)")
	// ErrOpen: a model could not be opened (an unknown provider, a missing
	// key): a configuration error, found before any trial runs.
	ErrOpen = errors.New("opening model")
	// ErrResume: the report given to resume from does not fit this run.
	ErrResume = errors.New("cannot resume")
)

// Options configures Run. A nil *Options is the zero value, which has no
// model and so is refused.
type Options struct {
	// Models are the models to evaluate, "PROVIDER/MODEL", in the order the
	// report lists them. At least one is needed.
	Models []string
	// Open opens a model by name; nil means llm.Open with nil options (keys
	// and base URLs from the environment).
	Open func(ctx context.Context, name string) (llm.Model, error)
	// OpenHTTP opens a model whose HTTP requests go through client. A
	// trial of a scenario with faults: gets a model of its own, opened
	// with a client whose transport applies the faults (a faults.Transport
	// of scenario.Scenario.Faults), so that call numbers count that trial's
	// requests. With Open nil, OpenHTTP also opens the shared
	// models, with a nil client (the default). Nil means llm.Open with the
	// client, or, when Open is set, that such trials are error trials
	// (Open's models cannot carry the faults, and a fault silently not
	// applied would pass).
	OpenHTTP func(ctx context.Context, name string, client *http.Client) (llm.Model, error)
	// Trials is the number of trials per scenario × model; zero means
	// DefaultTrials.
	Trials int
	// Parallel bounds the trials running at once, over all models; zero
	// means DefaultParallel.
	Parallel int
	// RetryErrors is how many times an error trial is run again before it
	// counts as an error; zero means never.
	RetryErrors int
	// ModelRetries is how many times one failed model call is retried when
	// its failure may pass (rate limits, overload, timeouts); zero means
	// DefaultModelRetries, a negative value never.
	ModelRetries int
	// Limits holds per-provider rate limits, by provider name (the PROVIDER
	// of "PROVIDER/MODEL"); a provider not listed has none.
	Limits map[string]Limit
	// Prices holds per-model prices, by model name; a model not listed has
	// no cost (tokens only).
	Prices map[string]Price
	// MaxCost, when positive, stops starting new trials once what has been
	// spent plus what the trials in flight are expected to spend would pass
	// it, in US dollars; zero means no limit.
	MaxCost float64
	// MinPass is the pass rate (0..1) each model must reach for the run to
	// pass; nil means every scored trial must pass.
	MinPass *float64
	// Resume is the report of an earlier, interrupted run of the same
	// scenarios and models: its passed and failed trials are kept and not
	// run again. A report of other scenarios or models, or of more trials
	// per scenario than Trials, is refused with ErrResume and the reason.
	// Nil means start afresh.
	Resume *report.Eval
	// Checkpoint, when set, gets each finished trial (pass, fail or
	// error) as it finishes, synced before another trial takes its place,
	// so that a run killed at any point leaves every finished trial on
	// disk (OpenCheckpoint); give its Resumed as Resume to continue. Nil
	// means no checkpoint.
	Checkpoint *Checkpoint
	// Tools are the user's tool factories scenarios may name beside the
	// fixtures (harness.RunOptions.Tools); nil means the fixtures only.
	Tools []*toolkit.Factory
	// Run runs one trial of a scenario with the options given (the live
	// model, recorded, in Model); nil means harness.Run. evalrun gives
	// harness.Run with its agents (harness.RunOptions.Agents), so that
	// bridged scenarios (setup.agent) run through them.
	Run harness.Runner
	// JudgeModel is the judge model, "PROVIDER/MODEL", of the expect.judge
	// items that name none; empty means such an item is an error
	// (ErrNoJudgeModel) before any trial runs. Judge models are
	// opened as Models are (Open, OpenHTTP), share their provider's rate
	// gate (Limits) and retries (ModelRetries), and their price (Prices)
	// is added to each trial's cost.
	JudgeModel string
	// Checks are the user's checks expect.check may name
	// (harness.NewChecker); nil means none, and such an item fails.
	Checks []*harness.Checker
	// Clock measures and waits (latency, backoff, rate limits) and is the
	// runs' clock; nil means clock.Real{}.
	Clock clock.Clock
	// Progress, when set, is called after each trial ends, from one
	// goroutine at a time; nil means no progress reports.
	Progress func(Progress)
	// Grace is how long the trials running when ctx is done (Ctrl-C,
	// SIGTERM) have to finish before they are cancelled; no trial starts
	// after it. Zero means they are cancelled at once.
	Grace time.Duration
	// Redactor redacts every string a trial keeps: its tape (saved with
	// --save-trials), user turns, transcript, failures and error; nil means
	// redact.Default(), tapeloop's redaction policy.
	Redactor *redact.Redactor
	// Trial, when set, is called with each finished trial, its scenario and
	// tape, from one goroutine at a time, before it enters the report; it
	// may set the trial's Saved path (--save-trials). Nil means none.
	Trial func(t *Trial) error
}

// Limit is a provider's rate limit. Zero fields mean no limit.
type Limit struct {
	// RPM bounds the model calls started per minute.
	RPM int
	// TPM bounds the tokens (input and output) used per minute, counted
	// over the last minute's calls.
	TPM int
}

// Price is a model's price in US dollars per million tokens. Cached input
// tokens cost Cached instead of Input; zero Cached means the Input price.
type Price struct {
	Input  float64
	Output float64
	Cached float64
}

// Cost returns the price of t.
func (p Price) Cost(t report.Tokens) float64 {
	cached := p.Cached
	if cached == 0 {
		cached = p.Input
	}
	fresh := max(t.Input-t.Cached, 0)
	return (float64(fresh)*p.Input + float64(t.Cached)*cached + float64(t.Output)*p.Output) / 1e6
}

// Progress is a snapshot of a run, reported after each trial.
type Progress struct {
	// Done counts the trials finished (resumed ones included), Total the
	// trials of the run.
	Done, Total int
	// Passed and Scored count the passed and the scored trials so far;
	// Errors the error trials.
	Passed, Scored, Errors int
	// Tokens and Cost are what has been spent so far; Cost is 0 without
	// prices.
	Tokens report.Tokens
	Cost   float64
	// Elapsed is the time since the run started.
	Elapsed time.Duration
}

// ETA estimates the time left from the pace so far; zero before the first
// trial ends.
func (p Progress) ETA() time.Duration {
	if p.Done == 0 || p.Done >= p.Total {
		return 0
	}
	return time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(p.Total-p.Done))
}

func (o *Options) trials() int {
	if o.Trials > 0 {
		return o.Trials
	}
	return DefaultTrials
}

func (o *Options) parallel() int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return DefaultParallel
}

func (o *Options) modelRetries() int {
	switch {
	case o.ModelRetries < 0:
		return 0
	case o.ModelRetries == 0:
		return DefaultModelRetries
	}
	return o.ModelRetries
}

func (o *Options) open(ctx context.Context, name string) (llm.Model, error) {
	if _, _, err := splitModel(name); err != nil {
		return nil, err
	}
	if o.Open == nil && o.OpenHTTP != nil {
		m, err := o.OpenHTTP(ctx, name, nil)
		if err != nil {
			return nil, &openError{fmt.Errorf("opening model %s: %w", name, err)}
		}
		return m, nil
	}
	if o.Open == nil {
		m, err := llm.Open(ctx, name, nil) // its errors name the model
		if err != nil {
			return nil, &openError{err}
		}
		return m, nil
	}
	m, err := o.Open(ctx, name)
	if err != nil {
		return nil, &openError{fmt.Errorf("opening model %s: %w", name, err)}
	}
	return m, nil
}

// openFaulty opens the model of one trial of a scenario with faults:.
func (o *Options) openFaulty(ctx context.Context, name string, s *scenario.Scenario) (llm.Model, error) {
	// One transport per trial, so that call numbers count that trial's
	// requests.
	client := &http.Client{Transport: &faults.Transport{Faults: s.Faults}}
	switch {
	case o.OpenHTTP != nil:
		return o.OpenHTTP(ctx, name, client)
	case o.Open != nil:
		return nil, fmt.Errorf("%s scripts faults:, but Options.Open cannot route a model's requests through them (set Options.OpenHTTP)", s.Path)
	}
	return llm.Open(ctx, name, &llm.OpenOptions{HTTPClient: client})
}

// openError is a failure to open a model: its text is the cause's; it
// matches ErrOpen and the cause.
type openError struct{ err error }

func (e *openError) Error() string   { return e.err.Error() }
func (e *openError) Unwrap() []error { return []error{ErrOpen, e.err} }

func (o *Options) redactor() *redact.Redactor {
	if o.Redactor != nil {
		return o.Redactor
	}
	return redact.Default()
}
