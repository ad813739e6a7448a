package report

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

// TestShardBounds: the shards at the ends of the range are valid: 1/1, 1/n
// and n/n; from the environment, index 0 of 1.
func TestShardBounds(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "1/4": {1, 4}, "4/4": {4, 4}} {
		if s, err := ParseShard(in); err != nil || *s != want {
			t.Errorf("%s: %v %v, want %v", in, s, err, want)
		}
	}
	env := map[string]string{JobIndexVar: "0", ShardTotalVar: "1"}
	if s, err := ShardFromEnv(func(k string) string { return env[k] }); err != nil || *s != (Shard{1, 1}) {
		t.Errorf("index 0 of 1: %v %v, want shard 1/1", s, err)
	}
}

// TestTextOptionalFields: the optional lines of a call and a turn (repairs,
// attempts, failure, diff) and the termination error appear exactly when
// they have a value.
func TestTextOptionalFields(t *testing.T) {
	bare := &Transcript{Turns: []Turn{{Index: 1, Calls: []Call{{ID: "c1", Name: "read", Arguments: "{}", Attempts: 1, Result: "ok"}}}}, Final: "done"}
	if got, want := bare.Text(), "turn 1\n  call c1 read {}\n    result: ok\nfinal: done\n"; got != want {
		t.Errorf("bare transcript:\n%s\nwant:\n%s", got, want)
	}
	full := &Transcript{
		Turns: []Turn{{Index: 1, Calls: []Call{{ID: "c1", Name: "write", Arguments: "{}", Repairs: []string{"closed a brace"},
			Attempts: 2, Failure: "disk full", Result: "failed"}}, Diff: "diff --git a/x b/x"}},
		TerminationError: "model error",
	}
	want := "turn 1\n  call c1 write {}\n    repairs: closed a brace\n    attempts: 2\n    failure: disk full\n    result: failed\n" +
		"  diff: diff --git a/x b/x\nerror: model error\nfinal: \n"
	if got := full.Text(); got != want {
		t.Errorf("full transcript:\n%s\nwant:\n%s", got, want)
	}
}

// TestMergeMissingLastShard: the last shard of the total is required too.
func TestMergeMissingLastShard(t *testing.T) {
	parts := shardsOf(syntheticReplay(40), 3)
	_, err := MergeReplay([]string{"a", "b"}, parts[:2])
	if want := "cannot merge: missing shard 3/3 of 3"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestMergeSingleUnshardedResult: one result without a shard is returned
// re-summarised, not refused as "not a shard".
func TestMergeSingleUnshardedResult(t *testing.T) {
	r := syntheticReplay(5)
	merged, err := MergeReplay([]string{"a"}, []*Replay{r})
	if err != nil || merged.Shard != nil || len(merged.Scenarios) != 5 || merged.Summary != r.Summary {
		t.Fatalf("merged %+v, %v; want the result itself", merged, err)
	}
}

// TestJUnitPropertiesAndEnd: only a scenario with a termination gets
// properties, and the document ends with a newline.
func TestJUnitPropertiesAndEnd(t *testing.T) {
	r := NewReplay([]ScenarioResult{
		{Name: "g/ended", Status: StatusPass, Termination: "final_text", Iterations: 2},
		{Name: "g/plain", Status: StatusPass},
	}, nil)
	var b strings.Builder
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "<properties>"); n != 1 || !strings.Contains(out, `<property name="termination" value="final_text"></property>`) {
		t.Errorf("%d properties blocks in:\n%s\nwant one, for g/ended", n, out)
	}
	if !strings.HasSuffix(out, "</testsuites>\n") {
		t.Errorf("the document does not end with a newline:\n%q", out[max(0, len(out)-40):])
	}
}

// TestFailureMessageOfOneFailure: a single failure is its first line, with
// no "(and 0 more)".
func TestFailureMessageOfOneFailure(t *testing.T) {
	if got := failureMessage(ScenarioResult{Failures: []string{"expect.calls: read missing\ndetails"}}); got != "expect.calls: read missing" {
		t.Errorf("failureMessage = %q", got)
	}
}

