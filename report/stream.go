package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ScenarioSource is a replay result's scenarios in canonical order (see
// SortScenarios), read one at a time: what ReplayStream writes, so that a
// suite's results need not be in memory at once (evalrun replay keeps them
// in a file as they finish).
type ScenarioSource interface {
	// Len is the number of scenarios.
	Len() int
	// Scenario returns the scenario at index i, 0 ≤ i < Len(). The caller
	// may read it until its next call.
	Scenario(i int) (*ScenarioResult, error)
}

// ReplayStream is a replay result whose scenarios are read one at a time
// from Source: its writers write what Replay's write for the same
// scenarios (Replay's are ReplayStream's), holding one scenario at a time.
// The JSON reads each scenario once, the JUnit and the HTML page twice
// (their counts, and the page's tag filter, come before the scenarios).
type ReplayStream struct {
	// Shard is the part of the suite the result covers; nil means all of it.
	Shard *Shard
	// Summary counts Source's scenarios (see ReplaySummary.Add).
	Summary ReplaySummary
	// Source holds the scenarios; nil is written as JSON's null, as a nil
	// Replay.Scenarios is, and as no scenario elsewhere.
	Source ScenarioSource
}

// sliceSource is the ScenarioSource of a slice.
type sliceSource []ScenarioResult

func (s sliceSource) Len() int                                { return len(s) }
func (s sliceSource) Scenario(i int) (*ScenarioResult, error) { return &s[i], nil }

// stream is r as a ReplayStream over its slice.
func (r *Replay) stream() *ReplayStream {
	s := &ReplayStream{Shard: r.Shard, Summary: r.Summary}
	if r.Scenarios != nil {
		s.Source = sliceSource(r.Scenarios)
	}
	return s
}

func (r *ReplayStream) len() int {
	if r.Source == nil {
		return 0
	}
	return r.Source.Len()
}

// Add returns s with the scenario sc counted in: a result's summary is the
// scenarios' counts added in canonical order.
func (s ReplaySummary) Add(sc *ScenarioResult) ReplaySummary {
	s.Scenarios++
	s.Seconds += sc.Seconds
	switch sc.Status {
	case StatusPass:
		s.Passed++
	case StatusError:
		s.Errors++
		s.Failed++
	default:
		s.Failed++
	}
	if sc.Transcript != nil {
		s.InputTokens += sc.Transcript.Tokens.InputTokens
		s.OutputTokens += sc.Transcript.Tokens.OutputTokens
	}
	return s
}

// Merge returns s with o's counts added: the summary of one scenario
// (ReplaySummary{}.Add(sc)) merged in canonical order gives what Add over
// the scenarios gives.
func (s ReplaySummary) Merge(o ReplaySummary) ReplaySummary {
	s.Scenarios += o.Scenarios
	s.Passed += o.Passed
	s.Failed += o.Failed
	s.Errors += o.Errors
	s.Seconds += o.Seconds
	s.InputTokens += o.InputTokens
	s.OutputTokens += o.OutputTokens
	return s
}

