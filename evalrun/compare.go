package evalrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "compare", summary: "compare two eval reports (a baseline and a later run), regressions first", run: runCompare})
}

// compareDoc is compare's --help text.
const compareDoc = `Compares the eval report B.json (a later run) with A.json (the baseline),
scenario by scenario, regressions first. Each scenario's change is tested with
Fisher's exact test on its trials (Holm-corrected over the scenarios), and the
suite's difference in mean pass rate gets a 95% interval from a hierarchical
bootstrap (scenarios, then trials within each; fixed seed, so the output is the
same on every run). "no significant change" means the trials cannot tell the
runs apart; the table says how many trials per run would, and the closing
lines how many would detect a drop of --detect in one scenario (Fisher) and
in the suite's mean pass rate (the bootstrap). --json FILE also writes it all
as JSON (tapeloop-compare/v1; - for standard output, the text then on
standard error).

--fail-on regression (the default) exits 1 only on a significant regression:
a scenario whose drop is significant, or a suite interval wholly below zero.
--fail-on drop exits 1 on any drop in a scenario's pass rate, significant or
not; --fail-on never exits 0 whatever changed. Whatever --fail-on says, it
exits 1 when B.json's trials errored (a failed model call: a refused key, a
provider down), whose scores say nothing, unless --allow-errors; and when no
scenario has scored trials in both reports, so nothing was compared. Exit 2 on
a usage or input error.`

// The values of compare --fail-on.
const (
	failOnRegression = "regression"
	failOnDrop       = "drop"
	failOnNever      = "never"
)

func runCompare(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "compare", "evalrun compare [--model-a M] [--model-b M] [--fail-on regression|drop|never] [--json FILE] A.json B.json", compareDoc)
	modelA := fs.String("model-a", "", "the model of A.json to compare (default: as --model-b when that is given, else its only model, or the model both reports share)")
	modelB := fs.String("model-b", "", "the model of B.json to compare (default: as --model-a)")
	failOn := fs.String("fail-on", failOnRegression, "when to exit 1: `regression` (a significant one), drop (any drop), never")
	allowErrors := fs.Bool("allow-errors", false, "compare the scored trials even when trials of B.json errored (by default that fails)")
	detect := fs.Float64("detect", 0.1, "the drop in pass rate to size the trials for, in one scenario and over the suite, in the closing lines (0: no lines)")
	var jsonPath string
	addJSONFlag(fs, &jsonPath, report.CompareFormat)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) != 2 {
		fs.Usage()
		return exitUsage
	}
	switch *failOn {
	case failOnRegression, failOnDrop, failOnNever:
	default:
		fmt.Fprintf(e.stderr, "evalrun compare: --fail-on %q: want regression, drop or never\n", *failOn)
		return exitUsage
	}
	if !(*detect >= 0 && *detect <= 1) { // NaN too
		fmt.Fprintf(e.stderr, "evalrun compare: --detect %v: want a drop in pass rate from 0 to 1\n", *detect)
		return exitUsage
	}
	var reports [2]*report.Eval
	for i, path := range args {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun compare: %v\n", err)
			return exitUsage
		}
		reports[i], err = report.ReadEval(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun compare: %s: %v\n", path, err)
			return exitUsage
		}
	}
	a, b := reports[0], reports[1]
	ma, mb, err := pickModels(a, b, *modelA, *modelB)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun compare: %v\n", err)
		return exitUsage
	}
	opts := eval.DiffText{Drop: *detect}
	if ma == mb {
		opts.LabelA, opts.LabelB = runLabels(args[0], args[1])
	}
	// The work is bounded (ReadEval refuses a row over
	// report.MaxScenarioTrials), but a signal still stops it.
	interrupted := func() int {
		fmt.Fprintln(e.stderr, "evalrun compare: interrupted; nothing compared")
		return exitFailed
	}
	if ctx.Err() != nil {
		return interrupted()
	}
	var changes []eval.Change
	var comparison *report.EvalComparison
	var doc *report.Compare
	done := make(chan struct{})
	go func() {
		defer close(done)
		changes = eval.Diff(a, b, ma, mb)
		comparison = eval.CompareReports(a, b, ma, mb)
		doc = eval.NewCompare(changes, comparison, opts)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return interrupted()
	}
	doc.A.File, doc.B.File = args[0], args[1]
	doc.FailOn, doc.Failed = *failOn, compareFails(*failOn, changes, comparison)
	if n, total := erroredTrials(b, mb); n > 0 && !*allowErrors {
		fmt.Fprintf(e.stderr, "evalrun compare: %s: %d of %d trials of %s errored (a failed model call), so the run says nothing about the model; the gate fails (--allow-errors compares the scored trials only)\n",
			report.Printable(args[1]), n, total, report.Printable(mb))
		doc.Failed = true
	}
	if comparison.Scenarios == 0 {
		fmt.Fprintf(e.stderr, "evalrun compare: no scenario has scored trials in both reports, so nothing was compared; the gate fails\n")
		doc.Failed = true
	}
	text := e.stdout
	if jsonPath == "-" {
		text = e.stderr
	}
	if err := eval.WriteDiff(text, changes, comparison, opts); err != nil {
		fmt.Fprintf(e.stderr, "evalrun compare: %v\n", err)
		return exitUsage
	}
	if err := writeJSONOutput(e, jsonPath, doc.WriteJSON); err != nil {
		fmt.Fprintf(e.stderr, "evalrun compare: --json: %v\n", err)
		return exitUsage
	}
	if doc.Failed {
		return exitFailed
	}
	return exitOK
}

