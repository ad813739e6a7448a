package evalrun

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

func init() {
	register(&command{name: "eval", summary: "run scenarios against live models, several trials each, and score them", run: runEval})
}

// evalDoc is eval's --help text.
const evalDoc = `Runs every selected scenario --trials times against each model (a fresh
workspace and tools per trial, the model answering instead of the tape) and
scores each trial with the scenario's expect block: pass@k, pass^k and a class
(pass, fail, flaky) per scenario and model, failures by expectation, tokens,
cost, latency; for two models a comparison. A trial ended by a failed
model call is an error trial, counted apart and left out of pass@k.
Exit 0 when every model reaches --min-pass, 1 when one does not (or the run
was interrupted), 2 on a usage, input or provider-configuration error (such as
a missing API key), 3 when trials errored (a failed model call: a refused key,
a provider down), whose scores say nothing. Prices and rate limits may come from evalrun.yaml:

  prices:                       # US dollars per million tokens
    openai/gpt-4.1-mini: {input: 0.40, output: 1.60, cached: 0.10}
  limits:                       # per provider
    openai: {rpm: 500, tpm: 200000}`

// evalGrace is how long, by default, the trials running when eval is
// interrupted (Ctrl-C, SIGTERM) have to finish before they are cancelled:
// well inside Kubernetes' default 30 s between SIGTERM and SIGKILL, leaving
// time to write the report and saved trials.
const evalGrace = 20 * time.Second

// defaultConfig is the file prices and limits are read from when it exists
// and --config is not given.
const defaultConfig = "evalrun.yaml"

// evalFlags are eval's flags, as parsed.
type evalFlags struct {
	models, tags, rpms, tpms          stringList
	prices                            repeated
	trials, parallel, retryErrors     *int
	out                               *outputFlags
	baseURL, saveDir, minPass, resume *string
	checkpoint                        *string
	grace                             *time.Duration
	runRE, config, judgeModel         *string
	saveFailed                        *bool
	maxCost                           *float64
	redact                            *redactFlags
}

// newEvalFlags declares eval's flags on fs.
func newEvalFlags(fs *flag.FlagSet) *evalFlags {
	f := &evalFlags{}
	fs.Var(&f.models, "model", "a model to evaluate, PROVIDER/MODEL (repeatable, or comma-separated)")
	f.trials = fs.Int("trials", eval.DefaultTrials, "trials per scenario and model")
	f.parallel = fs.Int("parallel", eval.DefaultParallel, "trials running at once, over all models")
	f.out = addOutputFlags(fs, true, report.EvalFormat)
	f.baseURL = fs.String("base-url", "", "the provider's API root, for every model (default: its environment variable, such as OPENAI_BASE_URL, then its default)")
	f.saveDir = fs.String("save-trials", "", "write every trial as a replayable scenario, with its golden, under this folder")
	f.saveFailed = fs.Bool("save-trials-failed", false, "with --save-trials, write only the trials that failed")
	f.minPass = fs.String("min-pass", "", "the pass rate (0..1) every model must reach (default: every trial must pass)")
	f.maxCost = fs.Float64("max-cost", 0, "stop starting trials once the run would cost more than this many US dollars (0: no limit)")
	f.resume = fs.String("resume", "", "the JSON report or checkpoint of an interrupted run: keep its finished trials")
	f.checkpoint = fs.String("checkpoint", "", "append each finished trial to this file as it finishes; when it holds trials of this run already, resume from them")
	f.grace = fs.Duration("grace", evalGrace, "when interrupted (Ctrl-C, SIGTERM), how long the running trials have to finish before they are cancelled")
	f.runRE = fs.String("run", "", "run only scenarios whose name matches this regular expression")
	fs.Var(&f.tags, "tag", "run only scenarios with this tag (repeatable, or comma-separated)")
	f.retryErrors = fs.Int("retry-errors", 0, "run an error trial (a failed model call ended it) again up to this many times")
	f.judgeModel = fs.String("judge-model", "", "the judge model, PROVIDER/MODEL, of expect.judge items that name none (default: judge_model of the config file)")
	f.config = fs.String("config", "", "read prices and rate limits from this file (default: "+defaultConfig+" when it exists)")
	fs.Var(&f.prices, "price", "a model's price, MODEL=INPUT,OUTPUT[,CACHED] in US dollars per million tokens (repeatable)")
	fs.Var(&f.rpms, "rpm", "requests per minute, N for every provider or PROVIDER=N (repeatable)")
	fs.Var(&f.tpms, "tpm", "tokens per minute, N for every provider or PROVIDER=N (repeatable)")
	f.redact = addRedactFlags(fs)
	return f
}

