package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

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

// SimulatedUser plays a UserFunc as the user of one live run: it keeps the
// conversation the user has seen from the run's events (Observe), asks the
// UserFunc for each next message (Next, in agent.Options.NextUser's
// shape), and makes a run the user model failed end with model_error
// (End). Run uses one for a scenario with setup.user; a loop that is not
// tapeloop's (package bridge) is driven the same way.
type SimulatedUser struct {
	fn    UserFunc
	model string

	mu sync.Mutex
	// conversation is what the user has seen so far; last is the latest
	// model response, the final answer when the loop asks for the user.
	conversation []llm.Message
	last         *llm.Message
	err          error
}

// NewSimulatedUser starts the conversation of the user of s (setup.user;
// without it, errors name "the user model"), played by fn, from the
// visible messages of s's input: its user messages and the assistant's
// text answers.
func NewSimulatedUser(fn UserFunc, s *scenario.Scenario) *SimulatedUser {
	u := &SimulatedUser{fn: fn}
	if s.Setup.User != nil {
		u.model = s.Setup.User.Model
	}
	for _, m := range s.Input {
		u.see(m)
	}
	return u
}

// see adds m to the conversation when the user sees it.
func (u *SimulatedUser) see(m llm.Message) {
	switch {
	case m.Role == llm.RoleUser:
		u.conversation = append(u.conversation, llm.Message{Role: llm.RoleUser, Content: m.Content, Name: m.Name})
	case m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0 && m.Content != "":
		u.conversation = append(u.conversation, llm.Message{Role: llm.RoleAssistant, Content: m.Content})
	}
}

// Observe notes each model response (model_response events), in the
// run's order; it may be called from another goroutine than Next.
func (u *SimulatedUser) Observe(e agent.Event) {
	if e.Kind == agent.EventModelResponse && e.Response != nil {
		m := e.Response.Message
		u.mu.Lock()
		u.last = &m
		u.mu.Unlock()
	}
}

// Next asks the user model for its message after a final answer (the
// latest model response); false ends the conversation: the user is done,
// or its model failed (End reports it).
func (u *SimulatedUser) Next(ctx context.Context) (llm.Message, bool) {
	u.mu.Lock()
	answer := ""
	if u.last != nil {
		answer = u.last.Content
	}
	u.mu.Unlock()
	return u.NextAfter(ctx, answer)
}

// NextAfter is Next after the answer the agent gave (a bridged agent's
// reported answer, rather than the latest model response); "" shows the
// user no answer. After the user model failed it is not asked again.
func (u *SimulatedUser) NextAfter(ctx context.Context, answer string) (llm.Message, bool) {
	u.mu.Lock()
	u.last = nil
	if u.err != nil {
		u.mu.Unlock()
		return llm.Message{}, false
	}
	u.see(llm.Message{Role: llm.RoleAssistant, Content: answer})
	conversation := slices.Clone(u.conversation)
	u.mu.Unlock()
	m, ok, err := u.fn(ctx, conversation)
	u.mu.Lock()
	defer u.mu.Unlock()
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

// End makes o, the outcome of a run whose user model failed, end with
// model_error, naming the user model and the turn it failed after; it
// leaves any other outcome alone.
func (u *SimulatedUser) End(o *Outcome) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.err == nil || o == nil {
		return
	}
	name := "the user model"
	if u.model != "" {
		name = "user model " + u.model
	}
	o.Termination = agent.ReasonModelError
	o.Error = fmt.Sprintf("%s failed after turn %d: %v", name, o.Iterations, u.err)
}
