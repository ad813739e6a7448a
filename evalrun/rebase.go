package evalrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

func init() {
	register(&command{name: "rebase", summary: "accept changed requests (prompt, tools, tool results) into recorded tapes, offline", run: runRebase})
}

// rebaseDoc is rebase's --help text.
const rebaseDoc = `Replays each scenario and, where its requests differ from the recorded ones
only in what the agent sends (system prompt, tool definitions, tool results,
user-turn wording) while the recorded responses still apply (every called tool
is still offered, arguments that passed the recorded schema pass the current
one), rewrites the request parts of the tape in place (comments and key order
kept, atomically), re-blesses the golden and prints the diff of each change.
A scenario whose recorded response no longer applies is refused: it must be
recorded again (the entry is named). So is one whose run fails for another
reason (an expectation, entries left unused). No model is called. --json FILE
also writes the results as JSON (tapeloop-rebase/v1; - for standard output,
the text then on standard error).`

func runRebase(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "rebase", "evalrun rebase [--run REGEXP] [--dry-run] [--all] [--json FILE] [--redact-env NAME] [--redact REGEXP] FILE|DIR...", rebaseDoc)
	runRE := fs.String("run", "", "rebase only scenarios whose name matches this regular expression")
	dry := fs.Bool("dry-run", false, "print the changes, write nothing")
	all := fs.Bool("all", false, "pin every part of every request (the offered block, each entry's new messages), not only the parts the tape states")
	var jsonPath string
	addJSONFlag(fs, &jsonPath, rebaseFormat)
	redact := addRedactFlags(fs)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	red, err := redact.newRedactor()
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun rebase: %v\n", err)
		return exitUsage
	}
	// The requests, the golden, the diffs printed and the JSON go through
	// the one policy, as record's do.
	e = e.redacting(red)
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "evalrun rebase: name the scenario files or folders to rebase")
		return exitUsage
	}
	var re *regexp.Regexp
	if *runRE != "" {
		if re, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintf(e.stderr, "evalrun rebase: --run: %v\n", err)
			return exitUsage
		}
	}
	targets, code := discover(e, "rebase", args)
	if code != exitOK {
		return code
	}
	out := e // where --json - goes
	if jsonPath == "-" {
		// The JSON takes standard output; the text goes to standard error.
		text := *e
		text.stdout = e.stderr
		e = &text
	}
	doc := &rebaseDocument{Format: rebaseFormat, DryRun: *dry, Scenarios: []rebaseScenario{}}
	counts := map[string]int{}
	code = exitOK
	selected := 0
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		s, skip, err := t.load(e, "rebase")
		switch {
		case skip:
			continue
		case err != nil:
			if re == nil || re.MatchString(t.path) {
				fmt.Fprintf(e.stdout, "ERROR     %s\n    %s\n", report.Printable(t.path), indent(report.Printable(err.Error())))
				doc.add(t.path, &rebaseResult{name: t.path, status: "error", reasons: []string{err.Error()}})
				counts["error"]++
				code = exitUsage
				selected++
			}
			continue
		case re != nil && !re.MatchString(s.Name):
			continue
		}
		selected++
		r := rebaseOne(ctx, e, s, *dry, *all, red)
		r.print(e, *dry)
		doc.add(t.path, r)
		counts[r.status]++
		switch {
		case r.status == "error":
			code = exitUsage
		case (r.status == "refused" || r.status == "failed") && code == exitOK:
			code = exitFailed
		}
	}
	if selected == 0 {
		fmt.Fprintln(e.stderr, "evalrun rebase: no scenario matches")
		return exitUsage
	}
	verb := "rebased"
	if *dry {
		verb = "to rebase"
	}
	fmt.Fprintf(e.stdout, "%d %s, %d unchanged, %d refused, %d failed\n", counts["rebased"], verb, counts["unchanged"], counts["refused"], counts["failed"]+counts["error"])
	doc.Interrupted = ctx.Err() != nil
	if err := writeOutput(out, jsonPath, func(w io.Writer) error { return doc.WriteJSON(red.Writer(w)) }); err != nil {
		fmt.Fprintf(e.stderr, "evalrun rebase: --json: %v\n", err)
		return exitUsage
	}
	return code
}