func runEval(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "eval", "evalrun eval --model PROVIDER/MODEL [--model ...] [flags] [scenario files or folders (default: scenarios)]", evalDoc)
	f := newEvalFlags(fs)
	addSandboxFlag(fs, e)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	red, err := f.redact.newRedactor()
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun eval: %v\n", err)
		return exitUsage
	}
	terminal := false
	if file, ok := e.stderr.(*os.File); ok {
		terminal = isTerminal(file)
	}
	e = e.redacting(red)
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "evalrun eval: "+format+"\n", args...)
		return exitUsage
	}
	opts, err := f.options(e, red)
	if err != nil {
		return fail("%v", err)
	}
	var re *regexp.Regexp
	if *f.runRE != "" {
		if re, err = regexp.Compile(*f.runRE); err != nil {
			return fail("--run: %v", err)
		}
	}
	shard, code := shardOf(e, "eval", f.out)
	if code != exitOK {
		return code
	}
	scenarios, code := f.selectScenarios(e, args, re, shard)
	if code != exitOK || len(scenarios) == 0 && shard != nil {
		return code
	}
	if len(opts.Models) == 0 {
		own, err := ownModel(scenarios)
		if err != nil {
			return fail("%v", err)
		}
		opts.Models = []string{own}
		if err := applyLimits(f.rpms, f.tpms, opts.Models, opts.Limits); err != nil {
			return fail("%v", err)
		}
	}
	// Trials end on the runner's goroutines, which print while the
	// progress printer does: every write to stderr, and the saver's count,
	// are under one lock.
	stderr := &lockedWriter{w: e.stderr}
	saver := &trialSaver{dir: *f.saveDir, failedOnly: *f.saveFailed, opts: &eval.SaveOptions{Tools: e.tools, Verify: e.verify, Redactor: red}, stderr: stderr}
	if saver.dir != "" {
		opts.Trial = saver.hook(ctx)
	}
	ckpt, err := f.openCheckpoint(e, opts)
	if err != nil {
		return fail("%v", err)
	}
	if ckpt != nil {
		defer ckpt.Close()
	}
	progress, endProgress := eval.ProgressPrinter(stderr, terminal, 10*time.Second)
	opts.Progress = progress
	stopSaying := sayInterrupted(ctx, stderr, *f.grace)
	r, err := eval.Run(ctx, scenarios, opts)
	stopSaying()
	endProgress()
	if err != nil {
		return fail("%v", err)
	}
	return f.finish(e, r, shard, saver.failed)
}

// ownModel returns the model the scenarios name as their own
// (setup.loop.request.model), which eval evaluates when no --model is
// given: an error unless each names one and they all name the same (an
// eval report runs every scenario on every model).
func ownModel(scenarios []*scenario.Scenario) (string, error) {
	const none = "no --model given (PROVIDER/MODEL, such as openai/gpt-4.1-mini)"
	var own string
	var at *scenario.Scenario
	for _, s := range scenarios {
		m := s.Setup.Loop.Model
		switch {
		case s.Setup.Agent != nil:
			model, note := harness.ForwardedModel(s)
			return "", fmt.Errorf("no --model given: %s: its agent's own request is forwarded, model and all: give --model %s %s", s.Path, model, note)
		case m == "":
			return "", fmt.Errorf("%s, and %s names no model of its own (setup.loop.request.model)", none, s.Path)
		case at == nil:
			own, at = m, s
		case m != own:
			return "", fmt.Errorf("%s, and the scenarios name different models of their own (%s at %s, %s at %s): every scenario runs on every model evaluated; give --model, or select the scenarios of one model (--run, --tag)",
				none, own, at.At(at.Setup.Loop.ModelLine), m, s.At(s.Setup.Loop.ModelLine))
		}
	}
	return own, nil
}

// sayInterrupted says on w, as soon as ctx is done (Ctrl-C, SIGTERM) and
// before the run has drained, that eval is stopping; stop ends the watch.
func sayInterrupted(ctx context.Context, w io.Writer, grace time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			fmt.Fprintf(w, "evalrun eval: interrupted: starting no more trials; the running ones have %s to finish\n", grace)
		case <-done:
		}
	}()
	return func() { close(done); wg.Wait() }
}

