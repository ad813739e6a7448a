package cost_test

import (
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/llm"
)

func ask(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.UserMessage(text)}}
}

func answer(text string, input int) *llm.Response {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text}, Usage: llm.Usage{InputTokens: input, OutputTokens: 1}}
}

// checkPairs fails unless each call's usage is the one its answer was
// given: want[i] the input tokens of request i's answer, 0 for none.
func checkPairs(t *testing.T, calls []cost.Call, want ...int) {
	t.Helper()
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d", len(calls), len(want))
	}
	for i, c := range calls {
		if c.Usage.InputTokens != want[i] {
			t.Errorf("request %d (%q) paired with the usage of %d input tokens, want %d",
				i, c.Request.Messages[0].Content, c.Usage.InputTokens, want[i])
		}
	}
}

// Two calls in flight at once, answered in the other order: each answer
// pairs with the request of its own model call, not the one that came
// first.
func TestCollectorPairsOverlappingCallsByModelCall(t *testing.T) {
	var c cost.Collector
	c.Observe(agent.Event{Kind: agent.EventModelRequest, ModelCall: 1, Request: ask("a")})
	c.Observe(agent.Event{Kind: agent.EventModelRequest, ModelCall: 2, Request: ask("b")})
	c.Observe(agent.Event{Kind: agent.EventModelResponse, ModelCall: 2, Response: answer("to b", 200)})
	c.Observe(agent.Event{Kind: agent.EventModelResponse, ModelCall: 1, Response: answer("to a", 100)})
	calls := c.Calls()
	checkPairs(t, calls, 100, 200)
	if calls[0].Answer.Content != "to a" || calls[1].Answer.Content != "to b" {
		t.Errorf("answers %q, %q: want to a, to b", calls[0].Answer.Content, calls[1].Answer.Content)
	}
}

// A call that failed has no answer: the next call's answer is not its.
func TestCollectorFailedCallKeepsNoAnswer(t *testing.T) {
	for _, numbered := range []bool{true, false} {
		n := func(k int) int {
			if numbered {
				return k
			}
			return 0
		}
		var c cost.Collector
		c.Observe(agent.Event{Kind: agent.EventModelRequest, ModelCall: n(1), Request: ask("a")})
		c.Observe(agent.Event{Kind: agent.EventModelError, ModelCall: n(1), Error: "overloaded"})
		c.Observe(agent.Event{Kind: agent.EventModelRequest, ModelCall: n(2), Request: ask("b")})
		c.Observe(agent.Event{Kind: agent.EventModelRetry, ModelCall: n(2), Error: "rate limited"})
		c.Observe(agent.Event{Kind: agent.EventModelResponse, ModelCall: n(2), Response: answer("to b", 200)})
		checkPairs(t, c.Calls(), 0, 200)
	}
}
