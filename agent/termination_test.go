package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

func TestTermination(t *testing.T) {
	terminating := tools.Func(tools.Spec{Name: "stop"}, func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Terminating("stopping"), nil
	})
	breaker := &counted{spec: tools.Spec{Name: "breaker", LoopBreaking: true}}
	boom := errors.New("provider down")
	for _, tc := range []struct {
		name       string
		steps      []step
		reason     agent.Reason
		errIs      []error
		modelCalls int
		messages   []string // tool messages of the run
	}{
		{
			name:       "final text",
			steps:      []step{final("the answer")},
			reason:     agent.ReasonFinalText,
			modelCalls: 1,
		},
		{
			name:       "loop breaking tool ends the run after its whole batch",
			steps:      []step{respond(call("c1", "breaker", `{}`), call("c2", "echo", `{}`)), final("never")},
			reason:     agent.ReasonLoopBreaking,
			modelCalls: 1,
			messages:   []string{"c1=breaker ok {}", "c2=echo:{}"},
		},
		{
			name:       "every result terminates",
			steps:      []step{respond(call("c1", "stop", `{}`), call("c2", "stop", `{}`)), final("never")},
			reason:     agent.ReasonAllTerminate,
			modelCalls: 1,
			messages:   []string{"c1=stopping", "c2=stopping"},
		},
		{
			name:       "some results terminate: the run goes on",
			steps:      []step{respond(call("c1", "stop", `{}`), call("c2", "echo", `{}`)), final("done")},
			reason:     agent.ReasonFinalText,
			modelCalls: 2,
			messages:   []string{"c1=stopping", "c2=echo:{}"},
		},
		{
			name:       "a failure before execution never terminates",
			steps:      []step{respond(call("c1", "stop", `{}`), call("c2", "nosuch", `{}`)), final("done")},
			reason:     agent.ReasonFinalText,
			modelCalls: 2,
			messages:   []string{"c1=stopping", `c2=error (not_found): no tool named "nosuch"; available tools: breaker, echo, stop`},
		},
		{
			name: "iteration limit",
			steps: []step{
				respond(call("c1", "echo", `{}`)), respond(call("c2", "echo", `{}`)),
				respond(call("c3", "echo", `{}`)), final("never"),
			},
			reason:     agent.ReasonMaxIterations,
			errIs:      []error{agent.ErrMaxIterations},
			modelCalls: 3,
			messages:   []string{"c1=echo:{}", "c2=echo:{}", "c3=echo:{}"},
		},
		{
			name:       "model error",
			steps:      []step{respond(call("c1", "echo", `{}`)), {err: boom}},
			reason:     agent.ReasonModelError,
			errIs:      []error{agent.ErrModel, boom},
			modelCalls: 2,
			messages:   []string{"c1=echo:{}"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			breaker.n.Store(0)
			reg := newRegistry(t, terminating, breaker, echo("echo"))
			model := script(tc.steps...)
			run, err := agent.Run(context.Background(), model, reg, []llm.Message{llm.UserMessage("go")}, &agent.Options{MaxIterations: 3, Clock: virtual()})
			if run == nil {
				t.Fatal("Run returned no run")
			}
			if run.Termination.Reason != tc.reason {
				t.Errorf("reason %q, want %q (err %v)", run.Termination.Reason, tc.reason, err)
			}
			if len(tc.errIs) == 0 && err != nil {
				t.Errorf("err = %v, want nil", err)
			}
			for _, target := range tc.errIs {
				if !errors.Is(err, target) {
					t.Errorf("err = %v, want errors.Is %v", err, target)
				}
			}
			if err != run.Termination.Err {
				t.Errorf("returned error %v differs from Termination.Err %v", err, run.Termination.Err)
			}
			if err != nil && run.Termination.Error != err.Error() {
				t.Errorf("Termination.Error = %q, want %q", run.Termination.Error, err.Error())
			}
			if run.ModelCalls != tc.modelCalls || model.count() != tc.modelCalls {
				t.Errorf("ModelCalls = %d, model saw %d, want %d", run.ModelCalls, model.count(), tc.modelCalls)
			}
			equalStrings(t, "tool messages", toolMessages(run.Messages), tc.messages)
		})
	}
}

func TestCancelledBetweenTurns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := newRegistry(t, tools.Func(tools.Spec{Name: "quit"}, func(context.Context, tools.Call) (*tools.Result, error) {
		cancel()
		return tools.Success("cancelled the run"), nil
	}))
	model := script(respond(call("c1", "quit", `{}`)), final("never"))
	run, err := agent.Run(ctx, model, reg, []llm.Message{llm.UserMessage("go")}, &agent.Options{Clock: virtual()})
	if !errors.Is(err, context.Canceled) || run.Termination.Reason != agent.ReasonCancelled {
		t.Fatalf("err %v, reason %q; want context.Canceled, cancelled", err, run.Termination.Reason)
	}
	if model.count() != 1 {
		t.Errorf("the model was called %d times after cancellation, want 1 call in all", model.count())
	}
}

func TestCancelledDuringModelCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := llm.ModelFunc(func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
		cancel()
		return nil, ctx.Err()
	})
	run, err := agent.Run(ctx, model, newRegistry(t), nil, &agent.Options{Clock: virtual()})
	if !errors.Is(err, context.Canceled) || run.Termination.Reason != agent.ReasonCancelled {
		t.Fatalf("err %v, reason %q; want context.Canceled, cancelled", err, run.Termination.Reason)
	}
}

func TestNilResponseIsAModelError(t *testing.T) {
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, nil })
	run, err := agent.Run(context.Background(), model, newRegistry(t), nil, nil)
	if !errors.Is(err, agent.ErrModel) || run.Termination.Reason != agent.ReasonModelError {
		t.Fatalf("err %v, reason %q; want ErrModel, model_error", err, run.Termination.Reason)
	}
}

func TestFinalTextAndUsage(t *testing.T) {
	s1 := respond(call("c1", "echo", `{}`))
	s1.resp.Usage = llm.Usage{InputTokens: 10, OutputTokens: 2}
	s2 := final("the end")
	s2.resp.Usage = llm.Usage{InputTokens: 15, OutputTokens: 3}
	run := mustRun(t, script(s1, s2), newRegistry(t, echo("echo")), nil)
	if got := run.FinalText(); got != "the end" {
		t.Errorf("FinalText = %q", got)
	}
	if run.Usage != (llm.Usage{InputTokens: 25, OutputTokens: 5}) {
		t.Errorf("Usage = %+v", run.Usage)
	}
	if len(run.Turns) != 2 || run.Turns[0].Index != 1 || run.Turns[1].Index != 2 {
		t.Errorf("turns %+v", run.Turns)
	}
	// input, assistant with call, tool, final assistant
	roles := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant}
	if len(run.Messages) != len(roles) {
		t.Fatalf("messages %+v", run.Messages)
	}
	for i, m := range run.Messages {
		if m.Role != roles[i] {
			t.Errorf("message %d role %q, want %q", i, m.Role, roles[i])
		}
	}
}
