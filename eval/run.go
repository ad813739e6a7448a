package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// runner is one Run in progress.
type runner struct {
	opts *Options
	// digests are the scenarios' scenarioDigest, by index.
	digests []string
	clock   clock.Clock
	models  map[string]llm.Model
	// judges are the judge models of the scenarios' expect.judge items,
	// by name.
	judges map[string]llm.Model
	gates  map[string]*gate
	// redactor redacts every string a trial keeps (Options.Redactor).
	redactor *redact.Redactor

	mu       sync.Mutex
	results  map[slot]*report.EvalTrial
	spans    map[string]*span // by model: first start, last end
	inFlight map[string]int   // by model
	spent    map[string]float64
	costDone map[string]int // trials whose cost is in spent, by model
	stopped  string
	progress Progress
	// hookMu serialises Options.Trial; hookErr is its first error.
	hookMu  sync.Mutex
	hookErr error
}

// slot identifies one trial: scenario index, model, trial number.
type slot struct {
	scenario int
	model    string
	trial    int
}

type span struct{ start, end time.Time }

// Run runs every scenario Options.Trials times against every model and
// returns the report. The error is non-nil only when the run could not
// start (no model, a scenario without an expect block, duplicate scenario
// names, a model that cannot be opened) or when Options.Trial failed; a run
// stopped by ctx or by MaxCost still returns the report of what finished,
// with Summary.Stopped saying why.
func Run(ctx context.Context, scenarios []*scenario.Scenario, opts *Options) (*report.Eval, error) {
	if opts == nil {
		opts = &Options{}
	}
	// An evaluation is live: its model, judge and user calls reach the
	// vendors whatever replay this process runs meanwhile (a saved
	// trial's is guarded again).
	ctx = netguard.Live(ctx)
	if len(opts.Models) == 0 {
		return nil, errors.New("eval: no model to evaluate")
	}
	if len(scenarios) == 0 {
		return nil, errors.New("eval: no scenario to run")
	}
	scenarios = slices.Clone(scenarios)
	slices.SortStableFunc(scenarios, func(a, b *scenario.Scenario) int { return cmp.Compare(a.Name, b.Name) })
	for i, s := range scenarios {
		if s.Expect == nil {
			return nil, fmt.Errorf("%s: %w", s.Path, ErrNoExpect)
		}
		if i > 0 && scenarios[i-1].Name == s.Name {
			return nil, fmt.Errorf("%s and %s are both named %q: an eval report needs distinct names", scenarios[i-1].Path, s.Path, s.Name)
		}
	}
	if err := checkResume(opts, scenarios); err != nil {
		return nil, err
	}
	if c := opts.Checkpoint; c != nil {
		var names []string
		for _, s := range scenarios {
			names = append(names, s.Name)
		}
		if err := c.start(opts.Models, opts.trials(), names); err != nil {
			return nil, err
		}
	}
	r := &runner{opts: opts, redactor: opts.redactor(), clock: cmp.Or[clock.Clock](opts.Clock, clock.Real{}), models: map[string]llm.Model{}, judges: map[string]llm.Model{}, gates: map[string]*gate{},
		results: map[slot]*report.EvalTrial{}, spans: map[string]*span{}, inFlight: map[string]int{}, spent: map[string]float64{}, costDone: map[string]int{}}
	for _, name := range opts.Models {
		if _, dup := r.models[name]; dup {
			return nil, fmt.Errorf("eval: model %s is given twice", name)
		}
		m, err := opts.open(ctx, name)
		if err != nil {
			return nil, err
		}
		r.models[name] = m
		p := providerOf(name)
		if r.gates[p] == nil {
			r.gates[p] = newGate(r.clock, opts.Limits[p])
		}
	}
	if err := r.openUsers(ctx, scenarios); err != nil {
		return nil, err
	}
	if err := r.openJudges(ctx, scenarios); err != nil {
		return nil, err
	}
	start := r.clock.Now()
	var jobs []trialSpec
	for _, s := range scenarios {
		r.digests = append(r.digests, scenarioDigest(s))
	}
	for trial := 1; trial <= opts.trials(); trial++ {
		for si, s := range scenarios {
			for _, m := range opts.Models {
				if prev := resumed(opts.Resume, s.Name, r.digests[si], m, trial); prev != nil {
					r.results[slot{si, m, trial}] = prev
					r.count(prev, m)
					continue
				}
				jobs = append(jobs, trialSpec{scenario: s, model: m, number: trial})
			}
		}
	}
	index := map[*scenario.Scenario]int{}
	for i, s := range scenarios {
		index[s] = i
	}
	r.progress.Total = opts.trials() * len(scenarios) * len(opts.Models)
	r.progress.Done = r.progress.Total - len(jobs)

	// Take a free place first, then decide under MaxCost, so that the
	// decision sees every trial already in flight.
	sem := make(chan struct{}, opts.parallel())
	trialCtx, cancelTrials := r.graceful(ctx)
	defer cancelTrials()
	var wg sync.WaitGroup
	for _, j := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if !r.admit(ctx, j.model) {
			<-sem
			break
		}
		r.begin(j.model)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t, done := r.runTrial(trialCtx, j)
			r.finish(j, index[j.scenario], t, done, start)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil && r.stopped == "" {
		r.stopped = report.StoppedInterrupted
	}
	if r.hookErr != nil {
		return nil, r.hookErr
	}
	return r.build(scenarios, r.clock.Now().Sub(start)), nil
}

