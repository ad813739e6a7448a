package evalrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

func init() {
	register(&command{name: "record", summary: "record tapes from a live model into scenario files", run: runRecord})
}

const recordDoc = `Runs each scenario's setup and input with a live model and writes the
recorded tape into the scenario file in place (comments, key order and
expect: kept), then its golden, checking expect: (unless --no-golden).
Secrets are redacted before anything is written; the summary counts them
by kind. A failed recording writes nothing unless --keep-failed; Ctrl-C
leaves the scenario being recorded as it was. --json FILE also writes the
results as JSON (tapeloop-record/v1; - for standard output, the text then on
standard error). See docs/record.md.`

// openFunc opens a live model by name, as llm.Open does; tests pass their own.
type openFunc func(ctx context.Context, name string, opts *llm.OpenOptions) (llm.Model, error)

// The recording modes.
const (
	modeOnce   = "once"   // record scenarios that have no tape
	modeAll    = "all"    // re-record every selected scenario
	modeExtend = "extend" // replay the tape, then go on live and append
)

// recordConfig is what the record command's flags say.
type recordConfig struct {
	model, baseURL, mode string
	// judgeModel is --judge-model: the judge of expect.judge items that
	// name none.
	judgeModel           string
	noGolden, keepFailed bool
	// capture names the tools whose results become recorded stand-ins.
	capture  []string
	redactor *redact.Redactor
	open     openFunc
	// gates are the providers' gates, one per provider, shared by every
	// scenario of the run (gateFor).
	gates map[string]*eval.Gate
	// jsonPath is --json; jsonOut is where "-" writes (standard output,
	// while the text goes to standard error).
	jsonPath string
	jsonOut  *env
	// For --new.
	newPath, prompt, system, workspace string
	tools                              []string
}

func runRecord(ctx context.Context, e *env, args []string) int {
	return recordCommand(ctx, e, args, llm.Open)
}

