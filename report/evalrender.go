package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// WriteHTML writes the eval report as one self-contained HTML page: the
// per-model table, then per scenario × model its trials side by side.
func (e *Eval) WriteHTML(w io.Writer) error {
	p := evalPage(e)
	return writePage(w, p, writeRows(p.Rows))
}

func evalPage(e *Eval) *page {
	p := &page{Title: "tapeloop eval", Kind: "eval"}
	tags := map[string]bool{}
	for _, m := range e.Models {
		p.ModelNames = append(p.ModelNames, m.Name)
		row := modelRow{Name: m.Name, Passed: m.Passed, Trials: m.Trials, PassAtK: kValues(m.PassAtK), PassHatK: kValues(m.PassHatK),
			InputTokens: m.Tokens.Input, OutputTokens: m.Tokens.Output}
		for _, n := range m.Classes {
			row.Scenarios += n
		}
		if m.Cost != nil {
			row.Cost = fmt.Sprintf("$%.4f", *m.Cost)
		}
		p.Models = append(p.Models, row)
	}
	p.Pairs = &counts{}
	for i, s := range e.Scenarios {
		// The headline counts trials; the pairs line and the rows count
		// scenario × model pairs.
		p.Counts.Passed += s.Passed
		p.Counts.Failed += s.Trials - s.Passed
		p.Counts.Errors += s.Errors
		p.Counts.Total += s.Trials + s.Errors
		p.Pairs.Total++
		switch s.Class {
		case ClassPass:
			p.Pairs.Passed++
		case ClassFail:
			p.Pairs.Failed++
		case ClassFlaky:
			p.Pairs.Flaky++
		default:
			p.Pairs.Errors++
		}
		for _, t := range s.Tags {
			tags[t] = true
		}
		r := row{ID: fmt.Sprintf("s%d", i+1), Name: s.Name, Path: s.Path, Status: s.Class, Model: s.Model, Tags: s.Tags,
			Summary: evalSummary(s)}
		for _, t := range s.TrialsDetail {
			r.Seconds += t.DurationMS / 1000
			tv := trialView{Label: fmt.Sprintf("trial %d", t.Trial), Status: t.Status, Termination: t.Termination,
				Iterations: t.Iterations, Failures: t.Failures, Transcript: t.Transcript, Verdicts: t.Judge}
			if t.Error != "" && t.Status == StatusError {
				tv.Failures = append(tv.Failures, t.Error)
			}
			if tv.Transcript == nil {
				tv.Transcript = tapeTranscript(t)
			}
			if es := t.EndState; es != nil {
				for _, path := range slices.Sorted(maps.Keys(es.Files)) {
					f := endFile{Path: path, Missing: es.Files[path] == nil}
					if !f.Missing {
						f.Content = *es.Files[path]
					}
					tv.EndFiles = append(tv.EndFiles, f)
				}
				tv.EndState = es.State
			}
			r.Trials = append(r.Trials, tv)
		}
		p.Rows = append(p.Rows, r)
	}
	for t := range tags {
		p.Tags = append(p.Tags, t)
	}
	slices.Sort(p.Tags)
	failuresFirst(p.Rows)
	return p
}

// evalSummary is a row's verdict line: "3/5 trials passed; calls 2/5".
func evalSummary(s EvalScenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d trials passed", s.Passed, s.Trials)
	if s.Errors > 0 {
		fmt.Fprintf(&b, ", %d errors", s.Errors)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Failures)) {
		fmt.Fprintf(&b, "; %s %d/%d", k, s.Failures[k], s.Trials)
	}
	return b.String()
}

func kValues(m map[int]float64) []kValue {
	out := make([]kValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, kValue{K: k, Value: m[k]})
	}
	return out
}

