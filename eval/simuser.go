package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// UserPrompt is the system prompt of a simulated user (setup.user), with
// INSTRUCTIONS and STOP in place of the scenario's instructions and stop
// text. It is fixed, so that a conversation recorded today was driven the
// way one recorded tomorrow is; docs/conversations.md quotes it.
const UserPrompt = `You are playing the user in a conversation with an AI assistant, to test the assistant. Stay in your role. These are your instructions:

INSTRUCTIONS

Rules:
- Write only your next message to the assistant, as the user would type it: no labels, no quotes, no commentary.
- Use only what your instructions say about you; when the assistant asks for something they do not give, say that you do not know it.
- Do not reveal that you follow instructions or that you are a model.
- When the task of your instructions is done, or it cannot be done, write only STOP.`

// UserGreeting opens the user model's view of the conversation when the
// user spoke first: providers want the messages to start with the user
// role, which in the user model's view is the assistant's (tau-bench's
// greeting).
const UserGreeting = "Hi! How can I help you today?"

// ErrUserMessage is wrapped by a simulated user's error when the user
// model's answer is not a message: empty, or only tool calls.
var ErrUserMessage = errors.New("the user model wrote no message")

// NewUser returns the simulated user of setup u, played by model: each time
// the agent gives a final answer it asks model for the user's next message
// (UserRequest), which is sent trimmed of surrounding white space. An
// answer holding u.Stop ends the conversation (it is not sent); so does
// having written u.MaxTurns messages, without asking the model again. A
// failed call is the run's error. Build one per run: it counts the turns.
func NewUser(model llm.Model, u *scenario.UserSetup) harness.UserFunc {
	turns := 0
	return func(ctx context.Context, conversation []llm.Message) (llm.Message, bool, error) {
		if turns >= u.MaxTurns {
			return llm.Message{}, false, nil
		}
		resp, err := model.Generate(ctx, UserRequest(u, conversation))
		if err != nil {
			return llm.Message{}, false, err
		}
		text := strings.TrimSpace(resp.Message.Content)
		if strings.Contains(text, u.Stop) {
			return llm.Message{}, false, nil
		}
		if text == "" {
			return llm.Message{}, false, fmt.Errorf("%w (want the user's next message, or %s when the task is done)", ErrUserMessage, u.Stop)
		}
		turns++
		return llm.Message{Role: llm.RoleUser, Content: text}, true, nil
	}
}

// UserRequest is the request a simulated user's model is sent: UserPrompt
// as the system prompt, then the conversation with its roles flipped (the
// user's messages are the model's own, role assistant; the agent's answers
// come to it as role user), opened by UserGreeting when the user spoke
// first. Messages of one role in a row are joined, a blank line between
// them. No tools are offered.
func UserRequest(u *scenario.UserSetup, conversation []llm.Message) *llm.Request {
	prompt := strings.NewReplacer("INSTRUCTIONS", strings.TrimSpace(u.Instructions), "STOP", u.Stop).Replace(UserPrompt)
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: prompt}}
	for _, m := range conversation {
		role := llm.RoleUser
		if m.Role == llm.RoleUser {
			role = llm.RoleAssistant
		}
		if len(msgs) == 1 && role == llm.RoleAssistant {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: UserGreeting})
		}
		if last := &msgs[len(msgs)-1]; last.Role == role {
			last.Content += "\n\n" + m.Content
			continue
		}
		msgs = append(msgs, llm.Message{Role: role, Content: m.Content})
	}
	return &llm.Request{Messages: msgs}
}

// openUsers opens the user model of every scenario with setup.user that
// is not already open, with a gate for its provider: a user model's calls
// wait, retry and are paid for like the evaluated models'.
func (r *runner) openUsers(ctx context.Context, scenarios []*scenario.Scenario) error {
	for _, s := range scenarios {
		u := s.Setup.User
		if u == nil || r.models[u.Model] != nil {
			continue
		}
		m, err := r.opts.open(ctx, u.Model)
		if err != nil {
			return fmt.Errorf("%s: setup.user.model: %w", s.At(u.Line), err)
		}
		r.models[u.Model] = m
		if p := providerOf(u.Model); r.gates[p] == nil {
			r.gates[p] = newGate(r.clock, r.opts.Limits[p])
		}
	}
	return nil
}

// userMeter is the metered user model of a trial of sc, and the run
// options' UserFunc playing it; nil when sc has no setup.user.
func (r *runner) userMeter(sc *scenario.Scenario) (*meter, harness.UserFunc) {
	u := sc.Setup.User
	if u == nil {
		return nil, nil
	}
	m := &meter{model: r.models[u.Model], gate: r.gates[providerOf(u.Model)], clock: r.clock, retries: r.opts.modelRetries()}
	return m, NewUser(m, u)
}

// userSpent is what the simulated user of a trial spent (m nil: none),
// having written turns messages.
func (r *runner) userSpent(sc *scenario.Scenario, m *meter, turns int) *report.EvalUser {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	eu := &report.EvalUser{Model: sc.Setup.User.Model, Calls: len(m.calls), Turns: turns}
	for _, c := range m.calls {
		eu.Tokens = eu.Tokens.Add(c.tokens)
	}
	if p, ok := r.opts.Prices[eu.Model]; ok {
		c := p.Cost(eu.Tokens)
		eu.Cost = &c
	}
	return eu
}

// userTurns counts the user messages of o's conversation after its input
// (those a simulated user wrote); 0 when o is nil.
func userTurns(o *harness.Outcome) int {
	n := 0
	if o != nil {
		for _, t := range o.Turns {
			if t.User != nil {
				n++
			}
		}
	}
	return n
}