// options checks the flags and builds the eval options from them, the
// config file and the environment; the error says which flag is wrong.
func (f *evalFlags) options(e *env, red *redact.Redactor) (*eval.Options, error) {
	if *f.trials < 1 || *f.parallel < 1 || *f.retryErrors < 0 || *f.maxCost < 0 || *f.grace < 0 {
		return nil, errors.New("--trials and --parallel must be at least 1, --retry-errors, --max-cost and --grace at least 0")
	}
	if *f.trials > report.MaxScenarioTrials {
		// What eval writes, compare and merge read back.
		return nil, fmt.Errorf("--trials %d: at most %d per scenario", *f.trials, report.MaxScenarioTrials)
	}
	opts := &eval.Options{Models: f.models, Tools: e.tools, Checks: e.checks, Run: e.run, Trials: *f.trials, Parallel: *f.parallel, RetryErrors: *f.retryErrors, MaxCost: *f.maxCost,
		Prices: map[string]eval.Price{}, Limits: map[string]eval.Limit{}, Clock: e.clock, Redactor: red, Grace: *f.grace}
	if baseURL := *f.baseURL; baseURL != "" {
		opts.OpenHTTP = func(ctx context.Context, name string, client *http.Client) (llm.Model, error) {
			return llm.Open(ctx, name, &llm.OpenOptions{BaseURL: baseURL, HTTPClient: client})
		}
	}
	if *f.minPass != "" {
		x, err := strconv.ParseFloat(*f.minPass, 64)
		if err != nil || x < 0 || x > 1 {
			return nil, fmt.Errorf("--min-pass %q: want a rate from 0 to 1", *f.minPass)
		}
		opts.MinPass = &x
	}
	if err := loadConfig(*f.config, opts); err != nil {
		return nil, err
	}
	if *f.judgeModel != "" {
		if _, _, err := llm.ParseModelName(*f.judgeModel); err != nil {
			return nil, fmt.Errorf("--judge-model: %w", err)
		}
		opts.JudgeModel = *f.judgeModel
	}
	for _, p := range f.prices {
		m, price, err := eval.ParsePrice(p)
		if err != nil {
			return nil, err
		}
		opts.Prices[m] = price
	}
	if err := applyLimits(f.rpms, f.tpms, f.models, opts.Limits); err != nil {
		return nil, err
	}
	if *f.resume != "" {
		data, err := os.ReadFile(*f.resume)
		if err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
		if eval.IsCheckpoint(data) {
			opts.Resume, err = eval.ReadCheckpoint(bytes.NewReader(data))
		} else {
			opts.Resume, err = report.ReadEval(bytes.NewReader(data))
		}
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", *f.resume, err)
		}
	}
	return opts, nil
}

// openCheckpoint opens --checkpoint's file, taking the trials it holds as
// the run to resume; the caller closes it.
func (f *evalFlags) openCheckpoint(e *env, opts *eval.Options) (*eval.Checkpoint, error) {
	if *f.checkpoint == "" {
		return nil, nil
	}
	c, err := eval.OpenCheckpoint(*f.checkpoint)
	if err != nil {
		return nil, fmt.Errorf("--checkpoint %s: %w", *f.checkpoint, err)
	}
	if prev := c.Resumed(); prev != nil {
		if opts.Resume != nil {
			c.Close()
			return nil, fmt.Errorf("--checkpoint %s holds trials already: give it or --resume, not both", *f.checkpoint)
		}
		opts.Resume = prev
		n := 0
		for _, s := range prev.Scenarios {
			n += len(s.TrialsDetail)
		}
		fmt.Fprintf(e.stderr, "evalrun eval: resuming from %s: %d finished trials\n", *f.checkpoint, n)
	}
	opts.Checkpoint = c
	return c, nil
}

// selectScenarios loads the scenarios the arguments name and keeps those
// --run (re, nil for all), --tag and the shard select. An empty shard writes its empty report
// (so that merge finds it) and returns no scenario with its exit code;
// nothing selected otherwise is a usage error.
func (f *evalFlags) selectScenarios(e *env, args []string, re *regexp.Regexp, shard *report.Shard) ([]*scenario.Scenario, int) {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "evalrun eval: "+format+"\n", args...)
		return exitUsage
	}
	targets, code := discover(e, "eval", args)
	if code != exitOK {
		return nil, code
	}
	var scenarios []*scenario.Scenario
	for _, t := range targets {
		s, skip, err := t.load(e, "eval")
		if skip {
			continue
		}
		if err != nil {
			return nil, fail("%v", err)
		}
		if selectedBy(s.Name, s.Tags, re, f.tags) && shard.Contains(s.Name) {
			scenarios = append(scenarios, s)
		}
	}
	if len(scenarios) == 0 && shard != nil {
		fmt.Fprintf(e.stderr, "evalrun eval: shard %s holds no selected scenario\n", shard)
		r := &report.Eval{Format: report.EvalFormat, Shard: shard, Models: []report.EvalModel{}, Scenarios: []report.EvalScenario{}}
		r.Summary.OK = true
		return nil, f.out.write(e, "eval", r)
	}
	if len(scenarios) == 0 {
		return nil, fail("no scenario matches")
	}
	return scenarios, exitOK
}

