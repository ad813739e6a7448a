package evalrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/traceimport"
)

func init() {
	register(&command{name: "import", summary: "turn exported traces into scenarios that replay them", run: runImport})
}

// importDoc is import's --help text.
const importDoc = `Reads exported traces of agent runs (OTLP JSON: the OpenTelemetry file
exporter's or the collector's JSON lines, or one document; GenAI semantic
conventions or OpenInference attributes) and writes one scenario per agent run
into --out: its input, what the model was offered, a tape entry per model call
with its request pinned, the user's turns, and an expect block pre-filled from
the replay and marked REVIEW; its golden is written by replaying it. A native
scenario answers each tool call from a recorded stand-in holding the result the
agent sent back; with --agent or --command the scenario is bridged, and your
agent's own tools run. A folder imports every .json and .jsonl file in it.

A trace recorded without message content, with a tool result no model call asked
for, or with calls whose order it does not tell is refused, naming the span;
nothing is written for it. Secrets are redacted as in a recording. Exit 0 when
every run was imported and replays, 1 when one did not replay (nothing written
for it), 2 on a usage or input error or a refused trace. docs/import.md has
the details.

--select keeps the runs that match every one given: trace=ID (a trace id, or
its start), span=NAME (a span of the run has this name; its agent's name
counts too), time=FROM..TO (RFC 3339 times, either end left open; the run's
calls overlap it).`

func runImport(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "import", "evalrun import [--out DIR] [--agent NAME | --command 'PROGRAM ARGS'] [--select KEY=VALUE] [--by-trace] [--no-golden] [--redact-env NAME] [--redact REGEXP] TRACE_FILE|DIR...", importDoc)
	out := fs.String("out", "scenarios/imported", "the folder the scenarios are written into")
	agentGo := fs.String("agent", "", "make the scenarios bridged, run by the Go agent registered under this name")
	command := fs.String("command", "", "make the scenarios bridged, run by this program (split at spaces; $SCENARIO_DIR is the scenario's folder)")
	byTrace := fs.Bool("by-trace", false, "keep each trace's runs apart even when they share a gen_ai.conversation.id")
	noGolden := fs.Bool("no-golden", false, "do not write the goldens")
	var selects stringList
	fs.Var(&selects, "select", "keep only the runs that match: trace=ID, span=NAME or time=FROM..TO (repeatable; all must match)")
	redact := addRedactFlags(fs)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "evalrun import: "+format+"\n", a...)
		return exitUsage
	}
	if len(args) == 0 {
		return fail("name a trace file or a folder of them")
	}
	if *agentGo != "" && *command != "" {
		return fail("--agent and --command both name the agent: give one")
	}
	sel, err := parseSelects(selects)
	if err != nil {
		return fail("%v", err)
	}
	red, err := redact.newRedactor()
	if err != nil {
		return fail("%v", err)
	}
	e = e.redacting(red)
	files, err := traceFiles(args)
	if err != nil {
		return fail("%v", err)
	}
	im := &importer{e: e, out: *out, red: red, noGolden: *noGolden,
		opts: traceimport.ScenarioOptions{Redactor: red, AgentGo: *agentGo, AgentCommand: strings.Fields(*command)},
		runs: &traceimport.RunsOptions{ByTrace: *byTrace}, sel: sel, code: exitOK}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		im.file(ctx, f)
	}
	fmt.Fprintf(e.stdout, "%d imported, %d refused, %d failed\n", im.imported, im.refused, im.failed)
	if im.selected == 0 && len(sel) > 0 && im.code == exitOK {
		fmt.Fprintln(e.stderr, "evalrun import: no run matched --select")
		return exitUsage
	}
	fmt.Fprintln(e.stdout, redactionSummary(red.Counts()))
	if ctx.Err() != nil && im.code == exitOK {
		return exitFailed
	}
	return im.code
}

// importer imports trace files one after another.
type importer struct {
	e        *env
	out      string
	red      *redact.Redactor
	noGolden bool
	opts     traceimport.ScenarioOptions
	runs     *traceimport.RunsOptions
	sel      []selector
	code     int
	// the counts of the closing line, and of the runs --select kept
	imported, refused, failed, selected int
}

// worse keeps the worse of two exit codes: 2 over 1 over 0.
func (im *importer) worse(code int) {
	if code == exitUsage || im.code == exitOK {
		im.code = code
	}
}

// file imports every run of one trace file.
func (im *importer) file(ctx context.Context, path string) {
	e := im.e
	spans, err := traceimport.ReadFile(path)
	if err == nil {
		var runs []*traceimport.Run
		if runs, err = traceimport.Runs(spans, im.runs); err == nil {
			var kept []*traceimport.Run
			for _, r := range runs {
				if matchAll(im.sel, r, spans) {
					kept = append(kept, r)
				}
			}
			im.selected += len(kept)
			for i, r := range kept {
				im.run(ctx, path, r, i, len(kept))
			}
			return
		}
	}
	// A file that is not a trace, or one whose runs cannot be imported:
	// either way nothing of it is written.
	im.refused++
	fmt.Fprintf(e.stdout, "REFUSED   %s\n    %s\n", report.Printable(path), indent(err.Error()))
	im.worse(exitUsage)
}

