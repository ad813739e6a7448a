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
page, JUnit XML and/or JSON again (in the current writer's form). At least one
of --html, --junit and --json is required; - writes to standard output.`

func runReport(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "report", "evalrun report --html FILE [--junit FILE] [--json FILE] RESULT.json", reportDoc)
	out := addOutputFlags(fs, false, "as RESULT.json")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if code := out.check(e, "report"); code != exitOK {
		return code
	}
	if len(args) != 1 || !out.any() {
		fmt.Fprintln(e.stderr, "evalrun report: want one RESULT.json and --html FILE, --junit FILE or --json FILE")
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