// evalWithAnErrorTrial is one scenario × model with a passed trial and an
// error trial whose tape holds a failed call after a user message.
func evalWithAnErrorTrial() *Eval {
	return &Eval{Scenarios: []EvalScenario{{
		Name: "g/s", Path: "scenarios/g/s.yaml", Model: "m", Trials: 1, Passed: 1, Errors: 1, Class: ClassError,
		TrialsDetail: []EvalTrial{
			{Trial: 1, Status: StatusPass, DurationMS: 1500},
			{Trial: 2, Status: StatusError, Error: "provider down", DurationMS: 500, Tape: []EvalTapeEntry{
				{LastMessage: &llm.Message{Role: llm.RoleUser, Content: "do it"}, Error: "provider down"},
			}},
		},
	}}}
}

// TestEvalPageCountsAndTrials: the headline counts trials and errors
// (Trials + Errors), rows are numbered from s1, a row's seconds add its
// trials' milliseconds, an error trial shows its error among its failures,
// and a trial without a transcript gets one from its tape.
func TestEvalPageCountsAndTrials(t *testing.T) {
	p := evalPage(evalWithAnErrorTrial())
	if p.Counts.Total != 2 || p.Pairs.Total != 1 || p.Pairs.Errors != 1 || len(p.Rows) != 1 {
		t.Fatalf("counts %+v, pairs %+v, %d rows; want total 2, one error pair and one row", p.Counts, p.Pairs, len(p.Rows))
	}
	r := p.Rows[0]
	if r.ID != "s1" || r.Seconds != 2 || len(r.Trials) != 2 {
		t.Fatalf("row %s: %v seconds, %d trials; want s1, 2, 2", r.ID, r.Seconds, len(r.Trials))
	}
	if f := r.Trials[1].Failures; !slices.Equal(f, []string{"provider down"}) {
		t.Errorf("error trial failures %q, want the error", f)
	}
	if f := r.Trials[0].Failures; len(f) != 0 {
		t.Errorf("passed trial failures %q, want none", f)
	}
	tr := r.Trials[1].Transcript
	if tr == nil || len(tr.Turns) != 1 || !slices.Equal(tr.Turns[0].User, []string{"do it"}) || tr.Turns[0].Content != "model call failed: provider down" {
		t.Errorf("tape transcript %+v; want one turn: the user message and the failed call", tr)
	}
}

// TestEvalJUnitErrorBody: an error trial's error is in the testcase body.
func TestEvalJUnitErrorBody(t *testing.T) {
	var b strings.Builder
	if err := evalWithAnErrorTrial().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "trial 2: error: provider down") || strings.Contains(out, "trial 1: error") ||
		!strings.Contains(out, `errors="1"`) || strings.Contains(out, `errors="-1"`) {
		t.Errorf("JUnit:\n%s\nwant trial 2's error in the body, and only it, and one error counted", out)
	}
}

