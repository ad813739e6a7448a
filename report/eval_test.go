package report

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestEvalRoundTrip writes a report and reads it back unchanged, and pins the
// contract's key names.
func TestEvalRoundTrip(t *testing.T) {
	cost := 0.25
	in := &Eval{
		Format: EvalFormat,
		Models: []EvalModel{{Name: "openai/m", Trials: 2, Passed: 1, PassRate: 0.5, PassAtK: map[int]float64{1: 0.5, 2: 1}, PassHatK: map[int]float64{1: 0.5, 2: 0}, Classes: map[string]int{ClassFlaky: 1}, Cost: &cost}},
		Scenarios: []EvalScenario{{
			Name: "files/append", Path: "scenarios/files/append.yaml", Model: "openai/m", Trials: 2, Passed: 1, Errors: 1, Class: ClassFlaky,
			PassAtK: map[int]float64{1: 0.5, 2: 1}, PassHatK: map[int]float64{1: 0.5, 2: 0}, Failures: map[string]int{"files[notes.txt]": 1},
			Tokens: Tokens{Input: 10, Output: 2, Cached: 1}, LatencyMS: Latency{P50: 50, P95: 70},
			TrialsDetail: []EvalTrial{{Trial: 1, Seed: 7, Passed: true, Status: StatusPass, Termination: "final_text", Iterations: 1,
				Tape: []EvalTapeEntry{{Tools: []string{"read_file"}, Response: &EvalResponse{Message: llm.AssistantMessage("done")}}}}},
		}},
		Summary: EvalSummary{TrialsPerScenario: 3, Trials: 2, Passed: 1, Failed: 1, Errors: 1},
	}
	var buf bytes.Buffer
	if err := WriteEval(&buf, in); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"format": "tapeloop-eval/v1"`, `"models"`, `"scenarios"`, `"name"`, `"model"`, `"trials"`, `"passed"`, `"errors"`, `"class"`, `"pass_at_k"`, `"pass_hat_k"`, `"failures"`, `"tokens"`, `"cost"`, `"latency_ms"`, `"p50"`, `"p95"`, `"trials_detail"`, `"trial"`, `"termination"`, `"iterations"`, `"tape"`, `"summary"`} {
		if !strings.Contains(buf.String(), key) {
			t.Errorf("the report has no %s:\n%s", key, buf.String())
		}
	}
	out, err := ReadEval(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("read back %+v\nwant %+v", out, in)
	}
}

// TestReadEvalRefusesOtherFormats checks that ReadEval names the format it
// found and wraps ErrEvalFormat.
func TestReadEvalRefusesOtherFormats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"format": "tapeloop-eval/v2"}`, `not a tapeloop eval report: format is "tapeloop-eval/v2", want "tapeloop-eval/v1"`},
		{`{}`, `not a tapeloop eval report: format is "", want "tapeloop-eval/v1"`},
		{`[1]`, `not a tapeloop eval report: json: cannot unmarshal array into Go value of type report.Eval`},
	} {
		_, err := ReadEval(strings.NewReader(tc.in))
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrEvalFormat) {
			t.Errorf("ReadEval(%s) = %v; want %q wrapping ErrEvalFormat", tc.in, err, tc.want)
		}
	}
}
