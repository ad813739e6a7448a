package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/gcpace"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/report/fromharness"
	"github.com/tapeloop/tapeloop/scenario"
)

func init() {
	register(&command{name: "replay", summary: "replay scenarios and compare them with their goldens (the default)", run: runReplay})
}

// replayResult is one scenario's verdict and how long it took.
type replayResult struct {
	*harness.Verdict
	elapsed time.Duration
}

// replayDoc is replay's --help text.
const replayDoc = `Replays each scenario against its tape and compares the outcome with its golden
file (NAME.golden.yaml beside it) and its expect block. A golden file that no
scenario refers to (an orphan) fails the replay unless --prune deletes it. YAML
files under a folder that are not scenarios (no format: line) are skipped with a
note. Flags may follow the paths.`

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "replay", "evalrun replay [flags] [scenario files or folders (default: scenarios)]", replayDoc)
	runRE := fs.String("run", "", "replay only scenarios whose name matches this regular expression")
	var tags stringList
	fs.Var(&tags, "tag", "replay only scenarios with this tag (repeatable, or comma-separated)")
	update := fs.Bool("update", false, "rewrite the golden files instead of comparing with them; a scenario whose expectations fail still fails, and one whose agent could not do its job (could not start, stopped before its first model request, left tape entries unused) keeps its golden and fails")
	force := fs.Bool("force", false, "with --update, bless scenarios whose expectations fail (exit 0); a run that diverges from its tape still fails")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "replay this many scenarios at once")
	repeat := fs.Int("repeat", 1, "replay each scenario this many times, perturbing a native run's scheduling (a bridged agent schedules itself), and fail if any outcome differs")
	out := addOutputFlags(fs, true, report.ReplayFormat)
	prune := fs.Bool("prune", false, "delete golden files that no scenario refers to (orphans), instead of failing on them")
	redact := addRedactFlags(fs)
	addSandboxFlag(fs, e)
	addAllowHostFlag(fs, e)
	args, code, ok := parseFlags(e, fs, jsonSwitch(args))
	if !ok {
		return code
	}
	red, err := redact.newRedactor()
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun replay: %v\n", err)
		return exitUsage
	}
	// What the replay prints and writes goes through the policy, as its
	// goldens do: an agent's answer or stderr may hold a secret.
	e = e.redacting(red)
	if code := out.check(e, "replay"); code != exitOK {
		return code
	}
	if *force && !*update {
		fmt.Fprintln(e.stderr, "evalrun replay: --force goes with --update")
		return exitUsage
	}
	if *parallel < 1 || *repeat < 1 {
		fmt.Fprintln(e.stderr, "evalrun replay: --parallel and --repeat must be at least 1")
		return exitUsage
	}
	var re *regexp.Regexp
	if *runRE != "" {
		if re, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintf(e.stderr, "evalrun replay: --run: %v\n", err)
			return exitUsage
		}
	}
	shard, code := shardOf(e, "replay", out)
	if code != exitOK {
		return code
	}
	targets, code := discover(e, "replay", args)
	if code != exitOK {
		return code
	}

	// Before any update, which would remove its own golden's quietly.
	reportStaleTemps(e, "replay", args, *update)
	run := &replayRun{e: e, red: red, text: !out.toStdout(), pace: startPacer()}
	defer run.pace.Stop()
	if out.any() {
		if run.spool, err = newSpool(); err != nil {
			fmt.Fprintf(e.stderr, "evalrun replay: %v\n", err)
			return exitUsage
		}
		defer run.spool.close()
	}
	// Each scenario is loaded, selected, replayed and reported by a worker,
	// at most --parallel at once, and its result kept only as the reports
	// need it (the spool) and as its text (printed in the order the
	// scenarios were found): memory does not grow with the suite. A file
	// is selected before it runs, so that --update with --run or --tag
	// rewrites only the selected goldens; one that does not load is kept
	// unless --run excludes its path, and reported as an input error.
	done := make(chan replayed, *parallel)
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		run.printInOrder(done)
	}()
	var wg sync.WaitGroup
	sem := make(chan struct{}, *parallel)
	opts := &harness.VerifyOptions{Update: *update, Force: *force, Redactor: red}
	for i, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			done <- run.one(ctx, i, t, re, tags, shard, opts, *repeat)
		}()
	}
	wg.Wait()
	close(done)
	<-printed

	if run.chosen == 0 && shard == nil {
		fmt.Fprintln(e.stderr, "evalrun replay: no scenario matches")
		return exitUsage
	}
	orphans, code := orphanResults(e, "replay", args, *prune)
	if code != exitOK {
		return code
	}
	for i, o := range orphans {
		if shard.Contains(o.Name) {
			run.emit(run.finish(len(targets)+i, o))
		}
	}
	if run.chosen == 0 {
		fmt.Fprintf(e.stderr, "evalrun replay: shard %s holds no selected scenario\n", shard)
	}
	if run.err != nil {
		fmt.Fprintf(e.stderr, "evalrun replay: %v\n", run.err)
		return exitUsage
	}
	if run.text {
		run.tally.write(e.stdout)
	}
	if run.spool != nil {
		sum := run.spool.sort()
		if code := out.write(e, "replay", &report.ReplayStream{Shard: shard, Summary: sum, Source: run.spool}); code != exitOK {
			return code
		}
	}
	return run.code
}

