package eval

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// counter is a world: a count the bump tool raises.
type counter struct {
	mu    sync.Mutex
	Count int `json:"count"`
}

func (c *counter) State() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return map[string]int{"count": c.Count}
}

var bumpFactory = toolkit.NewFactory("bump", "raises the shared count by one",
	func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
		c := toolkit.Shared(env, "counter", func() *counter { return &counter{} })
		return tools.New(tools.Spec{Name: name, Description: "Raise the count.", Safety: tools.Safety{SideEffects: tools.SideEffectExternal}},
			func(context.Context, struct{}) (*tools.Result, error) {
				c.mu.Lock()
				defer c.mu.Unlock()
				c.Count++
				return tools.Success("ok"), nil
			})
	})

// bumper is a scripted model: its first answer calls bump, its second says
// done.
var bumper = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
		return &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop}, nil
	}
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "bump", Arguments: "{}"}), FinishReason: llm.FinishToolCalls}, nil
})

const bumpScenario = `format: tapeloop/v1
name: bump
setup:
  tools: [bump]
input:
  - {role: user, content: "Bump the count."}
tape: []
expect:
  termination: final_text
`

// A trial's end state holds what its expect block checks: the worlds'
// state when it checks expect.state (and no files when it checks none),
// nothing at all when it checks neither. Each tape entry names the tools
// the request offered and its last message.
func TestTrialEndStateAndTapeEntries(t *testing.T) {
	run := func(text string) *Trial {
		t.Helper()
		var got *Trial
		_, err := Run(context.Background(), []*scenario.Scenario{parse(t, text, "bump")}, &Options{
			Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": bumper}), Trials: 1,
			Tools: []*toolkit.Factory{bumpFactory}, Clock: clock.NewVirtual(clock.Epoch),
			Trial: func(tr *Trial) error { got = tr; return nil },
		})
		if err != nil || got == nil {
			t.Fatalf("run: %v", err)
		}
		return got
	}
	tr := run(bumpScenario + "  state: {/counter/count: 1}\n").Report
	if !tr.Passed || tr.EndState == nil || tr.EndState.Files != nil || tr.EndState.State != "{\n  \"counter\": {\n    \"count\": 1\n  }\n}" {
		t.Errorf("expect.state only: passed %v, end state %+v; want the state and no files", tr.Passed, tr.EndState)
	}
	tr = run(strings.Replace(bumpScenario, "Bump the count.", "Bump the count. My key is "+judgedSecret+".", 1)).Report
	if !tr.Passed || tr.EndState != nil {
		t.Errorf("neither files nor state expected: passed %v, end state %+v; want none", tr.Passed, tr.EndState)
	}
	if len(tr.Tape) != 2 || !slices.Equal(tr.Tape[0].Tools, []string{"bump"}) || tr.Tape[0].LastMessage == nil ||
		tr.Tape[0].LastMessage.Content != "Bump the count. My key is [REDACTED]." || tr.Tape[1].LastMessage == nil || tr.Tape[1].LastMessage.Role != llm.RoleTool {
		t.Errorf("tape %+v; want 2 entries offering bump, after the user's message (its secret redacted), then after the tool's result", tr.Tape)
	}
}

// TrialSeed is SplitMix64's mix of setup.seed plus the trial number times
// the golden gamma 0x9e3779b97f4a7c15, shifted into [0, 2^62): a saved
// trial records it, so it must not change between versions. The values
// were worked out apart from this code, from the published SplitMix64
// finaliser (shifts 30, 27, 31; multipliers 0xbf58476d1ce4e5b9 and
// 0x94d049bb133111eb).
func TestTrialSeedIsSplitMix64(t *testing.T) {
	for _, c := range []struct {
		seed  int64
		trial int
		want  int64
	}{
		{7, 1, 1797772400223093621},
		{7, 2, 77422343148738951},
		{0, 1, 4073552104164651883},
		{-5, 3, 4069819121432363792},
	} {
		if got := TrialSeed(c.seed, c.trial); got != c.want {
			t.Errorf("TrialSeed(%d, %d) = %d, want %d", c.seed, c.trial, got, c.want)
		}
	}
}
