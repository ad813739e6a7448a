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