// recordCommand is the record command with the model opener as a seam.
func recordCommand(ctx context.Context, e *env, args []string, open openFunc) int {
	fs := newFlags(e, "record", "evalrun record --model PROVIDER/MODEL [flags] FILE|DIR...\n       evalrun record --new FILE --model PROVIDER/MODEL --tools a,b --prompt TEXT [--workspace DIR]", recordDoc)
	c := &recordConfig{open: open}
	fs.StringVar(&c.model, "model", "", "the live model, PROVIDER/MODEL (default: each scenario's own, setup.loop.request.model; required with --new)")
	fs.StringVar(&c.baseURL, "base-url", "", "the provider's API root, for the judge models too (default: its environment variable, then its default)")
	fs.StringVar(&c.mode, "mode", modeOnce, "once: record scenarios without a tape; all: re-record every scenario; extend: replay the tape, then go on live and append; judge: replay the tape and record only the judges' verdicts (expect.judge)")
	fs.StringVar(&c.judgeModel, "judge-model", "", "the judge model, PROVIDER/MODEL, of expect.judge items that name none")
	fs.BoolVar(&c.noGolden, "no-golden", false, "do not write the golden or check expect: after recording")
	fs.BoolVar(&c.keepFailed, "keep-failed", false, "write the tape of a failed recording (provider error, iteration limit) too")
	var tools, capture stringList
	fs.Var(&capture, "capture", "store what these tools answered as recorded stand-ins (mode in_order) in setup.tools (repeatable, or comma-separated); a setup.mcp server's name captures all its tools")
	redact := addRedactFlags(fs)
	addSandboxFlag(fs, e)
	fs.StringVar(&c.newPath, "new", "", "create this new scenario file from --prompt and --tools, recording its tape")
	fs.Var(&tools, "tools", "with --new: the tools to set up (comma-separated)")
	fs.StringVar(&c.prompt, "prompt", "", "with --new: the user's message")
	fs.StringVar(&c.system, "system", "", "with --new: a system message to start with")
	fs.StringVar(&c.workspace, "workspace", "", "with --new: a folder the workspace starts as a copy of (setup.workspace.from)")
	var shardFlag string
	addShardFlag(fs, &shardFlag)
	addJSONFlag(fs, &c.jsonPath, recordFormat)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	c.tools, c.capture = tools, capture
	usage := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "evalrun record: "+format+"\n", args...)
		return exitUsage
	}
	if _, _, err := llm.ParseModelName(c.model); err != nil && c.model != "" {
		return usage("--model: %v", err)
	}
	if _, _, err := llm.ParseModelName(c.judgeModel); err != nil && c.judgeModel != "" {
		return usage("--judge-model: %v", err)
	}
	if c.mode != modeOnce && c.mode != modeAll && c.mode != modeExtend && c.mode != modeJudge {
		return usage("--mode %q: want once, all, extend or judge", c.mode)
	}
	var err error
	if c.redactor, err = redact.newRedactor(); err != nil {
		return usage("%v", err)
	}
	e = e.redacting(c.redactor)
	c.jsonOut = e
	if c.jsonPath == "-" {
		text := *e
		text.stdout = e.stderr
		e = &text
	}

	if c.newPath != "" {
		if len(args) > 0 {
			return usage("--new takes no other files (got %v)", args)
		}
		if shardFlag != "" {
			return usage("--new records one new file; --shard does not go with it")
		}
		if c.model == "" {
			return usage("--model is required with --new (PROVIDER/MODEL, such as openai/gpt-4.1-mini)")
		}
		return recordNew(ctx, e, c)
	}
	if len(c.tools) > 0 || c.prompt != "" || c.system != "" || c.workspace != "" {
		return usage("--tools, --prompt, --system and --workspace go with --new")
	}
	if len(args) == 0 {
		return usage("name the scenario files or folders to record")
	}
	targets, code := discover(e, "record", args)
	if code != exitOK {
		return code
	}
	shard, code := parseShard(e, "record", shardFlag)
	if code != exitOK {
		return code
	}
	targets = shardTargets(targets, shard)
	// A model is opened when a scenario first needs it, so that a run in
	// which every scenario is skipped needs no key: --model, else the
	// scenario's own (setup.loop.request.model), each opened once.
	models := map[string]llm.Model{}
	openOnce := func(name string) (llm.Model, error) {
		if m := models[name]; m != nil {
			return m, nil
		}
		m, err := c.open(ctx, name, &llm.OpenOptions{BaseURL: c.baseURL})
		if err != nil {
			return nil, err
		}
		models[name] = m
		return m, nil
	}
	var results []*recordResult
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		r := c.recordFile(ctx, e, openOnce, t)
		if r.openErr != nil {
			fmt.Fprintf(e.stderr, "evalrun record: %v\n", r.openErr)
			return exitUsage
		}
		results = append(results, r)
		r.print(e)
	}
	return c.summary(ctx, e, results, len(targets))
}

// recordResult is what recording one scenario did.
type recordResult struct {
	name, path string
	// status is recorded, skipped, failed (the recording failed), error
	// (the file could not be read or written) or interrupted.
	status  string
	reason  string
	written bool
	calls   int
	usage   llm.Usage
	elapsed time.Duration
	// judgeCalls and judgeUsage count the judge models' calls.
	judgeCalls int
	judgeUsage llm.Usage
	verdict    *harness.Verdict
	// answeredBy is the model sent instead of the bridged agent's own, or
	// opened instead of a native scenario's own (native)
	// (tape.Offered.AnsweredBy); empty when the agent's or the scenario's
	// answered.
	answeredBy string
	native     bool
	// openErr is set when the model could not be opened: nothing can be
	// recorded.
	openErr error
	// share says how the recording changed the tape's cacheable share
	// (shareChange); "" when nothing was written.
	share string
}

