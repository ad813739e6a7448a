package evalrun

import (
	"context"
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
	"github.com/tapeloop/tapeloop/llm"
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
a missing API key). Prices and rate limits may come from evalrun.yaml:

  prices:                       # US dollars per million tokens
    openai/gpt-4.1-mini: {input: 0.40, output: 1.60, cached: 0.10}
  limits:                       # per provider
    openai: {rpm: 500, tpm: 200000}`

// evalGrace is how long the trials running when eval is interrupted
// (Ctrl-C, SIGTERM) have to finish before they are cancelled.
const evalGrace = 30 * time.Second

// defaultConfig is the file prices and limits are read from when it exists
// and --config is not given.
const defaultConfig = "evalrun.yaml"

func runEval(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "eval", "evalrun eval --model PROVIDER/MODEL [--model ...] [flags] [scenario files or folders (default: scenarios)]", evalDoc)
	var models, tags, rpms, tpms stringList
	var prices repeated
	fs.Var(&models, "model", "a model to evaluate, PROVIDER/MODEL (repeatable, or comma-separated)")
	trials := fs.Int("trials", eval.DefaultTrials, "trials per scenario and model")
	parallel := fs.Int("parallel", eval.DefaultParallel, "trials running at once, over all models")
	out := addOutputFlags(fs, true, report.EvalFormat)
	baseURL := fs.String("base-url", "", "the provider's API root, for every model (default: its environment variable, such as OPENAI_BASE_URL, then its default)")
	saveDir := fs.String("save-trials", "", "write every trial as a replayable scenario, with its golden, under this folder")
	saveFailed := fs.Bool("save-trials-failed", false, "with --save-trials, write only the trials that failed")
	minPass := fs.String("min-pass", "", "the pass rate (0..1) every model must reach (default: every trial must pass)")
	maxCost := fs.Float64("max-cost", 0, "stop starting trials once the run would cost more than this many US dollars (0: no limit)")
	resume := fs.String("resume", "", "the JSON report of an interrupted run: keep its finished trials")
	runRE := fs.String("run", "", "run only scenarios whose name matches this regular expression")
	fs.Var(&tags, "tag", "run only scenarios with this tag (repeatable, or comma-separated)")
	retryErrors := fs.Int("retry-errors", 0, "run an error trial (a failed model call ended it) again up to this many times")
	config := fs.String("config", "", "read prices and rate limits from this file (default: "+defaultConfig+" when it exists)")
	fs.Var(&prices, "price", "a model's price, MODEL=INPUT,OUTPUT[,CACHED] in US dollars per million tokens (repeatable)")
	fs.Var(&rpms, "rpm", "requests per minute, N for every provider or PROVIDER=N (repeatable)")
	fs.Var(&tpms, "tpm", "tokens per minute, N for every provider or PROVIDER=N (repeatable)")
	redact := addRedactFlags(fs)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	red, err := redact.newRedactor()
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun eval: %v\n", err)
		return exitUsage
	}
	terminal := false
	if f, ok := e.stderr.(*os.File); ok {
		terminal = isTerminal(f)
	}
	e = e.redacting(red)
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "evalrun eval: "+format+"\n", args...)
		return exitUsage
	}
	if len(models) == 0 {
		return fail("no --model given (PROVIDER/MODEL, such as openai/gpt-4.1-mini)")
	}
	if *trials < 1 || *parallel < 1 || *retryErrors < 0 || *maxCost < 0 {
		return fail("--trials and --parallel must be at least 1, --retry-errors and --max-cost at least 0")
	}
	opts := &eval.Options{Models: models, Tools: e.tools, Trials: *trials, Parallel: *parallel, RetryErrors: *retryErrors, MaxCost: *maxCost,
		Prices: map[string]eval.Price{}, Limits: map[string]eval.Limit{}, Clock: e.clock, Redactor: red, Grace: evalGrace}
	if *baseURL != "" {
		opts.OpenHTTP = func(ctx context.Context, name string, client *http.Client) (llm.Model, error) {
			return llm.Open(ctx, name, &llm.OpenOptions{BaseURL: *baseURL, HTTPClient: client})
		}
	}
	if *minPass != "" {
		x, err := strconv.ParseFloat(*minPass, 64)
		if err != nil || x < 0 || x > 1 {
			return fail("--min-pass %q: want a rate from 0 to 1", *minPass)
		}
		opts.MinPass = &x
	}
	if err := loadConfig(*config, opts); err != nil {
		return fail("%v", err)
	}
	for _, p := range prices {
		m, price, err := eval.ParsePrice(p)
		if err != nil {
			return fail("%v", err)
		}
		opts.Prices[m] = price
	}
	if err := applyLimits(rpms, tpms, models, opts.Limits); err != nil {
		return fail("%v", err)
	}
	if *resume != "" {
		f, err := os.Open(*resume)
		if err != nil {
			return fail("--resume: %v", err)
		}
		opts.Resume, err = report.ReadEval(f)
		f.Close()
		if err != nil {
			return fail("--resume %s: %v", *resume, err)
		}
	}
	var re *regexp.Regexp
	if *runRE != "" {
		var err error
		if re, err = regexp.Compile(*runRE); err != nil {
			return fail("--run: %v", err)
		}
	}
	shard, code := shardOf(e, "eval", out)
	if code != exitOK {
		return code
	}
	targets, code := discover(e, "eval", args)
	if code != exitOK {
		return code
	}
	var scenarios []*scenario.Scenario
	for _, t := range targets {
		s, skip, err := t.load(e, "eval")
		if skip {
			continue
		}
		if err != nil {
			return fail("%v", err)
		}
		if selectedBy(s.Name, s.Tags, re, tags) && shard.Contains(s.Name) {
			scenarios = append(scenarios, s)
		}
	}
	if len(scenarios) == 0 && shard != nil {
		// An empty shard still writes its (empty) report, so that merge finds it.
		fmt.Fprintf(e.stderr, "evalrun eval: shard %s holds no selected scenario\n", shard)
		r := &report.Eval{Format: report.EvalFormat, Shard: shard, Models: []report.EvalModel{}, Scenarios: []report.EvalScenario{}}
		r.Summary.OK = true
		return out.write(e, "eval", r)
	}
	if len(scenarios) == 0 {
		return fail("no scenario matches")
	}
	// Trials end on the runner's goroutines, which print while the
	// progress printer does: every write to stderr, and saveErrors, are
	// under one lock.
	stderr := &lockedWriter{w: e.stderr}
	saveErrors := 0 // trials --save-trials could not write
	if *saveDir != "" {
		opts.Trial = func(t *eval.Trial) error {
			if *saveFailed && t.Report.Status != report.StatusFail {
				return nil
			}
			saved, err := eval.SaveTrial(context.WithoutCancel(ctx), *saveDir, t, e.tools)
			if err != nil {
				// Warn and go on: the run's results are worth more than
				// one saved trial; the exit status says something failed.
				stderr.mu.Lock()
				defer stderr.mu.Unlock()
				fmt.Fprintf(stderr.w, "evalrun eval: --save-trials: %v\n", err)
				saveErrors++
				return nil
			}
			t.Report.Saved = saved
			return nil
		}
	}
	progress, endProgress := eval.ProgressPrinter(stderr, terminal, 10*time.Second)
	opts.Progress = progress
	r, err := eval.Run(ctx, scenarios, opts)
	endProgress()
	if err != nil {
		return fail("%v", err)
	}
	if !out.toStdout() {
		if err := eval.WriteText(e.stdout, r); err != nil {
			return fail("writing the results: %v", err)
		}
	}
	switch r.Summary.Stopped {
	case report.StoppedMaxCost:
		fmt.Fprintf(e.stderr, "evalrun eval: stopped starting trials: --max-cost $%g would have been exceeded; %d trials not run\n", *maxCost, r.Summary.NotRun)
	case report.StoppedInterrupted:
		fmt.Fprintf(e.stderr, "evalrun eval: interrupted; %d trials not run (resume with --resume and the --json report)\n", r.Summary.NotRun)
	}
	r.Shard = shard
	if code := out.write(e, "eval", r); code != exitOK {
		return code
	}
	if saveErrors > 0 {
		fmt.Fprintf(e.stderr, "evalrun eval: --save-trials: %d trials could not be saved\n", saveErrors)
		return exitUsage
	}
	if !r.Summary.OK {
		return exitFailed
	}
	return exitOK
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
