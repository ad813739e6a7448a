package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm/faults"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// minimal is the smallest valid scenario body after the format line.
const minimal = "input: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n"

func TestFaultsDecode(t *testing.T) {
	src := "format: tapeloop/v1\n" + minimal + `faults:
  - {call: 2, http: 429, retry_after: 2s}
  - {call: 4, stream: cut, after_bytes: 120}
  - {call: 5, arguments: truncate}
  - {call: 6, latency: 30s}
  - {call: 7, stream: error, type: overloaded}
`
	s, err := scenario.Parse([]byte(src), "f.yaml", "f")
	if err != nil {
		t.Fatal(err)
	}
	want := []faults.Fault{
		{Call: 2, HTTP: 429, RetryAfter: 2 * time.Second},
		{Call: 4, Stream: faultspec.StreamCut, AfterBytes: 120},
		{Call: 5, Arguments: faultspec.ArgumentsTruncate},
		{Call: 6, Latency: 30 * time.Second},
		{Call: 7, Stream: faultspec.StreamError, Type: faultspec.TypeOverloaded},
	}
	if len(s.Faults) != len(want) {
		t.Fatalf("faults %+v", s.Faults)
	}
	for i := range want {
		if s.Faults[i] != want[i] {
			t.Errorf("faults[%d] = %+v, want %+v", i, s.Faults[i], want[i])
		}
	}
	if s2, _ := scenario.Parse([]byte("format: tapeloop/v1\n"+minimal), "g.yaml", "g"); s2.Faults != nil {
		t.Errorf("a scenario without faults: has %+v", s2.Faults)
	}
}

func TestFaultsDecodeErrors(t *testing.T) {
	head := "format: tapeloop/v1\n" + minimal
	for _, c := range []struct{ name, faults, want string }{
		{"not a list", "faults: {call: 1}\n", `f.yaml:4: faults: want a sequence, got a mapping`},
		{"unknown key", "faults:\n  - {call: 1, htpp: 500}\n", `f.yaml:5: faults[0]: unknown key "htpp" (want call, http, retry_after, stream, after_bytes, type, arguments, latency)`},
		{"two faults in one", "faults:\n  - {call: 1, http: 500, latency: 1s}\n", `f.yaml:5: faults[0]: http and latency in one fault (want exactly one)`},
		{"same call twice", "faults:\n  - {call: 1, http: 500}\n  - {call: 1, http: 429}\n", `f.yaml:6: faults[1]: call 1 already has faults[0] (one fault a call)`},
		{"bad stream", "faults:\n  - {call: 1, stream: drop}\n", `f.yaml:5: faults[0].stream: unknown value "drop" (want cut | error)`},
		{"bad duration", "faults:\n  - {call: 1, latency: long}\n", `f.yaml:5: faults[0].latency: want a duration such as 100ms or 2s, got "long"`},
		{"status not an error", "faults:\n  - {call: 1, http: 200}\n", `f.yaml:5: faults[0].http: want an integer from 400 to 599, got 200`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(head+c.faults), "f.yaml", "f")
			if err == nil || err.Error() != c.want || !errors.Is(err, scenario.ErrScenario) {
				t.Fatalf("error:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

// TestModelRetriesInOutcomeAndExpect replays a typed 429 under
// setup.loop.model_retry: the retry waits the Retry-After on the virtual
// clock, the golden lists it, and expect.model_retries checks the count.
func TestModelRetriesInOutcomeAndExpect(t *testing.T) {
	src := `format: tapeloop/v1
setup:
  loop:
    model_retry: {attempts: 3, backoff: 1s}
input: [{role: user, content: hi}]
tape:
  - error: {message: slow down, kind: rate_limited, status: 429, retry_after: 2s}
  - response: {content: hello}
expect:
  termination: final_text
  model_retries: 2
`
	s, err := scenario.Parse([]byte(src), "r.yaml", "r")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := `iterations: 1
model_retries:
  - turn: 1
    attempt: 1
    kind: rate_limited
    backoff: 2s
    error: 'replay: tape[0] at r.yaml:7: recorded provider error: rate_limited (HTTP 429), retry after 2s: slow down'
`
	if !strings.Contains(string(golden), want) {
		t.Errorf("golden lacks the retry:\n%s\nwant a part:\n%s", golden, want)
	}
	got := checkAll(s, o)
	if len(got) != 1 || got[0] != "r.yaml:11: expect.model_retries: expected 2 failed model calls retried, found 1" {
		t.Errorf("Check = %q", got)
	}
}