// recordFile records the scenario at t, writes it and its golden.
func (c *recordConfig) recordFile(ctx context.Context, e *env, open func(name string) (llm.Model, error), t target) *recordResult {
	r := &recordResult{name: t.path, path: t.path}
	s, err := scenario.Load(t.path)
	if err != nil {
		r.status, r.reason = "error", err.Error()
		return r
	}
	r.name = s.Name
	src, err := os.ReadFile(t.path)
	if err != nil {
		r.status, r.reason = "error", err.Error()
		return r
	}
	if c.mode == modeJudge {
		return c.judgeFile(ctx, e, t, s, src, r)
	}
	hasModelEntries := slices.ContainsFunc(s.Tape, func(e tape.Entry) bool { return e.User == nil })
	if c.mode == modeOnce && hasModelEntries {
		r.status, r.reason = "skipped", "it has a tape (--mode all re-records it, --mode extend goes on from it)"
		return r
	}
	for _, name := range c.capture {
		if !slices.ContainsFunc(s.Setup.Tools, func(ts scenario.ToolSetup) bool { return ts.Name == name }) && mcpServerOf(name, s.Setup.MCP) == "" {
			r.status, r.reason = "error", fmt.Sprintf("%s: --capture %s: setup.tools has no tool of that name", t.path, name)
			return r
		}
	}
	var old []tape.Entry
	if c.mode == modeExtend {
		if s.Setup.User != nil && hasModelEntries {
			r.status, r.reason = "error", fmt.Sprintf("%s: --mode extend: the scenario's user is a model (setup.user), whose recorded turns a live run does not go on from; re-record it with --mode all", s.At(s.Setup.User.Line))
			return r
		}
		old = s.Tape
	}
	name, err := c.modelFor(s)
	if err != nil {
		r.openErr = err
		return r
	}
	model, err := open(name)
	if err == nil && len(s.Faults) > 0 {
		// The scenario's faults: apply to this recording's own requests,
		// numbered from 1, through a model of its own.
		model, err = c.open(ctx, name, &llm.OpenOptions{BaseURL: c.baseURL, HTTPClient: &http.Client{Transport: &faults.Transport{Faults: s.Faults}}})
	}
	if err != nil {
		if c.model == "" {
			// The scenario's own model: its line says where it is named.
			err = fmt.Errorf("%s: setup.loop.request.model: %w", s.At(s.Setup.Loop.ModelLine), err)
		}
		r.openErr = err
		return r
	}
	user, err := c.user(ctx, e, s)
	if err != nil {
		r.openErr = err
		return r
	}
	rec := c.run(ctx, e, s, name, model, old, user)
	r.native = s.Setup.Agent == nil
	r.calls, r.usage, r.elapsed = rec.calls, rec.usage, rec.elapsed
	if rec.offeredBlock != nil {
		r.answeredBy = rec.offeredBlock.AnsweredBy
	}
	switch {
	case ctx.Err() != nil:
		r.status, r.reason = "interrupted", "interrupted: nothing written"
		return r
	case rec.err != nil:
		r.status, r.reason = "error", rec.err.Error()
		return r
	case rec.failure != "":
		r.status = "failed"
		r.reason = fmt.Sprintf("%s:%d: the recording failed: %s", t.path, tapeLine(src), rec.failure)
		if !c.keepFailed {
			r.reason += "; nothing written (--keep-failed writes it anyway)"
			return r
		}
	default:
		r.status = "recorded"
	}
	var verdicts []tape.Verdict
	if rec.failure == "" {
		var calls int
		var usage llm.Usage
		verdicts, calls, usage, err = c.judgeRecording(ctx, e, s, rec.outcome)
		r.judgeCalls, r.judgeUsage = calls, usage
		if err != nil {
			r.status, r.reason = "failed", fmt.Sprintf("%v; nothing written", err)
			return r
		}
	}
	var out []byte
	if n := len(old); n > 0 && len(rec.tape) >= n && slices.EqualFunc(rec.tape[:n], old, sameEntry) {
		out, err = scenario.AppendTape(src, t.path, rec.tape[n:])
	} else {
		out, err = scenario.SetTape(src, t.path, rec.tape)
	}
	if err == nil && rec.offeredBlock != nil && (c.mode != modeExtend || s.Offered == nil) {
		out, err = scenario.SetValue(out, t.path, []string{"offered"}, tape.EncodeOffered(rec.offeredBlock))
	}
	if err == nil {
		out, err = setVerdicts(out, t.path, verdicts)
	}
	if err == nil && len(c.capture) > 0 {
		out, err = captureTools(out, t.path, c.capture, rec.outcome.Run, rec.offered, c.redactor, s.Setup.MCP)
	}
	if err == nil {
		err = writeScenario(t.path, src, out)
	}
	if err != nil {
		r.status, r.reason = "error", err.Error()
		return r
	}
	r.written = true
	if ns, err := scenario.Parse(out, t.path, s.Name); err == nil {
		var before *scenario.Scenario
		if hasModelEntries {
			before = s
		}
		r.share = shareChange(e.prog(), before, ns)
	}
	c.verifyWritten(ctx, e, t, r)
	return r
}