// tapeTranscript is a trial's transcript rebuilt from its tape alone, for a
// report without transcripts: what the model was sent last and what it
// answered, calls as emitted (not as executed, and no results or diffs).
func tapeTranscript(t EvalTrial) *Transcript {
	tr := &Transcript{TerminationError: t.Error, Tokens: llm.Usage{InputTokens: t.Tokens.Input, OutputTokens: t.Tokens.Output}}
	for i, entry := range t.Tape {
		turn := Turn{Index: i + 1}
		if m := entry.LastMessage; m != nil && m.Role == llm.RoleUser {
			turn.User = []string{m.Content}
		}
		if entry.Error != "" {
			turn.Content = "model call failed: " + entry.Error
		}
		if r := entry.Response; r != nil {
			turn.Content, turn.FinishReason = r.Message.Content, r.FinishReason
			tr.Final = r.Message.Content
			for _, c := range r.Message.ToolCalls {
				turn.Calls = append(turn.Calls, Call{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
			}
		}
		tr.Turns = append(tr.Turns, turn)
	}
	return tr
}

// WriteJUnit writes the eval report as JUnit XML: one testsuite per model,
// one testcase per scenario × model, failed unless every scored trial
// passed, with the trials as properties and the first failing trial's
// transcript as system-out.
func (e *Eval) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "tapeloop eval"}
	suites := map[string]*junitSuite{}
	suiteSecs := map[string]float64{}
	var order []string
	for _, s := range e.Scenarios {
		suite, ok := suites[s.Model]
		if !ok {
			suite = &junitSuite{Name: s.Model}
			suites[s.Model] = suite
			order = append(order, s.Model)
		}
		c := junitCase{Name: s.Name, Classname: s.Model, File: s.Path, Properties: &junitProperties{}}
		prop := func(name, value string) {
			c.Properties.Property = append(c.Properties.Property, junitProperty{Name: name, Value: value})
		}
		prop("class", s.Class)
		prop("trials", fmt.Sprint(s.Trials))
		prop("passed", fmt.Sprint(s.Passed))
		prop("errors", fmt.Sprint(s.Errors))
		for _, kv := range kValues(s.PassAtK) {
			prop(fmt.Sprintf("pass@%d", kv.K), fmt.Sprintf("%.4f", kv.Value))
		}
		for _, kv := range kValues(s.PassHatK) {
			prop(fmt.Sprintf("pass^%d", kv.K), fmt.Sprintf("%.4f", kv.Value))
		}
		var secs float64
		var firstBad *EvalTrial
		for i, t := range s.TrialsDetail {
			secs += t.DurationMS / 1000
			prop(fmt.Sprintf("trial %d", t.Trial), t.Status)
			if t.Status != StatusPass && firstBad == nil {
				firstBad = &s.TrialsDetail[i]
			}
		}
		c.Time = seconds(secs)
		suiteSecs[s.Model] += secs
		msg := fmt.Sprintf("%s: %s", s.Class, evalSummary(s))
		var body strings.Builder
		for _, t := range s.TrialsDetail {
			for _, f := range t.Failures {
				fmt.Fprintf(&body, "trial %d: %s\n", t.Trial, f)
			}
			if t.Status == StatusError && t.Error != "" {
				fmt.Fprintf(&body, "trial %d: error: %s\n", t.Trial, t.Error)
			}
		}
		switch s.Class {
		case ClassPass:
		case ClassError:
			c.Error = &junitProblem{Message: msg, Type: s.Class, Body: body.String()}
			suite.Errors++
		default:
			c.Failure = &junitProblem{Message: msg, Type: s.Class, Body: body.String()}
			suite.Failures++
		}
		if firstBad != nil {
			tr := firstBad.Transcript
			if tr == nil {
				tr = tapeTranscript(*firstBad)
			}
			c.SystemOut = fmt.Sprintf("trial %d (%s)\n%s", firstBad.Trial, firstBad.Status, tr.Text())
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	var total float64
	for _, m := range order {
		s := suites[m]
		s.Time = seconds(suiteSecs[m])
		total += suiteSecs[m]
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, *s)
	}
	doc.Time = seconds(total)
	return writeXML(w, doc)
}
