package harness

import (
	"bytes"
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// racyScenario is as sensitive to scheduling as a scenario gets: a parallel
// batch of three slow calls finishing in the opposite order to the one they
// were emitted in, a flaky call retried with backoff, and file writes.
const racyScenario = `format: tapeloop/v1
name: determinism/racy
setup:
  workspace:
    files: {log.txt: "start\n"}
  tools:
    - append_file
    - write_file
    - name: slow_a
      fixture: slow
      with: {delay: 3s, result: a}
    - name: slow_b
      fixture: slow
      with: {delay: 2s, result: b}
    - name: slow_c
      fixture: slow
      with: {delay: 1s, result: c}
    - name: fetch
      fixture: flaky
      with: {failures: 2, kind: transient, result: fetched}
  loop:
    execution: parallel
    retry: {attempts: 3, backoff: 250ms}
input:
  - {role: user, content: go}
tape:
  - response:
      tool_calls:
        - {id: a, name: slow_a, arguments: {}}
        - {id: b, name: slow_b, arguments: {}}
        - {id: c, name: slow_c, arguments: {}}
        - {id: f, name: fetch, arguments: {}}
        - {id: w, name: write_file, arguments: {path: out.txt, content: "one\n"}}
  - response:
      tool_calls:
        - {id: l1, name: append_file, arguments: {path: log.txt, content: "x\n"}}
        - {id: s2, name: slow_c, arguments: {}}
        - {id: l2, name: append_file, arguments: {path: out.txt, content: "two\n"}}
  - response:
      content: done
`

func TestRunIsDeterministic(t *testing.T) {
	s, err := scenario.Parse([]byte(racyScenario), "racy.yaml", "racy")
	if err != nil {
		t.Fatal(err)
	}
	golden := func(seed uint64) []byte {
		t.Helper()
		o, err := Run(context.Background(), s, &RunOptions{Perturb: seed})
		if err != nil {
			t.Fatal(err)
		}
		if o.Termination != "final_text" || o.Error != "" {
			t.Fatalf("seed %d: terminated with %s (%s)", seed, o.Termination, o.Error)
		}
		g, err := o.Golden(redact.Default())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	want := golden(0)
	for seed := uint64(1); seed <= 50; seed++ {
		if got := golden(seed * 0x9e3779b97f4a7c15); !bytes.Equal(got, want) {
			t.Fatalf("perturbation seed %d changed the outcome (- unperturbed, + perturbed; first difference):\n%s", seed, udiff.FirstHunk(string(want), string(got)))
		}
	}
	if !bytes.Contains(want, []byte("backoff: 500ms")) || !bytes.Contains(want, []byte("+two")) {
		t.Errorf("the scenario did not retry or write as intended:\n%s", want)
	}
}