// CompareScenarios orders scenarios canonically, as SortScenarios does:
// by path, compared folder by folder (the order a directory walk finds
// them), then by name.
func CompareScenarios(a, b *ScenarioResult) int {
	if c := comparePaths(a.Path, b.Path); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// WriteJSON writes the result as Replay.WriteJSON does, one scenario at a
// time.
func (r *ReplayStream) WriteJSON(w io.Writer) error {
	head := struct {
		Format    string        `json:"format"`
		Shard     *Shard        `json:"shard,omitempty"`
		Summary   ReplaySummary `json:"summary"`
		Scenarios []struct{}    `json:"scenarios"`
	}{Format: ReplayFormat, Shard: r.Shard, Summary: r.Summary, Scenarios: []struct{}{}}
	var buf bytes.Buffer
	if err := writeJSON(&buf, head, false); err != nil {
		return err
	}
	// The head ends `"scenarios": []` and the closing brace: the scenarios
	// go between the brackets, indented as json.Indent indents them there.
	open, ok := bytes.CutSuffix(buf.Bytes(), []byte("[]\n}\n"))
	if !ok {
		return fmt.Errorf("report: unexpected JSON head %q", buf.Bytes())
	}
	if _, err := w.Write(open); err != nil {
		return err
	}
	if r.Source == nil {
		_, err := io.WriteString(w, "null\n}\n")
		return err
	}
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	n := r.Source.Len()
	for i := range n {
		sc, err := r.Source.Scenario(i)
		if err != nil {
			return err
		}
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(sc); err != nil {
			return err
		}
		buf.Reset()
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		buf.WriteString(sep)
		if err := json.Indent(&buf, roundFloats(bytes.TrimSuffix(compact.Bytes(), []byte("\n"))), "    ", "  "); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	end := "\n  ]\n}\n"
	if n == 0 {
		end = "]\n}\n"
	}
	_, err := io.WriteString(w, end)
	return err
}

// WriteJUnit writes the result as Replay.WriteJUnit does, one testcase at
// a time: one testcase per scenario, its failure message the first
// failure's first line (the first difference from the golden, or a failed
// expectation), the failure body every failure, and system-out the
// transcript, after the notes of the scenario's sandbox (each also a
// "sandbox" property).
func (r *ReplayStream) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	// The counts are the testcases' (a pass before them), whatever Summary
	// says.
	tests, errs, failures := r.len(), 0, 0
	for i := range tests {
		s, err := r.Source.Scenario(i)
		if err != nil {
			return err
		}
		switch s.Status {
		case StatusError:
			errs++
		case StatusFail:
			failures++
		}
	}
	attrs := func(a ...string) []xml.Attr {
		var out []xml.Attr
		for i := 0; i+1 < len(a); i += 2 {
			out = append(out, xml.Attr{Name: xml.Name{Local: a[i]}, Value: a[i+1]})
		}
		return out
	}
	t := seconds(r.Summary.Seconds)
	suites := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: attrs("name", "tapeloop",
		"tests", fmt.Sprint(tests), "failures", fmt.Sprint(failures), "errors", fmt.Sprint(errs), "time", t)}
	suite := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: attrs("name", "tapeloop replay",
		"tests", fmt.Sprint(tests), "failures", fmt.Sprint(failures), "errors", fmt.Sprint(errs), "skipped", "0", "time", t)}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.EncodeToken(suites); err != nil {
		return err
	}
	if err := enc.EncodeToken(suite); err != nil {
		return err
	}
	testcase := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	for i := range r.len() {
		s, err := r.Source.Scenario(i)
		if err != nil {
			return err
		}
		if err := enc.EncodeElement(junitCaseOf(s), testcase); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(suite.End()); err != nil {
		return err
	}
	if err := enc.EncodeToken(suites.End()); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitCaseOf is the testcase of one scenario.
func junitCaseOf(s *ScenarioResult) junitCase {
	c := junitCase{Name: s.Name, Classname: classname(s.Name), Time: seconds(s.Seconds), File: s.Path,
		SystemOut: sandboxLines(s.Sandbox) + s.Transcript.Text()}
	var props []junitProperty
	if s.Termination != "" {
		props = append(props, junitProperty{Name: "termination", Value: s.Termination},
			junitProperty{Name: "iterations", Value: fmt.Sprint(s.Iterations)})
	}
	// Readers differ in which of system-out and the properties they
	// show: the notes are in both.
	for _, n := range s.Sandbox {
		props = append(props, junitProperty{Name: "sandbox", Value: n})
	}
	if props != nil {
		c.Properties = &junitProperties{Property: props}
	}
	switch s.Status {
	case StatusError:
		c.Error = &junitProblem{Message: firstLine(s.Error), Type: "error", Body: s.Error}
	case StatusFail:
		c.Failure = &junitProblem{Message: failureMessage(*s), Type: failureType(*s), Body: strings.Join(s.Failures, "\n\n")}
	}
	return c
}

// sandboxLines is the notes of a scenario's sandbox (ScenarioResult.Sandbox)
// as they open a testcase's system-out, a line "sandbox: NOTE" each and a
// blank line after them; "" for none.
func sandboxLines(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	for _, n := range notes {
		b.WriteString("sandbox: " + n + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// WriteHTML writes the result as Replay.WriteHTML does, one row at a time:
// one self-contained HTML page, no network, every string escaped.
func (r *ReplayStream) WriteHTML(w io.Writer) error {
	p, order, err := r.pageHead()
	if err != nil {
		return err
	}
	return writePage(w, p, func(emit func(*row) error) error { return r.eachRow(order, emit) })
}

// pageHead reads the scenarios once for the page's headline (counts, tags)
// and returns it with the order the rows are shown in: failures and errors
// first, then the rest, each in canonical order.
func (r *ReplayStream) pageHead() (*page, []int, error) {
	p := &page{Title: "tapeloop replay", Kind: "replay", ModelNames: []string{"tape"}}
	if r.Shard != nil {
		p.Title += " (shard " + r.Shard.String() + ")"
	}
	tags := map[string]bool{}
	ranks := make([]int8, r.len())
	for i := range ranks {
		s, err := r.Source.Scenario(i)
		if err != nil {
			return nil, nil, err
		}
		p.Counts.Total++
		switch s.Status {
		case StatusPass:
			p.Counts.Passed++
		case StatusError:
			p.Counts.Errors++
		default:
			p.Counts.Failed++
		}
		for _, t := range s.Tags {
			tags[t] = true
		}
		ranks[i] = int8(statusRank(s.Status))
	}
	for t := range tags {
		p.Tags = append(p.Tags, t)
	}
	slices.Sort(p.Tags)
	// A tape has no trials: no pass@k or pass^k.
	p.Models = []modelRow{{Name: "tape", Scenarios: r.Summary.Scenarios, Passed: r.Summary.Passed,
		InputTokens: r.Summary.InputTokens, OutputTokens: r.Summary.OutputTokens}}
	order := make([]int, len(ranks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(ranks[a]) - int(ranks[b]) })
	return p, order, nil
}

// eachRow reads the scenarios in order and calls emit with each one's row,
// numbered in that order; the first openFailedRows failed or errored rows
// start open.
func (r *ReplayStream) eachRow(order []int, emit func(*row) error) error {
	open := openFailedRows
	for n, i := range order {
		s, err := r.Source.Scenario(i)
		if err != nil {
			return err
		}
		rw := replayRow(s)
		rw.ID = fmt.Sprintf("s%d", n+1)
		if open > 0 && (rw.Status == StatusFail || rw.Status == StatusError) {
			rw.Open = true
			open--
		}
		if err := emit(&rw); err != nil {
			return err
		}
	}
	return nil
}