// run imports run r, the i-th of n kept from the trace file path.
func (im *importer) run(ctx context.Context, path string, r *traceimport.Run, i, n int) {
	e := im.e
	name := traceStem(path)
	if n > 1 {
		name += fmt.Sprintf("-%d", i+1)
	}
	dest := filepath.Join(im.out, name+".yaml")
	refused := func(err error) {
		im.refused++
		fmt.Fprintf(e.stdout, "REFUSED   %s\n    %s\n", report.Printable(dest), indent(err.Error()))
		im.worse(exitUsage)
	}
	if _, err := os.Lstat(dest); err == nil {
		refused(fmt.Errorf("%s already exists: import into another --out, or delete it first", dest))
		return
	} else if !errors.Is(err, fs.ErrNotExist) {
		refused(err)
		return
	}
	opts := im.opts
	opts.Source = filepath.Base(path)
	doc, err := traceimport.Scenario(r, &opts)
	if err != nil {
		refused(err)
		return
	}
	s, err := im.load(doc, dest)
	if err != nil {
		refused(err)
		return
	}
	// Replay it once to fill in expect, and to refuse a run that does not
	// replay before anything is written.
	o, err := e.run(ctx, s, &harness.RunOptions{Tools: e.tools})
	if err == nil && (o.Diverged || len(o.Unused) > 0 || len(o.Refused) > 0) {
		why := append(append([]string{o.Error}, texts(o.Unused)...), o.Refused...)
		err = fmt.Errorf("%s: the imported scenario does not replay: %s", dest, strings.Join(slices.DeleteFunc(why, func(s string) bool { return s == "" }), "; "))
	}
	if err != nil {
		im.failed++
		fmt.Fprintf(e.stdout, "FAILED    %s\n    %s\n", report.Printable(dest), indent(err.Error()))
		im.worse(exitFailed)
		return
	}
	yamlx.Add(doc, "expect", expectNode(o, im.red))
	doc.Content[len(doc.Content)-2].HeadComment = importReviewNote
	data, err := marshalScenario(doc)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(dest), 0o755); err == nil {
			err = atomicfile.WriteFile(dest, data)
		}
	}
	if err != nil {
		refused(err)
		return
	}
	im.imported++
	fmt.Fprintf(e.stdout, "imported  %s  (%s)\n", report.Printable(dest), report.Printable(r.String()+", "+r.Vocabulary()))
	if im.noGolden {
		return
	}
	s, err = scenario.Load(dest)
	if err != nil {
		fmt.Fprintf(e.stdout, "    ERROR %s\n", indent(err.Error()))
		im.worse(exitUsage)
		return
	}
	v := e.verify(ctx, s, &harness.VerifyOptions{Update: true, Tools: e.tools, Checks: e.checks})
	switch {
	case v.Err != nil:
		fmt.Fprintf(e.stdout, "    ERROR %s\n", indent(v.Err.Error()))
		im.worse(exitUsage)
	case !v.Passed():
		fmt.Fprintf(e.stdout, "    FAIL  %s\n", indent(strings.Join(texts(v.Failures), "\n")))
		im.worse(exitFailed)
	default:
		fmt.Fprintf(e.stdout, "    PASS  golden written: %s\n", v.Golden)
	}
}

// importReviewNote heads the expect block import fills in.
const importReviewNote = "REVIEW: pre-filled by evalrun import from the replay of the trace.\n" +
	"Keep what must hold on every run, loosen or delete the rest."

// load parses the scenario document as the file dest would hold it.
func (im *importer) load(doc *yaml.Node, dest string) (*scenario.Scenario, error) {
	data, err := marshalScenario(doc)
	if err != nil {
		return nil, err
	}
	s, err := scenario.Parse(data, dest, scenario.DefaultName(dest))
	if err != nil {
		return nil, err
	}
	if s.Setup.Agent == nil {
		if err := harness.Validate(s, &harness.RunOptions{Tools: im.e.tools, Checks: im.e.checks}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// marshalScenario writes doc as scenarios are written: a blank line before
// each top-level section.
func marshalScenario(doc *yaml.Node) ([]byte, error) {
	out, err := yamlx.Marshal(doc)
	if err != nil {
		return nil, err
	}
	text := string(out)
	for _, k := range []string{"setup:", "input:", "offered:", "tape:", "# REVIEW"} {
		text = strings.Replace(text, "\n"+k, "\n\n"+k, 1)
	}
	return []byte(text), nil
}

// traceStem is the name of a trace file without its folder and its
// .json, .jsonl and .otlp extensions, made safe for a scenario name.
func traceStem(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".json", ".jsonl", ".otlp"} {
		base = strings.TrimSuffix(base, ext)
	}
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	s := strings.Trim(string(b), ".")
	if s == "" {
		s = "trace"
	}
	return s
}

// traceFiles expands the arguments: a file as it is, a folder into its
// .json and .jsonl files (not its subfolders), in name order.
func traceFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, de := range entries {
			if ext := filepath.Ext(de.Name()); de.Type().IsRegular() && (ext == ".json" || ext == ".jsonl") {
				files = append(files, filepath.Join(a, de.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no .json or .jsonl file in the folder", a)
		}
	}
	return files, nil
}
