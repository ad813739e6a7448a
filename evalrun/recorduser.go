package evalrun

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// user opens the simulated user of s (setup.user) for a recording: its
// model, opened as the recorded model is (--base-url), its transient
// failures waited out as the recorded model's are. Nil when s has none.
func (c *recordConfig) user(ctx context.Context, e *env, s *scenario.Scenario) (harness.UserFunc, error) {
	u := s.Setup.User
	if u == nil {
		return nil, nil
	}
	m, err := c.open(ctx, u.Model, &llm.OpenOptions{BaseURL: c.baseURL})
	if err != nil {
		return nil, fmt.Errorf("%s: setup.user.model: %w", s.At(u.Line), err)
	}
	return eval.NewUser(c.gateFor(e, u.Model).Retrying(m, eval.DefaultModelRetries), u), nil
}
