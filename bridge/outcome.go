package bridge

import (
	"fmt"
	"slices"

	"github.com/tapeloop/tapeloop/agent"
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
	run := &agent.RunResult{Messages: cloneMessages(r.Input)}
	users := t.users
	speak := func(before int) {
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
	final, reportedFinal := "", r.final != nil
	if reportedFinal {
		final = *r.final
		if last := run.FinalText(); final != last || len(run.Messages) == 0 || run.Messages[len(run.Messages)-1].Role != llm.RoleAssistant {
			run.Messages = append(run.Messages, llm.AssistantMessage(final))
		}
	}
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