// verifyWritten replays the scenario just written at t, writing its golden
// and checking expect:, unless --no-golden.
func (c *recordConfig) verifyWritten(ctx context.Context, e *env, t target, r *recordResult) {
	if c.noGolden {
		return
	}
	if ns, err := scenario.Load(t.path); err != nil {
		r.verdict = &harness.Verdict{Path: t.path, Name: t.path, Golden: scenario.GoldenPath(t.path), Err: err}
	} else {
		r.verdict = e.verify(ctx, ns, &harness.VerifyOptions{Update: true, Tools: e.tools, Checks: e.checks, Redactor: c.redactor})
	}
}

// modelFor returns the model that records s: --model, else the
// scenario's own (setup.loop.request.model); an error wrapping
// errNoModel when neither names one.
func (c *recordConfig) modelFor(s *scenario.Scenario) (string, error) {
	switch {
	case c.model != "":
		return c.model, nil
	case s.Setup.Agent != nil:
		model, note := harness.ForwardedModel(s)
		return "", fmt.Errorf("%s: %w: its agent's own request is forwarded, model and all: give --model %s %s", s.Path, errNoModel, model, note)
	case s.Setup.Loop.Model != "":
		return s.Setup.Loop.Model, nil
	}
	return "", fmt.Errorf("%s: %w: give --model PROVIDER/MODEL (such as openai/gpt-4.1-mini), or name the scenario's own in setup.loop.request.model", s.Path, errNoModel)
}

// errNoModel: neither --model nor the scenario names the model to run.
var errNoModel = errors.New("no model to run the scenario with")

// gateFor returns the gate of model's provider (PROVIDER/MODEL), made on
// first use: every call of the run to that provider, in every scenario and
// by the simulated user and the judges too, waits at the same gate, as
// eval's trials do.
func (c *recordConfig) gateFor(e *env, model string) *eval.Gate {
	provider, _, _ := llm.ParseModelName(model)
	if c.gates == nil {
		c.gates = map[string]*eval.Gate{}
	}
	g := c.gates[provider]
	if g == nil {
		g = eval.NewGate(e.clock)
		c.gates[provider] = g
	}
	return g
}

// sameEntry reports whether b, an entry of a new tape, is a, the old
// tape's entry: the same model entry, or a user turn with the same message.
func sameEntry(b, a tape.Entry) bool {
	if a.User != nil || b.User != nil {
		return a.User != nil && b.User != nil && reflect.DeepEqual(*a.User, *b.User)
	}
	return a.Response == b.Response && a.Request == b.Request && a.Error == b.Error
}

