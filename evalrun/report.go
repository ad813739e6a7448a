package evalrun

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "report", summary: "render a saved JSON result as HTML and JUnit", run: runReport})
}

const reportDoc = `Renders a result saved with --json (replay or eval) as a self-contained HTML
page and/or JUnit XML. At least one of --html and --junit is required.`

func runReport(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "report", "evalrun report --html FILE [--junit FILE] RESULT.json", reportDoc)
	out := addOutputFlags(fs, false)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) != 1 || (out.html == "" && out.junit == "") {
		fmt.Fprintln(e.stderr, "evalrun report: want one RESULT.json and --html FILE or --junit FILE")
		fs.Usage()
		return exitUsage
	}
	r, err := report.Read(args[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun report: %v\n", err)
		return exitUsage
	}
	return out.write(e, "report", r)
}