// erroredTrials returns how many of model's trials in r errored, and how
// many ran (scored or errored).
func erroredTrials(r *report.Eval, model string) (errored, total int) {
	for _, m := range r.Models {
		if m.Name == model {
			return m.Errors, m.Trials + m.Errors
		}
	}
	return 0, 0
}

// compareFails reports whether the --fail-on rule fails the comparison:
// regression, on a significant drop in a scenario or a suite interval
// wholly below zero; drop, on any drop in a scenario's pass rate; never,
// never.
func compareFails(failOn string, changes []eval.Change, c *report.EvalComparison) bool {
	for _, ch := range changes {
		switch {
		case failOn == failOnRegression && ch.Regressed(),
			failOn == failOnDrop && ch.A != nil && ch.B != nil && ch.Delta < 0:
			return true
		}
	}
	return failOn == failOnRegression && c.Better == "a"
}

// runLabels names two reports of the same model by their files: the base
// names, or the paths as given when the base names are the same.
func runLabels(a, b string) (string, string) {
	if ba, bb := filepath.Base(a), filepath.Base(b); ba != bb {
		return ba, bb
	}
	return a, b
}

// pickModels chooses the models to compare: the ones named, else each
// report's only model, else the one model both reports have.
func pickModels(a, b *report.Eval, ma, mb string) (string, string, error) {
	has := func(r *report.Eval, m string) bool {
		for _, x := range r.Models {
			if x.Name == m {
				return true
			}
		}
		return false
	}
	if ma == "" && mb != "" {
		ma = mb
	}
	if mb == "" && ma != "" {
		mb = ma
	}
	if ma == "" {
		switch {
		case len(a.Models) == 1 && len(b.Models) == 1:
			ma, mb = a.Models[0].Name, b.Models[0].Name
		default:
			var shared []string
			for _, m := range a.Models {
				if has(b, m.Name) {
					shared = append(shared, m.Name)
				}
			}
			if len(shared) != 1 {
				return "", "", fmt.Errorf("the reports share %d models %v: name the ones to compare with --model-a and --model-b", len(shared), shared)
			}
			ma, mb = shared[0], shared[0]
		}
	}
	if !has(a, ma) {
		return "", "", fmt.Errorf("A has no model %s", ma)
	}
	if !has(b, mb) {
		return "", "", fmt.Errorf("B has no model %s", mb)
	}
	return ma, mb, nil
}
