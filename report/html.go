package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

var (
	//go:embed html/report.html.tmpl
	pageTemplate string
	//go:embed html/report.css
	pageCSS string
	//go:embed html/report.js
	pageJS string

	// pageTmpl is parsed on first use, not at start-up.
	pageTmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("report").Funcs(template.FuncMap{
			"diff":    diffLines,
			"percent": percent,
		}).Parse(pageTemplate))
	})
)

// page is what the HTML template renders, built from a replay or an eval
// result.
type page struct {
	Title string
	// Kind is "replay" or "eval".
	Kind string
	CSS  template.CSS
	JS   template.JS
	// Counts is the headline: scenarios in a replay, trials in an eval.
	Counts counts
	// Pairs counts an eval's scenario × model pairs by class; nil in a
	// replay.
	Pairs  *counts
	Models []modelRow
	Tags   []string
	// ModelNames lists the models for the filter; one model hides the filter.
	ModelNames []string
	Rows       []row
}

type counts struct {
	Total, Passed, Failed, Flaky, Errors int
}

// modelRow is one line of the per-model table.
type modelRow struct {
	Name                      string
	Scenarios, Passed, Trials int
	// PassAtK and PassHatK are rendered in order of K.
	PassAtK, PassHatK         []kValue
	InputTokens, OutputTokens int
	// Cost is "" when no price was known.
	Cost string
}

type kValue struct {
	K     int
	Value float64
}

// row is one scenario (in eval: one scenario × model).
type row struct {
	// Kind is the page's: "replay" or "eval".
	ID, Kind, Name, Path, Status, Model string
	Tags                                []string
	Seconds                             float64
	// Summary is a short verdict line ("3/5 trials passed").
	Summary string
	// Reason is a failed or errored replay row's cause on one line, shown
	// on the row itself (no click needed): its first failure's first line,
	// else its error's; "" for a row that passed.
	Reason string
	// Open: the row starts open, its body rendered at once rather than
	// when it is first opened (a failed replay row, up to openFailedRows).
	Open       bool
	Error      string
	Failures   []string
	Golden     string
	GoldenDiff string
	// GoldenFolded: GoldenDiff starts folded away, because a failure or
	// an error listed before it is the cause.
	GoldenFolded bool
	Expectations []Expectation
	Trials       []trialView
	// Sandbox is what the sandbox of the scenario's agent program did not
	// hold and what it killed (ScenarioResult.Sandbox): a note on the row,
	// each line in its body.
	Sandbox []string
}

// trialView is one run of a row: the replay itself, or one eval trial.
type trialView struct {
	Label, Status, Termination string
	Iterations                 int
	Failures                   []string
	Transcript                 *Transcript
	// EndFiles and EndState are an eval trial's end state, as far as its
	// expectations look (EvalTrial.EndState); empty otherwise.
	EndFiles []endFile
	EndState string
	// Verdicts are the judges' verdicts on the scenario's expect.judge
	// items, shown beside the final answer they judged; nil when none.
	Verdicts []Verdict
}

// endFile is one file of a trial's end state; Missing: it did not exist.
type endFile struct {
	Path, Content string
	Missing       bool
}

// diffLine is one line of a unified diff and its class: add, del, hunk, file
// or ctx.
type diffLine struct {
	Class, Text string
}

// diffLines splits a unified diff into classified lines.
func diffLines(d string) []diffLine {
	d = strings.TrimSuffix(d, "\n")
	if d == "" {
		return nil
	}
	lines := strings.Split(d, "\n")
	out := make([]diffLine, len(lines))
	for i, l := range lines {
		class := "ctx"
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff --git "):
			class = "file"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		}
		out[i] = diffLine{Class: class, Text: l}
	}
	return out
}

