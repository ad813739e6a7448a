package dated

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// Start is the time the scenarios' runs begin: a minute before midnight.
var Start = time.Date(2026, 12, 6, 23, 58, 0, 0, time.UTC)

// Ticking returns a clock that reads start, then a minute later at each
// reading: a run whose requests take a minute each.
func Ticking(start time.Time) func() time.Time {
	next := start
	return func() time.Time {
		t := next
		next = next.Add(time.Minute)
		return t
	}
}

// Bridged returns the agent as package bridge runs it: its client pointed
// at the bridge, its folder the run's workspace, its question the
// scenario's last input message, its clock Ticking from Start. dated says
// whether it puts the date in its system prompt (before the fix).
func Bridged(dated bool) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		a := New(r.Dir, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient),
			option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
		a.Now, a.DateInSystemPrompt = Ticking(Start), dated
		answer, err := a.Answer(ctx, r.Input[len(r.Input)-1].Content)
		if err != nil {
			return err
		}
		r.Final(answer)
		return nil
	}
}

// Agents are the agent before and after the fix, by the names the
// scenarios give in setup.agent.go, for harness.Test and evalrun.Options.
func Agents() map[string]harness.Runner {
	return map[string]harness.Runner{"dated-before": bridge.Runner(Bridged(true), nil), "dated-after": bridge.Runner(Bridged(false), nil)}
}