// writeScenario writes out over path atomically, unless the file no longer
// holds src (someone edited it while the model ran).
func writeScenario(path string, src, out []byte) error {
	now, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("writing the recording: %w", err)
	}
	if !bytes.Equal(now, src) {
		return fmt.Errorf("%s changed while it was being recorded; nothing written (record it again)", path)
	}
	return scenario.WriteFile(path, out)
}

// tapeLine returns the line of the file's tape: key, or 1.
func tapeLine(src []byte) int {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) == nil && len(doc.Content) == 1 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "tape" {
				return m.Content[i].Line
			}
		}
	}
	return 1
}

// liveRun is one scenario run against the live model.
type liveRun struct {
	tape    []tape.Entry // the new tape, in order
	failure string       // why the recording failed; empty if it did not
	err     error        // the scenario could not be run at all
	calls   int
	usage   llm.Usage
	elapsed time.Duration
	outcome *harness.Outcome
	offered []llm.ToolDefinition // the tools of the first request
	// offeredBlock is what the first request offered, redacted: the
	// scenario's offered block; nil when no request was made.
	offeredBlock *tape.Offered
}

// run runs s with model answering, after the model entries of old (extend
// mode) have been replayed, and returns the tape: old's entries that were
// used, the user turns as they were spoken, and the live calls, redacted.
func (c *recordConfig) run(ctx context.Context, e *env, s *scenario.Scenario, name string, model llm.Model, old []tape.Entry, user harness.UserFunc) *liveRun {
	start := time.Now()
	if s.Setup.Loop.ModelRetryAttempts < 2 && len(s.Faults) == 0 {
		// Transient failures are not the behaviour under test: wait them
		// out as eval does (a 429's Retry-After, a backoff) and record only
		// the answer. A scenario whose setup.loop.model_retry asks for
		// retries, or that scripts faults, records every failure.
		model = c.gateFor(e, name).Retrying(model, eval.DefaultModelRetries)
	}
	lm := &liveModel{rec: replay.NewRecorder(model, &replay.RecorderOptions{Redactor: c.redactor})}
	for _, en := range old {
		if en.User == nil {
			lm.old = append(lm.old, en)
		}
	}
	if len(lm.old) > 0 {
		lm.replay = replay.NewModel(&tape.Tape{Name: s.Name, File: s.RelPath, Entries: lm.old}, &replay.ModelOptions{Redactor: c.redactor})
	}
	users := s.UserTurns()
	if user != nil {
		users = nil // the user model speaks; the tape's turns are an old recording
	}
	spoken := 0
	speak := func(m llm.Message) {
		lm.mu.Lock()
		defer lm.mu.Unlock()
		m = m.Clone()
		c.redactor.RedactMessage(&m)
		lm.tape = append(lm.tape, tape.Entry{User: &m})
		spoken++
	}
	if len(users) > 0 && s.Tape[0].User != nil {
		speak(s.Tape[0].User.Clone())
	}
	progress := newProgress(e, s.Name, start)
	observe := func(ev agent.Event) {
		switch ev.Kind {
		case agent.EventUserMessage:
			if ev.User != nil {
				speak(*ev.User)
			}
		case agent.EventModelResponse, agent.EventModelError:
			calls, usage := lm.counts()
			progress.update(calls, usage)
		}
	}
	o, err := e.run(ctx, s, &harness.RunOptions{Model: lm, ModelName: name, Clock: clock.Real{}, Observer: observe, Tools: e.tools, ConnectMCP: eval.ConnectMCP, User: user})
	progress.done()
	lr := &liveRun{err: err, outcome: o, elapsed: time.Since(start)}
	lr.calls, lr.usage = lm.counts()
	lm.mu.Lock()
	lr.tape, lr.offered = slices.Clone(lm.tape), lm.offered
	lm.mu.Unlock()
	lr.offeredBlock = lm.rec.Tape().Offered
	// User turns the run never reached stay on the tape, at its end.
	for _, u := range users[min(spoken, len(users)):] {
		c.redactor.RedactMessage(&u)
		lr.tape = append(lr.tape, tape.Entry{User: &u})
	}
	if err != nil || ctx.Err() != nil {
		return lr
	}
	switch {
	case lm.diverged != nil:
		lr.failure = fmt.Sprintf("the agent's requests no longer match the tape being extended (re-record it with --mode all): %v", lm.diverged)
	case o.Error != "":
		lr.failure = fmt.Sprintf("the run ended with %s: %s", o.Termination, o.Error)
	case slices.Contains([]agent.Reason{agent.ReasonMaxIterations, agent.ReasonModelError, agent.ReasonCancelled, agent.ReasonHookError}, o.Termination):
		lr.failure = fmt.Sprintf("the run ended with %s", o.Termination)
	case len(o.Unused) > 0:
		lr.failure = strings.Join(texts(o.Unused), "; ")
	case o.Iterations == 0 && !s.ExpectsNoModelCall():
		lr.failure = "the agent made no model call (does it reach the bridge at the base URL it is given?); a scenario whose agent makes none says so with expect.iterations: 0"
	}
	return lr
}