// startPacer starts the collector's pacing for a command that replays
// scenarios (gcpace): its heap stays near 10 times the scenario files
// being replayed at once, or 12 MB when that is more. Not in a test
// binary, which runs many commands at once in one process with a heap of
// its own (the pacer is process-wide), nor when GOGC or GOMEMLIMIT is set.
func startPacer() *gcpace.Pacer {
	if testing.Testing() {
		return nil
	}
	return gcpace.Start(os.Getenv)
}

// replayRun is one replay command's state as its scenarios finish: the
// spool the reports read (nil when none is asked for), the text's tally,
// the exit code so far.
type replayRun struct {
	e    *env
	red  *redact.Redactor
	text bool
	// spool is nil when no --json, --junit or --html is asked for.
	spool *spool
	// pace keeps the heap near what the scenarios being replayed allow
	// (gcpace); nil does nothing.
	pace *gcpace.Pacer

	// Set by printInOrder and emit, in one goroutine.
	tally  tally
	chosen int
	code   int
	err    error
}

// replayed is what a worker leaves of one scenario found: a note for
// standard error, and when the scenario was selected its text and
// verdict.
type replayed struct {
	seq    int
	note   string
	chosen bool
	text   string
	// verdict is PASS, FAIL, ERROR or STOPPED.
	verdict string
	err     error
}

// one loads, selects and replays the seq'th target.
func (run *replayRun) one(ctx context.Context, seq int, t target, re *regexp.Regexp, tags []string, shard *report.Shard, opts *harness.VerifyOptions, repeat int) replayed {
	var note bytes.Buffer
	e := *run.e
	e.stderr = &note
	defer run.pace.Hold(fileSize(t.path))()
	s, skip, err := t.load(&e, "replay")
	r := replayed{seq: seq}
	switch {
	case skip:
	case err != nil:
		if (re == nil || re.MatchString(t.path)) && shard.Contains(t.path) {
			r = run.finish(seq, &replayResult{Verdict: &harness.Verdict{Path: t.path, Name: t.path, Err: err}})
		}
	case selectedBy(s.Name, s.Tags, re, tags) && shard.Contains(s.Name):
		r = run.finish(seq, replayOne(ctx, run.e, s, opts, repeat))
	}
	r.note = note.String()
	return r
}

// finish keeps the result of the seq'th scenario for the reports and
// renders its text; the verdict is dropped.
func (run *replayRun) finish(seq int, v *replayResult) replayed {
	r := replayed{seq: seq, chosen: true, verdict: verdictOf(v)}
	if run.spool != nil {
		res := fromharness.ScenarioResult(v.Verdict, v.elapsed)
		// The spool keeps JSON, which holds UTF-8 only: an invalid byte is
		// U+FFFD in every report, as it was in the JSON.
		report.RedactStrings(&res, func(s string) string { return strings.ToValidUTF8(run.red.Quiet(s), "\uFFFD") })
		r.err = run.spool.add(seq, &res)
	}
	if run.text {
		var b strings.Builder
		writeResult(&b, run.e, v)
		r.text = b.String()
	}
	return r
}

// printInOrder emits the results from done in the order the scenarios
// were found, keeping those that finish early until their turn.
func (run *replayRun) printInOrder(done <-chan replayed) {
	waiting := map[int]replayed{}
	next := 0
	for r := range done {
		waiting[r.seq] = r
		for {
			r, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			run.emit(r)
		}
	}
}

// emit prints one result's note and text and counts it.
func (run *replayRun) emit(r replayed) {
	if r.note != "" {
		io.WriteString(run.e.stderr, r.note)
	}
	if r.err != nil && run.err == nil {
		run.err = r.err
	}
	if !r.chosen {
		return
	}
	run.chosen++
	if run.text {
		io.WriteString(run.e.stdout, r.text)
	}
	run.tally.add(r.verdict)
	switch {
	case r.verdict == "ERROR":
		run.code = exitUsage
	case r.verdict != "PASS" && run.code == exitOK:
		run.code = exitFailed
	}
}

