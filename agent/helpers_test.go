package agent_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// step is one scripted model answer. Before, when set, runs first with the
// request (to assert on it or to change the world); Err makes the call fail.
type step struct {
	resp   *llm.Response
	err    error
	before func(req *llm.Request)
}

// scriptedModel serves its steps in order and records every request it got.
type scriptedModel struct {
	mu       sync.Mutex
	steps    []step
	requests []*llm.Request
}

func script(steps ...step) *scriptedModel { return &scriptedModel{steps: steps} }

func (m *scriptedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	n := len(m.requests)
	m.requests = append(m.requests, req)
	m.mu.Unlock()
	if n >= len(m.steps) {
		return nil, fmt.Errorf("script exhausted: request %d", n+1)
	}
	s := m.steps[n]
	if s.before != nil {
		s.before(req)
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.resp, nil
}

// request returns the n-th request (1-based).
func (m *scriptedModel) request(t *testing.T, n int) *llm.Request {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if n > len(m.requests) {
		t.Fatalf("the model got %d requests, want at least %d", len(m.requests), n)
	}
	return m.requests[n-1]
}

func (m *scriptedModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// respond returns a step answering with the given calls.
func respond(calls ...llm.ToolCall) step {
	return step{resp: &llm.Response{Message: llm.AssistantMessage("", calls...), FinishReason: llm.FinishToolCalls}}
}

// final returns a step answering with text and no calls.
func final(text string) step {
	return step{resp: &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop}}
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// eventLog collects a run's events; the observer runs on the loop's goroutine.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
}

func (l *eventLog) observe(e agent.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) all() []agent.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// kinds renders the events as "kind" or "kind:callID".
func (l *eventLog) kinds() []string {
	var out []string
	for _, e := range l.all() {
		s := string(e.Kind)
		if e.CallID != "" {
			s += ":" + e.CallID
		}
		out = append(out, s)
	}
	return out
}

// ofKind returns the events of one kind.
func (l *eventLog) ofKind(k agent.EventKind) []agent.Event {
	var out []agent.Event
	for _, e := range l.all() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// newRegistry registers the tools and fails the test on error.
func newRegistry(t testing.TB, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry(nil)
	for _, tool := range ts {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// counted is a tool that counts its executions and answers with a fixed result.
type counted struct {
	spec tools.Spec
	n    atomic.Int32
	fn   func(ctx context.Context, c tools.Call) (*tools.Result, error)
}

func (c *counted) Spec() tools.Spec { return c.spec }
func (c *counted) Execute(ctx context.Context, call tools.Call) (*tools.Result, error) {
	c.n.Add(1)
	if c.fn != nil {
		return c.fn(ctx, call)
	}
	return tools.Success(c.spec.Name + " ok " + string(call.Arguments)), nil
}

// readOnly is the safety of test tools that change nothing: they may run
// beside each other. (A tool that declares nothing is assumed to change the
// world and runs alone.)
var readOnly = tools.Safety{SideEffects: tools.SideEffectRead}

// echo returns a tool answering "name:<arguments>".
func echo(name string) tools.Tool {
	return tools.Func(tools.Spec{Name: name, Safety: readOnly}, func(_ context.Context, c tools.Call) (*tools.Result, error) {
		return tools.Success(name + ":" + string(c.Arguments)), nil
	})
}

// toggled is a tool whose availability can be flipped.
type toggled struct {
	tools.Tool
	off atomic.Bool
}

func (t *toggled) Available() (bool, string) {
	if t.off.Load() {
		return false, "switched off"
	}
	return true, ""
}

// toolMessages returns the tool messages of a message list as "id=content".
func toolMessages(ms []llm.Message) []string {
	var out []string
	for _, m := range ms {
		if m.Role == llm.RoleTool {
			out = append(out, m.ToolCallID+"="+m.Content)
		}
	}
	return out
}

// virtual returns a fresh virtual clock at clock.Epoch.
func virtual() *clock.Virtual { return clock.NewVirtual(time.Time{}) }

// at returns clock.Epoch plus d.
func at(d time.Duration) time.Time { return clock.Epoch.Add(d) }

// failingRepairer never repairs.
type failingRepairer struct{}

func (failingRepairer) Repair(string) (string, []string, error) {
	return "", nil, errors.New("unbalanced braces: close the object")
}

// trimRepairer cuts everything after the last '}'.
type trimRepairer struct{}

func (trimRepairer) Repair(raw string) (string, []string, error) {
	i := strings.LastIndexByte(raw, '}')
	if i < 0 {
		return "", nil, errors.New("no object")
	}
	return raw[:i+1], []string{"trim_trailing"}, nil
}

func mustRun(t *testing.T, model llm.Model, reg *tools.Registry, opts *agent.Options) *agent.RunResult {
	t.Helper()
	run, err := agent.Run(context.Background(), model, reg, []llm.Message{llm.UserMessage("go")}, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return run
}

func runtimeGosched() { runtime.Gosched() }
