package bridge

import (
	"context"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
)

// NextUser returns the user's next message once the agent has answered, to
// go on with the conversation; false means the conversation is over, and
// the agent returns (its last answer reported with Final). A scenario's
// tape holds its user turns as `user:` entries (docs/conversations.md): in
// a replay the next entry is served when it is a user turn, and an agent
// that returns while user turns are left, or asks the model where the tape
// has a user turn, fails the scenario. A user turn that starts the tape is
// not served here: it ends Input. A live run's user is the tape's user
// turns in order, or a user model (runOptions.User), which sees the answer
// reported with Final. The golden shows each message on the turn it
// starts, as a native conversation's. A Run not made by a Runner has no user
// turns.
//
//	for {
//		answer, err := myagent.Answer(ctx, history)  // history grows
//		if err != nil {
//			return err
//		}
//		r.Final(answer)
//		next, ok := r.NextUser(ctx)
//		if !ok {
//			return nil
//		}
//		history = append(history, next)
//	}
func (r *Run) NextUser(ctx context.Context) (llm.Message, bool) {
	if r.users == nil || r.traffic == nil {
		return llm.Message{}, false
	}
	var m llm.Message
	var ok bool
	place := r.traffic.workPlace()
	if sim := r.users.sim; sim != nil {
		// The user model sees the workspace as the model does.
		m, ok = sim.NextAfter(ctx, place.placeText(r.answer()))
	} else {
		m, ok = r.users.next(ctx)
	}
	if !ok {
		return llm.Message{}, false
	}
	m = place.userTurn(m)
	r.traffic.user(m)
	return place.served(m), true
}

// answer is the agent's last answer: what it reported with Final, else
// the model's last text.
func (r *Run) answer() string {
	r.mu.Lock()
	final := r.final
	r.mu.Unlock()
	if final != nil {
		return *final
	}
	return r.traffic.lastText()
}

// userSide is where a run's user turns come from.
type userSide struct {
	// next serves the tape's user turns: the replay's, or in a live run
	// (script) the scenario's in order.
	next   func(context.Context) (llm.Message, bool)
	script bool
	// sim is the user model (runOptions.User); nil when the tape speaks.
	sim *harness.SimulatedUser
}

// userSource is where a run of s gets its user turns: opts.User when set,
// else the replay (tape non-nil), else, in a live run, the tape's user
// turns in order. A live run of a scenario whose user is a model
// (setup.user) without opts.User fails with harness.ErrNoUser.
func userSource(s *scenario.Scenario, tape *replay.Model, opts *runOptions) (*userSide, error) {
	switch {
	case opts.User != nil:
		return &userSide{sim: harness.NewSimulatedUser(opts.User, s)}, nil
	case tape != nil:
		return &userSide{next: func(context.Context) (llm.Message, bool) { return tape.NextUser() }}, nil
	case s.Setup.User != nil:
		return nil, s.ErrorAt(s.Setup.User.Line, "setup.user", harness.ErrNoUser, "%v", harness.ErrNoUser)
	}
	turns := s.UserTurns()
	return &userSide{next: func(context.Context) (llm.Message, bool) {
		if len(turns) == 0 {
			return llm.Message{}, false
		}
		m := turns[0]
		turns = turns[1:]
		return m, true
	}, script: true}, nil
}

// unused says what of the scenario the finished run o left unused, as
// harness.Run does: in a replay (tape non-nil) the tape's entries never
// served, in a live run the tape's user turns never spoken. A replay that
// diverged reports only the divergence. A user model that failed ends o
// with model_error.
func (u *userSide) unused(s *scenario.Scenario, o *harness.Outcome, tape *replay.Model) []*fileerr.Error {
	switch {
	case u.sim != nil:
		u.sim.End(o)
	case tape != nil && !o.Diverged:
		err := tape.Unused()
		if err == nil {
			return nil
		}
		f := &fileerr.Error{File: s.Path, Problem: err.Error(), Kind: err}
		var ue *replay.UnusedError
		if errors.As(err, &ue) && ue.Used < len(s.Tape) && s.Tape[ue.Used].User != nil {
			f.Problem += "; the agent ended before this user turn: after each answer it goes on with the next user message (Run.NextUser; a command reads it from stdin, see docs/bridge.md)"
		}
		return []*fileerr.Error{f}
	case u.script:
		if _, ok := u.next(context.Background()); ok {
			return []*fileerr.Error{{File: s.Path, Problem: fmt.Sprintf("the run ended (%s) before every user turn of the tape was spoken", o.Termination)}}
		}
	}
	return nil
}

// spoken is a user message and where it came in the traffic: before the
// exchange log[at].
type spoken struct {
	at  int
	msg llm.Message
}

// user notes that the conversation went on with m after the exchanges so
// far: a user_message event on the turn it follows (the answered calls so
// far), and m in the conversation before the next exchange.
func (t *traffic) user(m llm.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.users = append(t.users, spoken{at: len(t.log), msg: m})
	u := m.Clone()
	t.observe(agent.Event{Kind: agent.EventUserMessage, Turn: t.answered(), User: &u})
}

// answer notes an answer the agent reported (Run.Final) after the
// exchanges so far.
func (t *traffic) answer(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.answers = append(t.answers, spoken{at: len(t.log), msg: llm.AssistantMessage(text)})
}

// answered counts the calls answered so far; t.mu is held.
func (t *traffic) answered() int {
	n := 0
	for _, ex := range t.log {
		if ex.resp != nil {
			n++
		}
	}
	return n
}

// lastText is the text of the model's last answer, "" before any.
func (t *traffic) lastText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.log) - 1; i >= 0; i-- {
		if t.log[i].resp != nil {
			return t.log[i].resp.Message.Content
		}
	}
	return ""
}

// conversation reports whether the user may speak after an answer in a run
// of s: a user model, or a user turn in the tape after the first entry
// (one that starts the tape ends the input instead).
func conversation(s *scenario.Scenario, opts *runOptions) bool {
	if opts.User != nil {
		return true
	}
	for i, e := range s.Tape {
		if e.User != nil && i > 0 {
			return true
		}
	}
	return false
}
