package evalrun

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/udiff"
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
	update := fs.Bool("update", false, "rewrite the golden files instead of comparing with them; a scenario whose expectations fail still fails")
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

	// Load and select before running, so that --update with --run or --tag
	// rewrites only the selected goldens. A file that does not load is kept
	// unless --run excludes its path: it is reported as an input error.
	var chosen []*replayResult
	for _, t := range targets {
		s, skip, err := t.load(e, "replay")
		switch {
		case skip:
		case err != nil:
			if (re == nil || re.MatchString(t.path)) && shard.Contains(t.path) {
				chosen = append(chosen, &replayResult{Verdict: &harness.Verdict{Path: t.path, Name: t.path, Err: err}})
			}
		case selectedBy(s.Name, s.Tags, re, tags) && shard.Contains(s.Name):
			chosen = append(chosen, &replayResult{Verdict: &harness.Verdict{Scenario: s}})
		}
	}
	// Before any update, which would remove its own golden's quietly.
	reportStaleTemps(e, "replay", args, *update)
	var wg sync.WaitGroup
	sem := make(chan struct{}, *parallel)
	for _, r := range chosen {
		if r.Scenario == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			*r = *replayOne(ctx, e, r.Scenario, &harness.VerifyOptions{Update: *update, Force: *force, Redactor: red}, *repeat)
		}()
	}
	wg.Wait()
	selected := chosen

	if len(selected) == 0 && shard == nil {
		fmt.Fprintln(e.stderr, "evalrun replay: no scenario matches")
		return exitUsage
	}
	orphans, code := orphanResults(e, "replay", args, *prune)
	if code != exitOK {
		return code
	}

	for _, o := range orphans {
		if shard.Contains(o.Name) {
			selected = append(selected, o)
		}
	}
	if len(selected) == 0 {
		fmt.Fprintf(e.stderr, "evalrun replay: shard %s holds no selected scenario\n", shard)
	}
	results := make([]report.ScenarioResult, len(selected))
	for i, r := range selected {
		results[i] = fromharness.ScenarioResult(r.Verdict, r.elapsed)
	}
	report.RedactStrings(&results, red.Quiet)
	rep := report.NewReplay(results, shard)
	if !out.toStdout() {
		writeText(e, selected)
	}
	if code := out.write(e, "replay", rep); code != exitOK {
		return code
	}
	code = exitOK
	for _, r := range selected {
		switch {
		case r.Err != nil:
			code = exitUsage
		case !r.Passed() && code == exitOK:
			code = exitFailed
		}
	}
	return code
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
		first, _ := v.Outcome.Golden()
		for i := 1; i < repeat; i++ {
			again, err := rerun(ctx, s, &harness.RunOptions{Perturb: uint64(i), Tools: userTools})
			if err != nil {
				v.Failures = append(v.Failures, fmt.Sprintf("repeat %d could not run: %v", i+1, err))
				break
			}
			got, _ := again.Golden()
			if string(got) != string(first) {
				v.Failures = append(v.Failures, fmt.Sprintf("nondeterministic: repeat %d (perturbed scheduling) differs from the first run (- first, + repeat):\n%s",
					i+1, udiff.FirstHunk(string(first), string(got))))
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

func writeText(e *env, results []*replayResult) {
	passed, failed, broken, stopped := 0, 0, 0, 0
	for _, r := range results {
		verdict := "PASS"
		switch {
		case r.Interrupted:
			verdict = "STOPPED"
			stopped++
		case r.Err != nil:
			verdict = "ERROR"
			broken++
		case !r.Passed():
			verdict = "FAIL"
			failed++
		default:
			passed++
		}
		note := ""
		switch {
		case r.Updated && len(r.Failures) > 0:
			note = "  (golden written, but the scenario fails, so it is not blessed: fix what follows, or bless it anyway with --update --force)"
		case r.Updated && len(r.Forced) > 0:
			note = "  (golden updated; blessed with --force although expectations failed)"
		case r.Updated:
			note = "  (golden updated)"
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s%s\n", colour(e, verdict), report.Printable(r.Name), formatElapsed(r.elapsed), note)
		if r.Err != nil {
			fmt.Fprintf(e.stdout, "    %s\n", indent(report.Printable(r.Err.Error())))
		}
		for _, f := range r.Failures {
			fmt.Fprintf(e.stdout, "    %s\n", indent(report.Printable(f)))
		}
		for _, f := range r.Forced {
			fmt.Fprintf(e.stdout, "    forced: %s\n", indent(report.Printable(f)))
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", passed, failed+broken+stopped)
	if broken > 0 {
		summary += fmt.Sprintf(" (%d could not be loaded or run)", broken)
	}
	if stopped > 0 {
		summary += fmt.Sprintf(" (%d interrupted: goldens untouched)", stopped)
	}
	fmt.Fprintln(e.stdout, summary)
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