// graceful returns the context the trials run under: once ctx is done
// (Ctrl-C, SIGTERM) no trial starts, and the running ones have
// Options.Grace to finish before it is cancelled too.
func (r *runner) graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.opts.Grace <= 0 {
		return context.WithCancel(ctx)
	}
	trialCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-ctx.Done():
			r.clock.Sleep(trialCtx, r.opts.Grace)
			cancel()
		case <-trialCtx.Done():
		}
	}()
	return trialCtx, cancel
}

// checkResume refuses an Options.Resume report of another run: other
// models, other scenarios, or more trials per scenario than this run has
// (more trials than the report's extend it).
func checkResume(opts *Options, scenarios []*scenario.Scenario) error {
	prev := opts.Resume
	if prev == nil {
		return nil
	}
	var models []string
	for _, m := range prev.Models {
		models = append(models, m.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(models)), slices.Sorted(slices.Values(opts.Models))) {
		return fmt.Errorf("%w: the report ran the models %s, this run %s", ErrResume, strings.Join(models, ", "), strings.Join(opts.Models, ", "))
	}
	if prev.Summary.TrialsPerScenario > opts.trials() {
		// More trials extend the run; fewer would drop what it finished.
		return fmt.Errorf("%w: the report ran %d trials per scenario, this run only %d", ErrResume, prev.Summary.TrialsPerScenario, opts.trials())
	}
	names := map[string]bool{}
	for _, s := range scenarios {
		names[s.Name] = true
	}
	had := map[string]bool{}
	for _, s := range prev.Scenarios {
		had[s.Name] = true
		if !names[s.Name] {
			return fmt.Errorf("%w: the report ran scenario %q, which this run does not", ErrResume, s.Name)
		}
	}
	for _, s := range scenarios {
		if !had[s.Name] {
			return fmt.Errorf("%w: this run has scenario %q, which the report did not run", ErrResume, s.Name)
		}
	}
	return nil
}

// resumed returns the earlier run's passed or failed trial, or nil: only
// of the same scenario content (digest, scenarioDigest), so a scenario
// whose file or seed workspace changed runs again.
func resumed(prev *report.Eval, scenario, digest, model string, trial int) *report.EvalTrial {
	if prev == nil || digest == "" {
		return nil
	}
	for _, s := range prev.Scenarios {
		if s.Name != scenario || s.Model != model || s.Digest != digest {
			continue
		}
		for i, t := range s.TrialsDetail {
			if t.Trial == trial && (t.Status == report.StatusPass || t.Status == report.StatusFail) {
				return &s.TrialsDetail[i]
			}
		}
	}
	return nil
}

// admit reports whether another trial of model may start under MaxCost;
// when not, it records why the run stopped.
func (r *runner) admit(ctx context.Context, model string) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.opts.MaxCost <= 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	total, expected := 0.0, 0.0
	for m, spent := range r.spent {
		total += spent
		if n := r.costDone[m]; n > 0 {
			expected += spent / float64(n) * float64(r.inFlight[m])
		}
	}
	if n := r.costDone[model]; n > 0 {
		expected += r.spent[model] / float64(n)
	}
	if total+expected > r.opts.MaxCost {
		r.stopped = report.StoppedMaxCost
		return false
	}
	return true
}

func (r *runner) begin(model string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight[model]++
	now := r.clock.Now()
	if sp := r.spans[model]; sp == nil {
		r.spans[model] = &span{start: now, end: now}
	}
}

func (r *runner) finish(spec trialSpec, si int, t *Trial, done bool, start time.Time) {
	if done && r.opts.Trial != nil {
		// Outside r.mu: the hook may take a while (saving and replaying a
		// trial) and must not hold up the trials finishing meanwhile.
		r.hookMu.Lock()
		if err := r.opts.Trial(t); err != nil && r.hookErr == nil {
			r.hookErr = err
		}
		r.hookMu.Unlock()
	}
	if c := r.opts.Checkpoint; done && c != nil {
		// Before the trial's place is freed: a kill after the next trial
		// starts finds this one on disk.
		if err := c.add(spec.scenario.Name, spec.model, r.digests[si], t.Report); err != nil {
			r.hookMu.Lock()
			if r.hookErr == nil {
				r.hookErr = err
			}
			r.hookMu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight[spec.model]--
	r.spans[spec.model].end = r.clock.Now()
	if t.Report.Cost != nil {
		r.spent[spec.model] += *t.Report.Cost
		r.costDone[spec.model]++
	}
	if !done {
		return
	}
	r.results[slot{si, spec.model, spec.number}] = t.Report
	r.count(t.Report, spec.model)
	r.progress.Done++
	r.progress.Elapsed = r.clock.Now().Sub(start)
	if r.opts.Progress != nil {
		r.opts.Progress(r.progress)
	}
}

// count adds a finished trial to the progress figures.
func (r *runner) count(t *report.EvalTrial, model string) {
	switch t.Status {
	case report.StatusPass:
		r.progress.Passed++
		r.progress.Scored++
	case report.StatusFail:
		r.progress.Scored++
	case report.StatusError:
		r.progress.Errors++
	}
	r.progress.Tokens = r.progress.Tokens.Add(t.Tokens)
	if t.Cost != nil {
		r.progress.Cost += *t.Cost
	}
}
