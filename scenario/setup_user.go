package scenario

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// DefaultUserStop is setup.user.stop when the scenario gives none: the text
// a simulated user writes when the task is done (tau-bench's convention).
const DefaultUserStop = "###STOP###"

// MaxUserTurns bounds setup.user.max_turns.
const MaxUserTurns = 100

// UserSetup is setup.user: in a live run (eval, record) the user's messages
// after each final answer are written by a model playing the user, following
// Instructions, until it writes Stop or has written MaxTurns messages. A
// replay serves the user turns recorded in the tape and never calls it.
type UserSetup struct {
	// Model is the user model, "PROVIDER/MODEL" (llm.Open).
	Model string
	// Instructions tell the user model who it is and what it wants.
	Instructions string
	// MaxTurns bounds the messages the user model writes in one
	// conversation, from 1 to MaxUserTurns.
	MaxTurns int
	// Stop is the text that ends the conversation when the user model's
	// message holds it; never empty (DefaultUserStop when not given).
	Stop string
	// Line is the line of setup.user.
	Line int
}

var userKeys = []string{"model", "instructions", "max_turns", "stop"}

func decodeUser(d *yamlx.Decoder, n *yaml.Node) (*UserSetup, error) {
	const path = "setup.user"
	u := &UserSetup{Line: n.Line, Stop: DefaultUserStop}
	seen, err := d.Fields(n, path, userKeys, func(key string, v *yaml.Node) error {
		p := yamlx.Join(path, key)
		var err error
		switch key {
		case "model":
			if u.Model, err = d.Str(v, p); err != nil {
				return err
			}
			if _, _, err := llm.ParseModelName(u.Model); err != nil {
				return d.Errf(v, p, "%v", err)
			}
		case "instructions":
			if u.Instructions, err = d.Str(v, p); err == nil && strings.TrimSpace(u.Instructions) == "" {
				err = d.Errf(v, p, "empty (want who the user is and what they want)")
			}
		case "max_turns":
			var t int64
			t, err = d.Int(v, p, 1, MaxUserTurns)
			u.MaxTurns = int(t)
		case "stop":
			if u.Stop, err = d.Str(v, p); err == nil && strings.TrimSpace(u.Stop) == "" {
				err = d.Errf(v, p, "empty (want the text the user model writes when the task is done; default %s)", DefaultUserStop)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"model", "instructions", "max_turns"} {
		if !seen.Has(key) {
			return nil, d.Errf(n, path, "missing key %q (setup.user needs model, instructions and max_turns)", key)
		}
	}
	return u, nil
}

// checkUser checks how setup.user combines with the rest of the scenario:
// the conversation starts from a user message of input, and a tape of only
// user turns (a conversation script) would never be spoken, since the user
// model speaks in live runs.
func checkUser(d *yamlx.Decoder, s *Scenario, nodes map[string]*yaml.Node) error {
	setup := nodes["setup"]
	var at *yaml.Node
	for i := 0; setup != nil && i+1 < len(setup.Content); i += 2 {
		if setup.Content[i].Value == "user" {
			at = setup.Content[i]
		}
	}
	if !slices.ContainsFunc(s.Input, func(m llm.Message) bool { return m.Role == llm.RoleUser }) {
		return d.Errf(at, "setup.user", "input holds no user message: the conversation starts from input's user message, and the user model writes the next ones")
	}
	if len(s.Tape) > 0 && !slices.ContainsFunc(s.Tape, func(e tape.Entry) bool { return e.User == nil }) {
		return d.Errf(at, "setup.user", "the tape holds only user turns (a conversation script), which a live run with setup.user never speaks: the user model writes them; remove the script or setup.user")
	}
	return nil
}
