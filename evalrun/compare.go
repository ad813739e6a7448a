package evalrun

import (
	"context"
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "compare", summary: "compare two eval reports (a baseline and a later run), regressions first", run: runCompare})
}

// compareDoc is compare's --help text.
const compareDoc = `Compares the eval report B.json (a later run) with A.json (the baseline),
scenario by scenario, regressions first, and gives the difference in pass rate
with a 95% paired bootstrap interval. Exit 0 when no scenario's pass rate
dropped, 1 when one did, 2 on a usage or input error.`

func runCompare(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "compare", "evalrun compare [--model-a M] [--model-b M] A.json B.json", compareDoc)
	modelA := fs.String("model-a", "", "the model of A.json to compare (default: its only model, or the model both reports share)")
	modelB := fs.String("model-b", "", "the model of B.json to compare (default: as --model-a)")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) != 2 {
		fs.Usage()
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
	changes := eval.Diff(a, b, ma, mb)
	if err := eval.WriteDiff(e.stdout, changes, eval.CompareReports(a, b, ma, mb)); err != nil {
		fmt.Fprintf(e.stderr, "evalrun compare: %v\n", err)
		return exitUsage
	}
	for _, c := range changes {
		if c.Regressed() {
			return exitFailed
		}
	}
	return exitOK
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