func percent(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// WriteHTML writes the result as one self-contained HTML page: no network,
// every string escaped.
func (r *Replay) WriteHTML(w io.Writer) error {
	return r.stream().WriteHTML(w)
}

// openFailedRows is how many failed rows of a replay page start open: the
// first screen's worth, so that a page of hundreds of failures still
// opens at once (each open row's body is built when the page loads).
const openFailedRows = 10

// statusRank is where rows of a status are shown: failures and errors
// (and unknown statuses) first, then flaky rows, then passing ones.
func statusRank(status string) int {
	switch status {
	case ClassFlaky:
		return 1
	case StatusPass:
		return 2
	}
	return 0
}

// divergenceOnce is what stands for a divergence already shown in a row.
const divergenceOnce = "(the divergence from the tape, shown above)"

// showDivergenceOnce keeps a row's divergence from its tape (the run's
// termination error, which the divergence failure, the termination
// expectation and the transcript all quote) in the first place it appears
// (the failures, else the expectations), and puts divergenceOnce in its
// place elsewhere. The row's slices and transcript are copied, not changed.
func showDivergenceOnce(rw *row) {
	if len(rw.Trials) != 1 || rw.Trials[0].Transcript == nil {
		return
	}
	div := rw.Trials[0].Transcript.TerminationError
	if len(div) < 80 || !strings.Contains(div, "\n") {
		return // a one-line error costs nothing to repeat
	}
	shown := false
	once := func(text string) string {
		if !strings.Contains(text, div) {
			return text
		}
		if !shown {
			shown = true
			return text
		}
		return strings.ReplaceAll(text, div, divergenceOnce)
	}
	failures := make([]string, len(rw.Failures))
	for i, f := range rw.Failures {
		failures[i] = once(f)
	}
	rw.Failures = failures
	exps := make([]Expectation, len(rw.Expectations))
	for i, e := range rw.Expectations {
		e.Messages = slices.Clone(e.Messages)
		for j, m := range e.Messages {
			e.Messages[j] = once(m)
		}
		exps[i] = e
	}
	rw.Expectations = exps
	if shown {
		tr := *rw.Trials[0].Transcript
		tr.TerminationError = divergenceOnce
		rw.Trials = []trialView{rw.Trials[0]}
		rw.Trials[0].Transcript = &tr
	}
}

// rowReason is a failed replay scenario's cause on one line: the first
// line of its first failure other than the golden's difference (a
// divergence comes first), else of its error, else the golden's first
// change; without the scenario file's name the row already shows, cut at
// 200 bytes; "" when it passed.
func rowReason(s ScenarioResult) string {
	if s.Status == StatusPass {
		return ""
	}
	text := s.Error
	for _, f := range s.Failures {
		if _, golden := GoldenDifference(f); !golden {
			text = f
			break
		}
	}
	if text == "" && len(s.Failures) > 0 {
		text = goldenChange(s.Failures[0], s.GoldenDifference)
	}
	text, _, _ = strings.Cut(text, "\n")
	text = strings.TrimPrefix(text, s.Path+": ")
	if len(text) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

// goldenFolded reports whether s's golden difference is not its cause:
// a failure other than it, or an error, says what went wrong first.
func goldenFolded(s ScenarioResult) bool {
	if s.Error != "" {
		return true
	}
	for _, f := range s.Failures {
		if _, golden := GoldenDifference(f); !golden {
			return true
		}
	}
	return false
}

// failuresFirst orders rows by status, failures and errors first, then
// flaky rows, then passing ones, keeping the order within each, and
// numbers their IDs in the new order.
func failuresFirst(rows []row) {
	slices.SortStableFunc(rows, func(a, b row) int { return statusRank(a.Status) - statusRank(b.Status) })
	for i := range rows {
		rows[i].ID = fmt.Sprintf("s%d", i+1)
	}
}

// writePage writes the page p: its head, each of its rows as each calls
// emit with it (in order), and its foot. Rows is not read: a page's rows
// are written one at a time, so that a suite's page is never held whole.
func writePage(w io.Writer, p *page, each func(emit func(*row) error) error) error {
	p.CSS, p.JS = template.CSS(pageCSS), template.JS(pageJS)
	t := pageTmpl()
	if err := t.ExecuteTemplate(w, "head", p); err != nil {
		return err
	}
	err := each(func(rw *row) error {
		rw.Kind = p.Kind
		return t.ExecuteTemplate(w, "row", rw)
	})
	if err != nil {
		return err
	}
	return t.ExecuteTemplate(w, "foot", p)
}

// writeRows is the each of writePage for rows held in a slice.
func writeRows(rows []row) func(emit func(*row) error) error {
	return func(emit func(*row) error) error {
		for i := range rows {
			if err := emit(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// replayPage is the page of a replay result, its rows built: what
// ReplayStream.WriteHTML writes one row at a time.
func replayPage(r *Replay) *page {
	s := r.stream()
	p, order, err := s.pageHead()
	if err != nil {
		panic(err) // a slice source does not fail
	}
	_ = s.eachRow(order, func(rw *row) error {
		p.Rows = append(p.Rows, *rw)
		return nil
	})
	return p
}

// replayRow is the row of one scenario of a replay page, but for its ID
// and whether it starts open.
func replayRow(s *ScenarioResult) row {
	rw := row{Name: s.Name, Path: s.Path, Status: s.Status, Model: "tape",
		Tags: s.Tags, Seconds: s.Seconds, Error: s.Error, Golden: s.Golden, GoldenDiff: s.GoldenDifference,
		Expectations: s.Expectations, Sandbox: s.Sandbox}
	explained := map[string]bool{}
	for _, e := range s.Expectations {
		for _, m := range e.Messages {
			explained[m] = true
		}
	}
	for _, f := range s.Failures {
		golden := s.GoldenDifference != "" && strings.HasPrefix(f, goldenDifferencePrefix)
		if !golden && !explained[f] {
			rw.Failures = append(rw.Failures, f)
		}
	}
	if s.Transcript != nil {
		rw.Trials = []trialView{{Label: "replay", Status: s.Status, Termination: s.Termination,
			Iterations: s.Iterations, Transcript: s.Transcript, Verdicts: s.Judge}}
	}
	showDivergenceOnce(&rw)
	rw.Reason, rw.GoldenFolded = rowReason(*s), goldenFolded(*s)
	return rw
}