// rebaseResult is what rebasing one scenario did.
type rebaseResult struct {
	name string
	// status is rebased, unchanged, refused (a response no longer applies,
	// or the rebased run fails), failed (nothing to rebase, and the
	// scenario fails) or error (the file could not be run, edited or
	// written).
	status string
	// what says which request parts changed; reasons why it was refused
	// or failed.
	what    string
	reasons []string
	// diffs are the changes, printed whether written or not.
	diffs []string
	// share says how the rebase changed the tape's cacheable share
	// (shareChange); "" when it did not rebase.
	share string
}

func (r *rebaseResult) print(e *env, dry bool) {
	word := map[string]string{"rebased": "rebased", "unchanged": "unchanged", "refused": "REFUSED", "failed": "FAIL", "error": "ERROR"}[r.status]
	if dry && r.status == "rebased" {
		word = "would rebase"
	}
	line := word + "  " + report.Printable(r.name)
	if r.what != "" {
		line += "  (" + r.what + ")"
	}
	fmt.Fprintln(e.stdout, line)
	for _, why := range r.reasons {
		fmt.Fprintf(e.stdout, "    %s\n", indent(report.Printable(why)))
	}
	for _, d := range r.diffs {
		fmt.Fprintf(e.stdout, "    %s\n", indent(report.Printable(d)))
	}
	if r.share != "" {
		fmt.Fprintf(e.stdout, "    %s\n", r.share)
	}
}

// rebaseOne replays s in rebase mode and, when its requests changed and
// its recorded responses still apply, rewrites the request parts of its
// file and its golden (unless dry), redacted by red.
func rebaseOne(ctx context.Context, e *env, s *scenario.Scenario, dry, all bool, red *redact.Redactor) *rebaseResult {
	r := &rebaseResult{name: s.Name}
	fail := func(status string, reasons ...string) *rebaseResult {
		// red knows what the rebase learned once it has: a reason quoting
		// the request holds none of it.
		for _, why := range reasons {
			r.reasons = append(r.reasons, red.Quiet(why))
		}
		r.status = status
		return r
	}
	src, err := os.ReadFile(s.Path)
	if err != nil {
		return fail("error", err.Error())
	}
	m := replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Rebase: true, Redactor: red})
	o, err := e.run(ctx, s, &harness.RunOptions{Replay: m, Tools: e.tools})
	if err != nil {
		return fail("error", err.Error())
	}
	rb, err := m.Rebased(&replay.RebaseOptions{All: all, Redactor: red})
	var stale *replay.StaleError
	if errors.As(err, &stale) {
		return fail("refused", fmt.Sprintf("%s:%d: tape[%d] must be recorded again (%s): %v", s.Path, stale.Line, stale.Entry, harness.RecordCommand(e.prog(), s, s.Path, true), stale.Err))
	}
	if err != nil {
		return fail("error", err.Error())
	}
	// What the tape's [REDACTED] stood for is a secret of this scenario's
	// from here on: the rebased file's check replays it and its golden
	// and reasons are written with it.
	red = red.WithSecrets(rb.Learned)
	if !rb.Changed() {
		// Nothing to rebase: say whether the scenario passes as it is.
		v := e.verify(ctx, s, &harness.VerifyOptions{Tools: e.tools, Checks: e.checks, Redactor: red})
		switch {
		case v.Err != nil:
			return fail("error", v.Err.Error())
		case !v.Passed():
			return fail("failed", append([]string{"no request changed, so there is nothing to rebase; the scenario fails for another reason:"}, texts(v.Failures)...)...)
		}
		r.status = "unchanged"
		return r
	}
	if o.Diverged || len(o.Unused) > 0 || len(o.Refused) > 0 {
		why := append([]string{"the run does not fit the tape beyond its requests, so it cannot be rebased:"}, append([]string{o.Error}, texts(o.Unused)...)...)
		for _, rf := range o.Refused {
			why = append(why, "a request through http.DefaultTransport was refused during the replay: "+rf)
		}
		return fail("refused", append(why, "record it again: "+harness.RecordCommand(e.prog(), s, s.Path, true))...)
	}
	out, err := rebaseFile(src, s.Path, rb)
	if err != nil {
		return fail("error", err.Error())
	}
	r.what = rebaseSummary(rb)
	r.diffs = append(r.diffs, fileDiff(s.Path, string(src), string(out)))
	// The rebased scenario must pass as it will be written.
	ns, err := scenario.Parse(out, s.Path, s.Name)
	if err != nil {
		return fail("error", fmt.Sprintf("the rebased file does not load: %v", err))
	}
	ns.RelPath = s.RelPath
	no, err := e.run(ctx, ns, &harness.RunOptions{Tools: e.tools, Redactor: red})
	if err != nil {
		return fail("error", err.Error())
	}
	bad := append(diverged(no), texts(no.Unused)...)
	bad = append(bad, texts(harness.Failures(ns, no, e.checks...))...)
	if len(bad) > 0 {
		r.diffs = nil
		return fail("refused", append([]string{"the rebased scenario would fail, so nothing is written:"}, bad...)...)
	}
	golden, err := no.Golden(red)
	if err != nil {
		return fail("error", err.Error())
	}
	goldenPath := scenario.GoldenPath(s.Path)
	old, err := os.ReadFile(goldenPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail("error", err.Error())
	}
	if d := fileDiff(goldenPath, string(old), string(golden)); d != "" {
		r.diffs = append(r.diffs, d)
	}
	r.status = "rebased"
	r.share = shareChange(e.prog(), s, ns)
	if dry {
		return r
	}
	if err := writeScenario(s.Path, src, out); err != nil {
		return fail("error", err.Error())
	}
	if v := e.verify(ctx, ns, &harness.VerifyOptions{Update: true, Tools: e.tools, Checks: e.checks, Redactor: red}); v.Err != nil || !v.Passed() {
		return fail("error", append([]string{"the scenario was rewritten, but blessing its golden failed:"}, append(texts(v.Failures), fmt.Sprint(v.Err))...)...)
	}
	return r
}