// TestRoundFloatsAtTheEdges: a number or an unclosed string that ends the
// text is kept whole (no read past the end), and digits inside a string are
// never rounded.
func TestRoundFloatsAtTheEdges(t *testing.T) {
	for in, want := range map[string]string{
		`1.5`:                             `1.5`,
		`[0.1234567890]`:                  `[0.123457]`,
		`"abc`:                            `"abc`,
		`{"a":"x 0.1234567890123","b":1}`: `{"a":"x 0.1234567890123","b":1}`,
	} {
		if got := string(roundFloats([]byte(in))); got != want {
			t.Errorf("roundFloats(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestSortScenariosByPathThenName: the path decides first; the name only
// between scenarios of one path.
func TestSortScenariosByPathThenName(t *testing.T) {
	s := []ScenarioResult{{Name: "b", Path: "x.yaml"}, {Name: "z", Path: "a.yaml"}, {Name: "a", Path: "x.yaml"}}
	SortScenarios(s)
	var got []string
	for _, sc := range s {
		got = append(got, sc.Path+":"+sc.Name)
	}
	if want := []string{"a.yaml:z", "x.yaml:a", "x.yaml:b"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestReplayPageCountsAndGoldenFailures: the headline counts every
// scenario, and a golden-difference failure is left out of a row's failures
// (its diff is shown instead) only when the scenario has a golden diff.
func TestReplayPageCountsAndGoldenFailures(t *testing.T) {
	golden := goldenDifferencePrefix + "x.golden.yaml"
	p := replayPage(NewReplay([]ScenarioResult{
		{Name: "with", Path: "a.yaml", Status: StatusFail, GoldenDifference: "-a\n+b\n", Failures: []string{golden, "other"}},
		{Name: "without", Path: "b.yaml", Status: StatusFail, Failures: []string{golden}},
		{Name: "ok", Path: "c.yaml", Status: StatusPass},
	}, nil))
	if p.Counts.Total != 3 || p.Counts.Failed != 2 || p.Counts.Passed != 1 {
		t.Errorf("counts %+v, want 3 total, 2 failed, 1 passed", p.Counts)
	}
	failures := map[string][]string{}
	for _, r := range p.Rows {
		failures[r.Name] = r.Failures
	}
	if !slices.Equal(failures["with"], []string{"other"}) || !slices.Equal(failures["without"], []string{golden}) {
		t.Errorf("row failures %q", failures)
	}
}

// TestShowDivergenceOnceFrom80Bytes: a multi-line divergence of 80 bytes is
// long enough to be shown once; at 79 bytes it is repeated as it is.
func TestShowDivergenceOnceFrom80Bytes(t *testing.T) {
	for _, n := range []int{79, 80} {
		div := "first line\n" + strings.Repeat("x", n-len("first line\n"))
		rw := row{Failures: []string{div}, Trials: []trialView{{Transcript: &Transcript{TerminationError: div}}}}
		showDivergenceOnce(&rw)
		want := divergenceOnce
		if n < 80 {
			want = div
		}
		if got := rw.Trials[0].Transcript.TerminationError; got != want || rw.Failures[0] != div {
			t.Errorf("%d bytes: transcript error %q, failure %q; want %q and the divergence", n, got, rw.Failures[0], want)
		}
	}
}

// TestReadResultSizeLimit: a result file of exactly the size limit is read;
// one byte over it is refused, naming the file, before it is read.
func TestReadResultSizeLimit(t *testing.T) {
	src := filepath.Join("testdata", "suite.json")
	info, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { maxResultBytes = old }(maxResultBytes)

	maxResultBytes = info.Size()
	want, err := ReadReplay(src)
	if err != nil {
		t.Fatalf("a file of exactly the limit (%d bytes): %v, want it read", info.Size(), err)
	}
	if len(want.Scenarios) == 0 {
		t.Fatalf("%s holds no scenario: the test would prove little", src)
	}
	if r, err := Read(src); err != nil {
		t.Errorf("Read of a file of exactly the limit: %v, want it read", err)
	} else if got, ok := r.(*Replay); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("Read of a replay result: %#v, want the replay ReadReplay reads", r)
	}

	maxResultBytes = info.Size() - 1
	for name, read := range map[string]func(string) error{
		"ReadReplay": func(p string) error { _, err := ReadReplay(p); return err },
		"Read":       func(p string) error { _, err := Read(p); return err },
	} {
		err := read(src)
		if !errors.Is(err, ErrResult) || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("%s of a file one byte over the limit: %v, want an ErrResult naming %s and the limit", name, err, src)
		}
	}
}

// TestJUnitClassnameOfARootScenario: a scenario whose name is a path in the
// file system's root folder ("/smoke.yaml": an input error or an orphaned
// golden is named by the path as given on the command line, e.g. `evalrun
// replay /smoke.yaml`) is in the root folder's class, "", not grouped with
// the run's top-level scenarios ("scenarios"); a path further down keeps its
// folders, dotted.
func TestJUnitClassnameOfARootScenario(t *testing.T) {
	r := NewReplay([]ScenarioResult{
		{Name: "/smoke.yaml", Status: StatusError, Error: "cannot read"},
		{Name: "top", Status: StatusPass},
		{Name: "/srv/suite/deep.yaml", Status: StatusPass},
	}, nil)
	var b strings.Builder
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`name="/smoke.yaml" classname=""`,
		`name="top" classname="scenarios"`,
		`name="/srv/suite/deep.yaml" classname=".srv.suite"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JUnit lacks %s:\n%s", want, out)
		}
	}
}
