package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// UserFunc writes the next user message of a live conversation whose user
// is a model (setup.user). conversation is what the user has seen so far,
// in order: the user's messages (role user) and the agent's final answers
// (role assistant); system prompts, tool calls and tool results are left
// out. ok false ends the conversation (the user is done); an error ends the
// run with model_error, its message naming the user model. Build one per
// run (it may count the turns it wrote); eval.NewUser builds tapeloop's.
type UserFunc func(ctx context.Context, conversation []llm.Message) (next llm.Message, ok bool, err error)

// ErrNoUser is wrapped by Run's error for a live run of a scenario with
// setup.user when RunOptions.User is nil: nothing can write its user's
// messages, and running it without them would silently end after the first
// answer.
var ErrNoUser = errors.New("the scenario's user is a model (setup.user), but the run has no user model (RunOptions.User)")

// simulatedUser serves the user turns of a live run from a UserFunc: it
// keeps the conversation the user has seen from the loop's events, and the
// user model's error, which ends the run.
type simulatedUser struct {
	fn UserFunc
	// conversation is what the user has seen so far; last is the latest
	// model response, the final answer when the loop asks for the user.
	conversation []llm.Message
	last         *llm.Message
	err          error
}

// newSimulatedUser starts the conversation from the visible messages of
// input: its user messages and the assistant's text answers.
func newSimulatedUser(fn UserFunc, input []llm.Message) *simulatedUser {
	u := &simulatedUser{fn: fn}
	for _, m := range input {
		u.see(m)
	}
	return u
}

// see adds m to the conversation when the user sees it.
func (u *simulatedUser) see(m llm.Message) {
	switch {
	case m.Role == llm.RoleUser:
		u.conversation = append(u.conversation, llm.Message{Role: llm.RoleUser, Content: m.Content, Name: m.Name})
	case m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0 && m.Content != "":
		u.conversation = append(u.conversation, llm.Message{Role: llm.RoleAssistant, Content: m.Content})
	}
}

// observe notes each model response; it runs on the loop's goroutine, as
// next does.
func (u *simulatedUser) observe(e agent.Event) {
	if e.Kind == agent.EventModelResponse && e.Response != nil {
		m := e.Response.Message
		u.last = &m
	}
}

// next asks the user model for its message after a final answer; false
// ends the conversation (the user is done, or failed: see err).
func (u *simulatedUser) next(ctx context.Context) (llm.Message, bool) {
	if u.last != nil {
		u.see(llm.Message{Role: llm.RoleAssistant, Content: u.last.Content})
		u.last = nil
	}
	m, ok, err := u.fn(ctx, u.conversation)
	if err != nil {
		u.err = err
		return llm.Message{}, false
	}
	if !ok {
		return llm.Message{}, false
	}
	m.Role = llm.RoleUser
	u.see(m)
	return m, true
}

// end makes a run the user model failed end with model_error, naming the
// user model and the turn it failed after.
func (u *simulatedUser) end(s *scenario.Scenario, o *Outcome) {
	if u.err == nil {
		return
	}
	o.Termination = agent.ReasonModelError
	o.Error = fmt.Sprintf("user model %s failed after turn %d: %v", s.Setup.User.Model, o.Iterations, u.err)
}