// diverged returns the run's divergence from its tape, if any.
func diverged(o *harness.Outcome) []string {
	if o.Diverged {
		return []string{o.Error}
	}
	return nil
}

// rebaseFile writes the rebased request parts into src: the offered block
// and each changed entry's request, in place. An entry that cannot be
// edited in place (written as one flow mapping) makes the whole tape
// written anew.
func rebaseFile(src []byte, file string, rb *replay.Rebase) ([]byte, error) {
	out := src
	var err error
	if rb.Offered {
		// The author's comments in offered: stay where their parts stay.
		offered := tape.EncodeOffered(rb.Tape.Offered)
		var doc struct {
			Offered yaml.Node `yaml:"offered"`
		}
		if yaml.Unmarshal(src, &doc) == nil {
			yamlx.CopyComments(&doc.Offered, offered)
		}
		if out, err = scenario.SetValue(out, file, []string{"offered"}, offered); err != nil {
			return nil, err
		}
	}
	withOffered := out
	for _, i := range rb.Entries {
		n, err := tape.EncodeRequest(rb.Tape.Entries[i].Request)
		if err != nil {
			return nil, err
		}
		out, err = scenario.SetValue(out, file, []string{"tape", strconv.Itoa(i), "request"}, n)
		if errors.Is(err, scenario.ErrEdit) {
			return scenario.SetTape(withOffered, file, rb.Tape.Entries)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rebaseSummary says which request parts a rebase changed.
func rebaseSummary(rb *replay.Rebase) string {
	var parts []string
	if rb.Offered {
		parts = append(parts, "offered")
	}
	if n := len(rb.Entries); n > 0 {
		at := make([]string, n)
		for i, e := range rb.Entries {
			at[i] = strconv.Itoa(e)
		}
		parts = append(parts, fmt.Sprintf("the request of tape[%s]", strings.Join(at, "], tape[")))
	}
	return strings.Join(parts, ", ")
}

// fileDiff is a unified diff of a file's old and new content; "" when
// equal.
func fileDiff(path, old, now string) string {
	h := udiff.Hunks(old, now)
	if h == "" {
		return ""
	}
	return "--- " + path + "\n+++ " + path + " (rebased)\n" + strings.TrimSuffix(h, "\n")
}