// liveModel serves the old tape's model entries (extend mode), then the
// live model through a Recorder, keeping the new tape in call order.
type liveModel struct {
	rec    *replay.Recorder
	replay *replay.Model // nil: nothing to replay
	old    []tape.Entry

	mu       sync.Mutex
	tape     []tape.Entry
	replayed int
	recorded int
	calls    int
	usage    llm.Usage
	diverged error
	offered  []llm.ToolDefinition
}

// Generate answers req from the old tape while it lasts, then live.
func (m *liveModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	if m.offered == nil {
		m.offered = slices.Clone(req.Tools)
	}
	fromTape := m.replay != nil && m.replayed < len(m.old)
	m.mu.Unlock()
	if fromTape {
		resp, err := m.replay.Generate(ctx, req)
		m.mu.Lock()
		defer m.mu.Unlock()
		if errors.Is(err, replay.ErrDiverged) {
			m.diverged = err
		}
		// The recording goes on from here: its next request is summarised
		// relative to this one.
		m.rec.Follow(req, resp)
		if ctx.Err() == nil {
			m.tape = append(m.tape, m.old[m.replayed])
			m.replayed++
		}
		return resp, err
	}
	resp, err := m.rec.Generate(ctx, req)
	entries := m.rec.Tape().Entries
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(entries) > m.recorded {
		m.tape = append(m.tape, entries[m.recorded:]...)
		m.recorded = len(entries)
		m.calls++
	}
	if resp != nil {
		m.usage = m.usage.Add(resp.Usage)
	}
	return resp, err
}

func (m *liveModel) counts() (int, llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.usage
}

// progress draws one line per scenario on a terminal, rewritten as calls
// come back; elsewhere it draws nothing (the result line follows).
type progress struct {
	w     io.Writer
	name  string
	start time.Time
	on    bool
}

func newProgress(e *env, name string, start time.Time) *progress {
	p := &progress{w: e.stderr, name: name, start: start, on: e.isTerminal}
	p.update(0, llm.Usage{})
	return p
}

