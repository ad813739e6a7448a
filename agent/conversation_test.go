package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// users returns an Options.NextUser serving the texts in order.
func users(texts ...string) func(context.Context) (llm.Message, bool) {
	return func(context.Context) (llm.Message, bool) {
		if len(texts) == 0 {
			return llm.Message{}, false
		}
		m := llm.UserMessage(texts[0])
		texts = texts[1:]
		return m, true
	}
}

func TestConversationGoesOnAfterAFinalText(t *testing.T) {
	lookup := &counted{spec: tools.Spec{Name: "lookup", Safety: tools.Safety{Pure: true}}}
	m := script(
		respond(llm.ToolCall{Name: "lookup", Arguments: `{"a":1}`}),
		final("first answer"),
		respond(llm.ToolCall{Name: "lookup", Arguments: `{"a":1}`}),
		final("second answer"),
	)
	var log eventLog
	run := mustRun(t, m, newRegistry(t, lookup), &agent.Options{
		NextUser: users("and again?"), Memoize: true, Observer: log.observe,
	})
	if run.Termination.Reason != agent.ReasonFinalText || run.ModelCalls != 4 || len(run.Turns) != 4 {
		t.Fatalf("termination %s after %d model calls, %d turns; want final_text, 4, 4", run.Termination.Reason, run.ModelCalls, len(run.Turns))
	}
	// The user message follows the first final text in the history and in
	// the third request.
	req := m.request(t, 3)
	if got := req.Messages[len(req.Messages)-1]; got.Role != llm.RoleUser || got.Content != "and again?" {
		t.Errorf("third request ends with %+v, want the user turn", got)
	}
	if prev := req.Messages[len(req.Messages)-2]; prev.Role != llm.RoleAssistant || prev.Content != "first answer" {
		t.Errorf("the user turn follows %+v, want the first answer", prev)
	}
	// Generated IDs and the memo span the conversation.
	if id := run.Turns[2].Calls[0].Call.ID; id != "call_gen_2" {
		t.Errorf("the second turn's call id = %s, want call_gen_2", id)
	}
	if !run.Turns[2].Calls[0].Memoized || lookup.n.Load() != 1 {
		t.Errorf("the repeated lookup ran %d times (memoized: %v), want once and memoized", lookup.n.Load(), run.Turns[2].Calls[0].Memoized)
	}
	if run.FinalText() != "second answer" {
		t.Errorf("FinalText = %q", run.FinalText())
	}
	ev := log.ofKind(agent.EventUserMessage)
	if len(ev) != 1 || ev[0].Turn != 2 || ev[0].User.Content != "and again?" {
		t.Errorf("user_message events = %+v, want one after turn 2", ev)
	}
	equalStrings(t, "event kinds", log.kinds(), []string{
		"run_start",
		"model_request", "model_response", "tool_start:call_gen_1", "tool_end:call_gen_1", "turn_end",
		"model_request", "model_response", "turn_end", "user_message",
		"model_request", "model_response", "tool_start:call_gen_2", "memo_hit:call_gen_2", "turn_end",
		"model_request", "model_response", "turn_end",
		"run_end",
	})
}

func TestConversationIterationLimitSpansUserTurns(t *testing.T) {
	m := script(final("one"), final("two"), final("three"))
	run, err := agent.Run(context.Background(), m, newRegistry(t), []llm.Message{llm.UserMessage("go")},
		&agent.Options{MaxIterations: 2, NextUser: users("more", "more")})
	if !errors.Is(err, agent.ErrMaxIterations) || run.Termination.Reason != agent.ReasonMaxIterations || run.ModelCalls != 2 {
		t.Fatalf("err %v, termination %s after %d calls; want max_iterations after 2", err, run.Termination.Reason, run.ModelCalls)
	}
}

func TestConversationEndsWhenNoUserSpeaks(t *testing.T) {
	m := script(final("done"))
	run := mustRun(t, m, newRegistry(t), &agent.Options{NextUser: users()})
	if run.Termination.Reason != agent.ReasonFinalText || run.ModelCalls != 1 {
		t.Fatalf("termination %s after %d calls", run.Termination.Reason, run.ModelCalls)
	}
}
