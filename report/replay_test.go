package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestFromVerdict(t *testing.T) {
	r := replayOf(t, fixtureSuite(t), nil)
	if got := []string{r.Scenarios[0].Name, r.Scenarios[1].Name}; got[0] != "files/append" || got[1] != "hostile/script" {
		t.Fatalf("scenarios %v, want files/append then hostile/script", got)
	}
	want := ReplaySummary{Scenarios: 2, Passed: 1, Failed: 1, Seconds: 0.004}
	if r.Summary != want {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	pass, fail := r.Scenarios[0], r.Scenarios[1]
	if pass.Status != StatusPass || pass.GoldenDifference != "" || len(pass.Failures) != 0 {
		t.Errorf("files/append: %+v", pass)
	}
	wantExp := []Expectation{{Key: "termination", Passed: true}, {Key: "repairs", Passed: true}, {Key: "files", Passed: true}}
	if !reflect.DeepEqual(pass.Expectations, wantExp) {
		t.Errorf("files/append expectations %+v, want %+v", pass.Expectations, wantExp)
	}
	if fail.Status != StatusFail || !strings.Contains(fail.GoldenDifference, "-final: It was in.\n+final: It is in.\n") {
		t.Errorf("hostile/script: status %s, golden difference:\n%s", fail.Status, fail.GoldenDifference)
	}
	if len(fail.Expectations) != 2 || !fail.Expectations[0].Passed || fail.Expectations[1].Passed ||
		fail.Expectations[1].Key != "final" || len(fail.Expectations[1].Messages) != 1 ||
		!strings.Contains(fail.Expectations[1].Messages[0], `expect.final: expected the final text to contain "goodbye", found "It is in."`) {
		t.Errorf("hostile/script expectations %+v", fail.Expectations)
	}
	tr := fail.Transcript
	if tr == nil || len(tr.Turns) != 3 {
		t.Fatalf("transcript %+v, want 3 turns", tr)
	}
	if got := tr.Turns[0].User; len(got) != 1 || got[0] != "Put a script in page.html." {
		t.Errorf("turn 1 user %q", got)
	}
	if tr.Turns[1].User != nil {
		t.Errorf("turn 2 user %q, want none", tr.Turns[1].User)
	}
	if c := tr.Turns[1].Calls[0]; c.Name != "read_file" || c.Result != hostile {
		t.Errorf("turn 2 call %+v, want read_file returning the hostile string", c)
	}
	if !strings.Contains(tr.Turns[0].Diff, "-<p>old</p>") {
		t.Errorf("turn 1 diff:\n%s", tr.Turns[0].Diff)
	}
	if tr.Final != "It is in." {
		t.Errorf("final %q", tr.Final)
	}
}

func TestReplayJSONRoundTrip(t *testing.T) {
	r := replayOf(t, fixtureSuite(t), &Shard{Index: 1, Total: 1})
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<script>window.pwned=1;`) {
		t.Error("the JSON escapes HTML characters; it should keep the text readable")
	}
	back, err := DecodeReplay("r.json", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("the decoded result differs from the written one")
	}
}

func TestDecodeReplayErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"syntax", "{\n  \"format\": \"tapeloop-replay/v1\",\n  \"scenarios\": [}\n", "not a tapeloop result: r.json:3:17: invalid character '}' looking for beginning of value"},
		{"type", "{\"format\": \"tapeloop-replay/v1\",\n\"summary\": {\"passed\": \"two\"}}", "not a tapeloop result: r.json:2:28: summary.passed: a JSON string where int belongs"},
		{"format", `{"format": "tapeloop-eval/v1"}`, `not a tapeloop result: r.json: format "tapeloop-eval/v1", want "tapeloop-replay/v1"`},
		{"no format", `{"passed": 1}`, `not a tapeloop result: r.json: format "", want "tapeloop-replay/v1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeReplay("r.json", []byte(c.in))
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}
