package bridge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
)

// rawRun runs a scenario with no tape whose agent posts each of bodies (the
// JSON "messages" arrays of Chat Completions requests) in turn against
// model, and returns the error the agent returns after the last.
func rawRun(t *testing.T, model llm.Model, agentErr error, bodies ...string) *harness.Outcome {
	t.Helper()
	s := load(t, writeScenario(t, "format: tapeloop/v1\nsetup:\n  agent: {go: raw}\ninput: [{role: user, content: go}]\ntape: []\n"))
	agentFn := func(ctx context.Context, r *bridge.Run) error {
		for i, msgs := range bodies {
			resp, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":`+msgs+`}`))
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && agentErr != nil {
				return agentErr
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("request %d: HTTP %d: %s", i+1, resp.StatusCode, b)
			}
		}
		return agentErr
	}
	o, err := bridge.RunScenario(t.Context(), s, agentFn, &bridge.RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const (
	userGo       = `{"role":"user","content":"go"}`
	callsA       = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`
	callsB       = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]}`
	resultOfA    = `{"role":"tool","tool_call_id":"call_1","content":"A"}`
	resultOfB    = `{"role":"tool","tool_call_id":"call_1","content":"B"}`
	readA, readB = `{"path":"a"}`, `{"path":"b"}`
)

// callResults lists each turn's calls as "arguments=result" ("-" when the
// agent sent no result back).
func callResults(o *harness.Outcome) []string {
	var got []string
	for _, turn := range o.Run.Turns {
		for _, c := range turn.Calls {
			res := "-"
			if c.Result != nil {
				res = c.Result.Content
			}
			got = append(got, c.Call.Arguments+"="+res)
		}
	}
	return got
}

// TestCallIDsReusedAcrossTurns: a model that numbers its calls per turn
// (call_1 in every turn, as some local servers do) has each call matched
// with the result sent after it, not with an earlier turn's result of the
// same ID.
func TestCallIDsReusedAcrossTurns(t *testing.T) {
	o := rawRun(t, script(call("call_1", "read_file", readA), call("call_1", "read_file", readB), text("done")), nil,
		"["+userGo+"]",
		"["+userGo+","+callsA+","+resultOfA+"]",
		"["+userGo+","+callsA+","+resultOfA+","+callsB+","+resultOfB+"]")
	got, want := strings.Join(callResults(o), " "), readA+"=A "+readB+"=B"
	if got != want {
		t.Errorf("calls and their results: %s, want %s", got, want)
	}
}

// TestResultWithoutItsCall: an agent that trims its history and sends a
// tool result without the assistant message that made the call still has
// that result matched to the call by its ID.
func TestResultWithoutItsCall(t *testing.T) {
	o := rawRun(t, script(call("call_1", "read_file", readA), text("done")), nil,
		"["+userGo+"]",
		"["+userGo+","+resultOfA+"]")
	got, want := strings.Join(callResults(o), " "), readA+"=A"
	if got != want {
		t.Errorf("calls and their results: %s, want %s", got, want)
	}
}

// TestAgentGivingUpAfterAModelError: an agent that returns an error right
// after a model call failed ended by a model error, as a native run does;
// after a model call that succeeded the error is the agent's own.
func TestAgentGivingUpAfterAModelError(t *testing.T) {
	giveUp := fmt.Errorf("the agent gives up")
	for _, tc := range []struct {
		name  string
		model llm.Model
		want  string
	}{
		{"after a failed call", script(rateLimited), "model_error"},
		{"after an answer", script(text("done")), "agent_error"},
	} {
		o := rawRun(t, tc.model, giveUp, "["+userGo+"]")
		if string(o.Termination) != tc.want || !strings.Contains(o.Error, "gives up") {
			t.Errorf("%s: the run ended with %s (%s), want %s", tc.name, o.Termination, o.Error, tc.want)
		}
	}
}