// replayOne verifies a scenario and, when asked, runs it repeat-1 more times
// with perturbed scheduling, comparing each outcome with the first.
func replayOne(ctx context.Context, e *env, s *scenario.Scenario, opts *harness.VerifyOptions, repeat int) *replayResult {
	start := time.Now()
	userTools := e.tools
	rerun := e.rerun
	if rerun == nil {
		rerun = e.run
	}
	v := e.verify(ctx, s, &harness.VerifyOptions{Update: opts.Update, Force: opts.Force, Tools: userTools, Checks: e.checks, Command: e.prog(), Redactor: opts.Redactor})
	// A bridged agent's scheduling is its own (Perturb reaches only the
	// native loop), but running it again still finds an outcome that
	// depends on it: the order its concurrent requests arrive in.
	if v.Outcome != nil && repeat > 1 {
		first, _ := v.Outcome.Golden(redact.Default())
		for i := 1; i < repeat; i++ {
			again, err := rerun(ctx, s, &harness.RunOptions{Perturb: uint64(i), Tools: userTools, Redactor: opts.Redactor})
			if err != nil {
				v.Failures = append(v.Failures, &fileerr.Error{Problem: fmt.Sprintf("repeat %d could not run: %v", i+1, err), Kind: err})
				break
			}
			got, _ := again.Golden(redact.Default())
			if string(got) != string(first) {
				v.Failures = append(v.Failures, &fileerr.Error{Problem: fmt.Sprintf("nondeterministic: repeat %d (perturbed scheduling) differs from the first run (- first, + repeat):\n%s",
					i+1, udiff.FirstHunk(string(first), string(got)))})
				break
			}
		}
	}
	return &replayResult{Verdict: v, elapsed: time.Since(start)}
}

func selectedBy(name string, scenarioTags []string, re *regexp.Regexp, tags []string) bool {
	if re != nil && !re.MatchString(name) {
		return false
	}
	if len(tags) == 0 {
		return true
	}
	for _, t := range tags {
		if slices.Contains(scenarioTags, t) {
			return true
		}
	}
	return false
}

// verdictOf is a result's verdict in the text: PASS, FAIL, ERROR or
// STOPPED (interrupted).
func verdictOf(r *replayResult) string {
	switch {
	case r.Interrupted:
		return "STOPPED"
	case r.Err != nil:
		return "ERROR"
	case !r.Passed():
		return "FAIL"
	}
	return "PASS"
}

// writeResult writes one result's text: its verdict line, then its error,
// failures, forced failures and what its agent program's sandbox did not
// hold (Outcome.Sandbox).
func writeResult(w io.Writer, e *env, r *replayResult) {
	note := ""
	switch {
	case r.Updated && len(r.Failures) > 0:
		note = "  (golden written, but the scenario fails, so it is not blessed: fix what follows, or bless it anyway with --update --force)"
	case r.Updated && len(r.Forced) > 0:
		note = "  (golden updated; blessed with --force although expectations failed)"
	case r.Updated:
		note = "  (golden updated)"
	}
	fmt.Fprintf(w, "%s  %s  %s%s\n", colour(e, verdictOf(r)), report.Printable(r.Name), formatElapsed(r.elapsed), note)
	if r.Err != nil {
		fmt.Fprintf(w, "    %s\n", indent(report.Printable(r.Err.Error())))
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "    %s\n", indent(report.Printable(f.Error())))
	}
	for _, f := range r.Forced {
		fmt.Fprintf(w, "    forced: %s\n", indent(report.Printable(f.Error())))
	}
	if r.Outcome != nil {
		for _, n := range r.Outcome.Sandbox {
			fmt.Fprintf(w, "    sandbox: %s\n", indent(report.Printable(n)))
		}
	}
}

// tally counts the verdicts of a replay's text, for its last line.
type tally struct{ passed, failed, broken, stopped int }

func (t *tally) add(verdict string) {
	switch verdict {
	case "PASS":
		t.passed++
	case "FAIL":
		t.failed++
	case "ERROR":
		t.broken++
	case "STOPPED":
		t.stopped++
	}
}

// write writes the summary line.
func (t *tally) write(w io.Writer) {
	summary := fmt.Sprintf("%d passed, %d failed", t.passed, t.failed+t.broken+t.stopped)
	if t.broken > 0 {
		summary += fmt.Sprintf(" (%d could not be loaded or run)", t.broken)
	}
	if t.stopped > 0 {
		summary += fmt.Sprintf(" (%d interrupted: goldens untouched)", t.stopped)
	}
	fmt.Fprintln(w, summary)
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") }

func formatElapsed(d time.Duration) string {
	return d.Round(10 * time.Microsecond).String()
}

func colour(e *env, verdict string) string {
	padded := fmt.Sprintf("%-5s", verdict)
	if !e.isTerminal {
		return padded
	}
	code := map[string]string{"PASS": "32", "FAIL": "31", "ERROR": "35", "STOPPED": "33"}[verdict]
	return "\x1b[" + code + "m" + padded + "\x1b[0m"
}

// stringList is a repeatable, comma-separable flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

// texts is the text of each of errs, in order, as lists and reports show
// them; nil for none.
func texts(errs []*fileerr.Error) []string {
	if errs == nil {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