func (p *progress) update(calls int, u llm.Usage) {
	if p.on {
		fmt.Fprintf(p.w, "\r\x1b[K  recording %s: %s", report.Printable(p.name), callsAndTokens(calls, u, time.Since(p.start)))
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// callsAndTokens says how much a recording took.
func callsAndTokens(calls int, u llm.Usage, elapsed time.Duration) string {
	plural := "s"
	if calls == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d model call%s, %d tokens in, %d out, %s", calls, plural, u.InputTokens, u.OutputTokens, elapsed.Round(time.Millisecond))
}

// print writes r's result lines to stdout.
func (r *recordResult) print(e *env) {
	switch r.status {
	case "skipped":
		fmt.Fprintf(e.stdout, "skipped   %s  (%s)\n", report.Printable(r.name), r.reason)
		return
	case "error":
		fmt.Fprintf(e.stdout, "ERROR     %s\n    %s\n", report.Printable(r.name), indent(r.reason))
		return
	}
	word := map[string]string{"recorded": "recorded", "failed": "FAILED", "interrupted": "STOPPED"}[r.status]
	fmt.Fprintf(e.stdout, "%-9s %s  %s\n", word, report.Printable(r.name), callsAndTokens(r.calls, r.usage, r.elapsed))
	if r.reason != "" {
		fmt.Fprintf(e.stdout, "    %s\n", indent(r.reason))
	}
	switch {
	case r.answeredBy != "" && r.native:
		fmt.Fprintf(e.stdout, "    answered by %s: opened instead of the scenario's own model (--model); the tape pins the scenario's\n", report.Printable(r.answeredBy))
	case r.answeredBy != "":
		fmt.Fprintf(e.stdout, "    answered by %s: sent instead of the model the agent asked for (--model); the tape pins the agent's\n", report.Printable(r.answeredBy))
	}
	if r.judgeCalls > 0 {
		fmt.Fprintf(e.stdout, "    judged: %d judge call(s), %d tokens in, %d out\n", r.judgeCalls, r.judgeUsage.InputTokens, r.judgeUsage.OutputTokens)
	}
	if r.status == "failed" && r.written {
		fmt.Fprintf(e.stdout, "    written anyway (--keep-failed)\n")
	}
	if v := r.verdict; v != nil {
		verdict := "PASS"
		switch {
		case v.Err != nil:
			verdict = "ERROR"
		case !v.Passed():
			verdict = "FAIL"
		}
		note := ""
		if v.Updated {
			note = " (golden written: " + v.Golden + ")"
		}
		fmt.Fprintf(e.stdout, "    %s replaying the recording%s\n", colour(e, verdict), note)
		if v.Err != nil {
			fmt.Fprintf(e.stdout, "        %s\n", strings.ReplaceAll(indent(v.Err.Error()), "\n", "\n    "))
		}
		for _, f := range v.Failures {
			fmt.Fprintf(e.stdout, "        %s\n", strings.ReplaceAll(indent(f.Error()), "\n", "\n    "))
		}
	}
	if r.share != "" {
		fmt.Fprintf(e.stdout, "    %s\n", r.share)
	}
}

// summary prints the totals and what was redacted, and returns the exit code.
func (c *recordConfig) summary(ctx context.Context, e *env, results []*recordResult, total int) int {
	counts := map[string]int{}
	code := exitOK
	for _, r := range results {
		counts[r.status]++
		switch {
		case r.status == "error":
			code = exitUsage
		case r.status == "failed" || r.status == "interrupted" || r.verdict != nil && !r.verdict.Passed():
			if code == exitOK {
				code = exitFailed
			}
		}
	}
	line := fmt.Sprintf("%d recorded, %d skipped, %d failed", counts["recorded"], counts["skipped"], counts["failed"]+counts["error"])
	if ctx.Err() != nil {
		line += fmt.Sprintf("; interrupted, %d not started", total-len(results)+counts["interrupted"])
		if code == exitOK {
			code = exitFailed
		}
	}
	fmt.Fprintln(e.stdout, line)
	fmt.Fprintln(e.stdout, redactionSummary(c.redactor.Counts()))
	doc := newRecordDocument(c, results, total, ctx.Err() != nil)
	if err := writeJSONOutput(c.jsonOut, c.jsonPath, doc.WriteJSON); err != nil {
		fmt.Fprintf(e.stderr, "evalrun record: --json: %v\n", err)
		return exitUsage
	}
	return code
}

// redactionSummary says how many secrets of each kind were redacted, never
// which.
func redactionSummary(counts map[string]int) string {
	if len(counts) == 0 {
		return "redacted: nothing"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return "redacted: " + strings.Join(parts, ", ")
}
