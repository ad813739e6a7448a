package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextShowsExecutedWhenTheValueDiffers: the transcript text shows the
// arguments as executed only when they are a different JSON value from
// those emitted, as the golden does; spacing and key order are not a
// difference.
func TestTextShowsExecutedWhenTheValueDiffers(t *testing.T) {
	for _, tc := range []struct {
		name, arguments, executed string
		shown                     bool
	}{
		{"spacing", `{ "a": 1 }`, `{"a":1}`, false},
		{"key order", `{"b": [1, 2], "a": {"x": null}}`, `{"a":{"x":null},"b":[1,2]}`, false},
		{"same text", `{"a":1}`, `{"a":1}`, false},
		{"never ran", `{"a":1}`, "", false},
		{"repaired", `{"a":1,}`, `{"a":1}`, true},
		{"coerced", `{"a":"1"}`, `{"a":1}`, true},
		{"another number", `{"a":1}`, `{"a":1.5}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Transcript{Turns: []Turn{{Index: 1, Calls: []Call{{ID: "c1", Name: "f", Arguments: tc.arguments, Executed: tc.executed, Result: "ok"}}}}}
			text := tr.Text()
			if got := strings.Contains(text, "executed"); got != tc.shown {
				t.Errorf("executed shown: %v, want %v; text:\n%s", got, tc.shown, text)
			}
			if tc.shown && !strings.Contains(text, tc.executed) {
				t.Errorf("the text lacks the executed arguments %s:\n%s", tc.executed, text)
			}
			// The HTML report decides the same way.
			var page bytes.Buffer
			r := &Replay{Format: ReplayFormat, Scenarios: []ScenarioResult{{Name: "s", Transcript: tr}}}
			if err := r.WriteHTML(&page); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(page.String(), "<dt>executed</dt>"); got != tc.shown {
				t.Errorf("HTML: executed shown: %v, want %v", got, tc.shown)
			}
		})
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
