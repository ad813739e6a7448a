package bridge

import (
	"fmt"
	"slices"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// finish closes the last turn and builds the run the traffic shows, as the
// loop would have recorded it: a turn per answered call, each call with
// the result the agent sent back, the conversation (the input, each answer
// and the results), the model calls and retries, the usage and how the run
// ended. runErr is what a native run would have returned: the divergence
// when the replay left its tape, else the agent's error.
func (t *traffic) finish(r *Run, agentErr error) (*agent.RunResult, error, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.closeTurn(); err != nil {
		return nil, nil, err
	}
	t.inTapeOrder()
	run := &agent.RunResult{Messages: cloneMessages(r.Input)}
	users, answers := t.users, t.answers
	t.answeredByTurn = map[int][]string{}
	speak := func(before int) {
		// The agent's answers come before the user's next message.
		var here []string
		for len(answers) > 0 && answers[0].at <= before {
			here = append(here, answers[0].msg.Content)
			answers = answers[1:]
		}
		if shown := answersShown(here, t.log, before); shown != nil {
			for _, a := range shown {
				run.Messages = append(run.Messages, llm.AssistantMessage(a))
			}
			t.answeredByTurn[len(run.Turns)] = shown
		}
		for len(users) > 0 && users[0].at <= before {
			run.Messages = append(run.Messages, users[0].msg.Clone())
			users = users[1:]
		}
	}
	for i, ex := range t.log {
		speak(i)
		if !ex.retry {
			run.ModelCalls++
		}
		if i+1 < len(t.log) && t.log[i+1].retry {
			run.ModelRetries++
		}
		if ex.resp == nil {
			continue
		}
		run.Usage = run.Usage.Add(ex.resp.Usage)
		turn := &agent.Turn{Index: len(run.Turns) + 1, Response: ex.resp,
			Request: agent.RequestSummary{Tools: ex.req.ToolNames(), Messages: len(ex.req.Messages)}}
		run.Messages = append(run.Messages, ex.resp.Message.Clone())
		var next *llm.Request
		if i+1 < len(t.log) {
			next = t.log[i+1].req
		}
		for _, c := range ex.resp.Message.ToolCalls {
			rec := &agent.CallRecord{Call: c}
			if m, ok := resultOf(next, c.ID); ok {
				rec.Result = &tools.Result{Content: m.Content}
				run.Messages = append(run.Messages, m)
			}
			turn.Calls = append(turn.Calls, rec)
		}
		run.Turns = append(run.Turns, turn)
	}
	speak(len(t.log))
	var runErr error
	switch {
	case t.diverged != nil:
		runErr = fmt.Errorf("%w: turn %d: %w", agent.ErrModel, run.ModelCalls, t.diverged)
		run.Termination = agent.Termination{Reason: agent.ReasonModelError, Err: runErr, Error: runErr.Error()}
	case agentErr != nil:
		reason := agent.ReasonAgentError
		if n := len(t.log); n > 0 && t.log[n-1].err != nil {
			reason = agent.ReasonModelError
		}
		runErr = agentErr
		run.Termination = agent.Termination{Reason: reason, Err: agentErr, Error: agentErr.Error()}
	default:
		run.Termination = agent.Termination{Reason: agent.ReasonFinalText}
	}
	return run, runErr, nil
}

// inTapeOrder lays out a replay's exchanges in the order of the tape
// entries that served them: calls an agent sends at once arrive in any
// order and are matched to their entries by what they ask (replay.Model),
// so the run reads the same, turn by turn, whichever came first. A live
// run, or one with a call no entry served, is left as it came. Requests
// sent at once are only ever answered from entries between two user
// turns, so the user turns keep their places.
func (t *traffic) inTapeOrder() {
	for _, ex := range t.log {
		if ex.entry < 0 {
			return
		}
	}
	slices.SortStableFunc(t.log, func(a, b exchange) int { return a.entry - b.entry })
}

// answersShown returns the answers the agent reported after the first n
// exchanges of log (here) that are not already the model's answer: nil
// when it reported none, or just the text of the model's answer that
// ended the n-th exchange (the model's message is in the conversation and
// the golden); else every one, in order.
func answersShown(here []string, log []exchange, n int) []string {
	if len(here) == 0 {
		return nil
	}
	if len(here) == 1 && n > 0 && log[n-1].resp != nil && log[n-1].resp.Message.Content == here[0] && here[0] != "" {
		return nil
	}
	return here
}

// showAnswers sets each turn's Answered to the answers finish found shown
// after it.
func (t *traffic) showAnswers(o *harness.Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range o.Turns {
		if a := t.answeredByTurn[o.Turns[i].Index]; a != nil {
			o.Turns[i].Answered = slices.Clone(a)
		}
	}
}

// resultOf finds the result the agent sent back for call id in req: a tool
// message answering it after the last assistant message that made the call.
func resultOf(req *llm.Request, id string) (llm.Message, bool) {
	if req == nil {
		return llm.Message{}, false
	}
	from := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llm.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c llm.ToolCall) bool { return c.ID == id }) {
			from = i
			break
		}
	}
	for _, m := range req.Messages[from+1:] {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Clone(), true
		}
	}
	return llm.Message{}, false
}
