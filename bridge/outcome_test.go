package bridge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
)

// rawScenario is a scenario with no tape for an agent posting raw requests.
const rawScenario = "format: tapeloop/v1\nsetup:\n  agent: {go: raw}\ninput: [{role: user, content: go}]\ntape: []\n"

// rawRun runs rawScenario with an agent that posts each of bodies (the
// JSON "messages" arrays of Chat Completions requests) in turn against
// model, and returns the error the agent returns after the last.
func rawRun(t *testing.T, model llm.Model, agentErr error, bodies ...string) *harness.Outcome {
	t.Helper()
	s := load(t, writeScenario(t, rawScenario))
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
	o, err := bridge.Runner(agentFn, nil)(t.Context(), s, &harness.RunOptions{Model: model})
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

// TestRetriedCallAttempts: a request the agent repeats unchanged after each
// failure is one model call whose attempts are numbered: each failure and
// the answer carry their attempt's number, each retry the number of the
// attempt that failed before it; the outcome lists the retries with the
// same numbers. Each failure's event carries its kind and error text.
func TestRetriedCallAttempts(t *testing.T) {
	s := load(t, writeScenario(t, rawScenario))
	agentFn := func(ctx context.Context, r *bridge.Run) error {
		for range 3 {
			resp, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[`+userGo+`]}`))
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		return fmt.Errorf("three failures")
	}
	var events, failures []string
	observe := func(e agent.Event) {
		if strings.HasPrefix(string(e.Kind), "model_") {
			events = append(events, fmt.Sprintf("%s %d", e.Kind, e.Attempt))
		}
		if e.Kind == agent.EventModelError {
			failures = append(failures, fmt.Sprintf("%s: %s", e.ErrorKind, e.Error))
		}
	}
	o, err := bridge.Runner(agentFn, nil)(t.Context(), s, &harness.RunOptions{Model: script(rateLimited, rateLimited, text("done")), Observer: observe})
	if err != nil {
		t.Fatal(err)
	}
	want := "model_request 0|model_error 1|model_retry 1|model_error 2|model_retry 2|model_response 3"
	if got := strings.Join(events, "|"); got != want {
		t.Errorf("the model events (kind, attempt) are\n%s\nwant\n%s", got, want)
	}
	// Each failure's event says what failed, as a native run's does.
	fail := fmt.Sprintf("%s: %s", rateLimited.Kind, rateLimited.Error())
	if want := []string{fail, fail}; !slices.Equal(failures, want) {
		t.Errorf("the model_error events say %q, want %q", failures, want)
	}
	var retries []string
	for _, r := range o.ModelRetries {
		retries = append(retries, fmt.Sprintf("turn %d attempt %d", r.Turn, r.Attempt))
	}
	if got, want := strings.Join(retries, ", "), "turn 1 attempt 1, turn 1 attempt 2"; got != want {
		t.Errorf("the outcome's model retries: %s, want %s", got, want)
	}
	if o.Iterations != 1 || o.Run.ModelRetries != 2 {
		t.Errorf("%d model calls with %d retries, want 1 with 2", o.Iterations, o.Run.ModelRetries)
	}
}