// finish prints the results (text unless the JSON goes to stdout) and why
// the run stopped early, writes the outputs, and returns the exit code:
// 2 when trials could not be saved, 1 when a model missed --min-pass.
func (f *evalFlags) finish(e *env, r *report.Eval, shard *report.Shard, saveErrors int) int {
	if !f.out.toStdout() {
		if err := eval.WriteText(e.stdout, r); err != nil {
			fmt.Fprintf(e.stderr, "evalrun eval: writing the results: %v\n", err)
			return exitUsage
		}
	}
	switch r.Summary.Stopped {
	case report.StoppedMaxCost:
		fmt.Fprintf(e.stderr, "evalrun eval: stopped starting trials: --max-cost $%g would have been exceeded; %d trials not run\n", *f.maxCost, r.Summary.NotRun)
	case report.StoppedInterrupted:
		fmt.Fprintf(e.stderr, "evalrun eval: interrupted; %d trials not run (resume with --resume and the --json report)\n", r.Summary.NotRun)
	}
	r.Shard = shard
	if code := f.out.write(e, "eval", r); code != exitOK {
		return code
	}
	if saveErrors > 0 {
		fmt.Fprintf(e.stderr, "evalrun eval: --save-trials: %d trials could not be saved\n", saveErrors)
		return exitUsage
	}
	if n := r.Summary.Errors; n > 0 {
		fmt.Fprintf(e.stderr, "evalrun eval: %d trials errored (a failed model call: %s); their scores say nothing about the model (exit %d)\n",
			n, "a refused key, a provider down or timing out", exitErrored)
		return exitErrored
	}
	if !r.Summary.OK {
		return exitFailed
	}
	return exitOK
}

// trialSaver writes trials as replayable scenarios (--save-trials), all of
// them or only the failed ones, counting those it could not write.
type trialSaver struct {
	dir        string
	failedOnly bool
	opts       *eval.SaveOptions
	stderr     *lockedWriter
	// failed counts the trials that could not be saved, under stderr's lock.
	failed int
}

// hook is the eval.Options.Trial that saves each finished trial.
func (s *trialSaver) hook(ctx context.Context) func(t *eval.Trial) error {
	return func(t *eval.Trial) error {
		if s.failedOnly && t.Report.Status != report.StatusFail {
			return nil
		}
		saved, err := eval.SaveTrial(context.WithoutCancel(ctx), s.dir, t, s.opts)
		if err != nil {
			// Warn and go on: the run's results are worth more than one
			// saved trial; the exit status says something failed.
			s.stderr.mu.Lock()
			defer s.stderr.mu.Unlock()
			fmt.Fprintf(s.stderr.w, "evalrun eval: --save-trials: %v\n", err)
			s.failed++
			return nil
		}
		t.Report.Saved = saved
		return nil
	}
}

// loadConfig reads prices and limits from path, or from defaultConfig when
// path is empty and that file exists.
func loadConfig(path string, opts *eval.Options) error {
	if path == "" {
		if _, err := os.Stat(defaultConfig); err != nil {
			return nil
		}
		path = defaultConfig
	}
	c, err := eval.LoadConfig(path)
	if err != nil {
		return err
	}
	for m, p := range c.Prices {
		opts.Prices[m] = p
	}
	for p, l := range c.Limits {
		opts.Limits[p] = l
	}
	opts.JudgeModel = c.JudgeModel
	return nil
}

// applyLimits sets --rpm and --tpm: a bare N applies to the provider of every
// model, PROVIDER=N to one.
func applyLimits(rpms, tpms []string, models []string, limits map[string]eval.Limit) error {
	set := func(flag, v string, apply func(l *eval.Limit, n int)) error {
		provider, num, named := strings.Cut(v, "=")
		if !named {
			num = provider
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 {
			return fmt.Errorf("--%s %q: want N or PROVIDER=N with N at least 1", flag, v)
		}
		var providers []string
		if named {
			providers = []string{provider}
		} else {
			for _, m := range models {
				p, _, _ := strings.Cut(m, "/")
				providers = append(providers, p)
			}
		}
		for _, p := range providers {
			l := limits[p]
			apply(&l, n)
			limits[p] = l
		}
		return nil
	}
	for _, v := range rpms {
		if err := set("rpm", v, func(l *eval.Limit, n int) { l.RPM = n }); err != nil {
			return err
		}
	}
	for _, v := range tpms {
		if err := set("tpm", v, func(l *eval.Limit, n int) { l.TPM = n }); err != nil {
			return err
		}
	}
	return nil
}

// repeated is a repeatable flag whose values may contain commas.
type repeated []string

func (r *repeated) String() string { return strings.Join(*r, " ") }

func (r *repeated) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// lockedWriter serialises writes to w; mu also guards what the writers
// count beside it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
