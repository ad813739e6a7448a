package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// fakeExtractor treats every line "CALL name args" as a call.
type fakeExtractor struct{ calls atomic.Int32 }

func (f *fakeExtractor) ExtractCalls(content string, _ []llm.ToolDefinition) ([]llm.ToolCall, string, string, error) {
	f.calls.Add(1)
	var calls []llm.ToolCall
	var rest []string
	for _, line := range strings.Split(content, "\n") {
		if name, args, ok := strings.Cut(strings.TrimPrefix(line, "CALL "), " "); ok && strings.HasPrefix(line, "CALL ") {
			calls = append(calls, llm.ToolCall{ID: "model-made-up", Name: name, Arguments: args})
			continue
		}
		rest = append(rest, line)
	}
	return calls, strings.Join(rest, "\n"), "fake", nil
}

func TestTextCallFallback(t *testing.T) {
	ex := &fakeExtractor{}
	log := &eventLog{}
	text := func(s string) step { return step{resp: &llm.Response{Message: llm.AssistantMessage(s)}} }
	structured := step{resp: &llm.Response{Message: llm.AssistantMessage("CALL echo {\"x\":9}", call("", "echo", `{"s":1}`))}}
	model := script(
		text("Let me look.\nCALL echo {\"a\":1}\nCALL echo {\"b\":2}"),
		structured,
		text("CALL echo {}"),
		final("no calls here"),
	)
	run := mustRun(t, model, newRegistry(t, echo("echo")), &agent.Options{Clock: virtual(), TextCalls: ex, Observer: log.observe})

	// Turn 2 had structured calls: the extractor was not called for it.
	if ex.calls.Load() != 3 {
		t.Errorf("extractor called %d times, want 3 (turns 1, 3, 4)", ex.calls.Load())
	}
	var ids []string
	for _, turn := range run.Turns {
		for _, c := range turn.Calls {
			ids = append(ids, c.Call.ID+" "+c.Call.Arguments)
		}
	}
	equalStrings(t, "calls", ids, []string{`call_gen_1 {"a":1}`, `call_gen_2 {"b":2}`, `call_gen_3 {"s":1}`, "call_gen_4 {}"})
	ext := log.ofKind(agent.EventTextExtraction)
	if len(ext) != 2 || ext[0].Turn != 1 || ext[1].Turn != 3 || ext[0].Envelope != "fake" || len(ext[0].Calls) != 2 || ext[0].Calls[1].ID != "call_gen_2" {
		t.Errorf("text_extraction events %+v", ext)
	}
	equalStrings(t, "turn 1 events", log.kinds()[:7], []string{
		"run_start", "model_request", "model_response", "text_extraction", "tool_start:call_gen_1", "tool_start:call_gen_2", "tool_end:call_gen_1",
	})
	asst := run.Messages[1]
	if asst.Role != llm.RoleAssistant || asst.Content != "Let me look." || len(asst.ToolCalls) != 2 || asst.ToolCalls[0].ID != "call_gen_1" {
		t.Errorf("assistant message %+v", asst)
	}
	if run.Turns[0].Extraction == nil || run.Turns[0].Extraction.Content != "Let me look." || run.Turns[1].Extraction != nil {
		t.Errorf("extractions %+v, %+v", run.Turns[0].Extraction, run.Turns[1].Extraction)
	}
	// The structured turn's text stays as it was.
	if m := model.request(t, 3).Messages; !slices.ContainsFunc(m, func(m llm.Message) bool { return m.Content == "CALL echo {\"x\":9}" && len(m.ToolCalls) == 1 }) {
		t.Errorf("turn 2's assistant message changed: %+v", m)
	}
	if run.Termination.Reason != agent.ReasonFinalText {
		t.Errorf("reason %q", run.Termination.Reason)
	}
}

// asyncTool starts in the background: it returns Started at once and
// completes from a goroutine once release is closed, then closes done.
func asyncTool(name string, release map[string]chan struct{}, done map[string]chan struct{}, wg *sync.WaitGroup) tools.Tool {
	return tools.Func(tools.Spec{Name: name}, func(ctx context.Context, c tools.Call) (*tools.Result, error) {
		complete := tools.Completion(ctx)
		if complete == nil {
			return nil, fmt.Errorf("no completion in the context")
		}
		var in struct{ Job string }
		if err := c.Decode(&in); err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release[in.Job]
			complete(tools.Success("job " + in.Job + " finished"))
			close(done[in.Job])
		}()
		return &tools.Result{Content: "started", Started: true}, nil
	})
}

func TestAsyncResultsAreAwaitedAndDeliveredInCallOrder(t *testing.T) {
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	done := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	var wg sync.WaitGroup
	defer wg.Wait()
	first := respond(call("c1", "job", `{"Job":"a"}`), call("c2", "job", `{"Job":"b"}`))
	log := &eventLog{}
	observe := func(e agent.Event) {
		log.observe(e)
		if e.Kind == agent.EventTurnEnd && e.Turn == 1 {
			// b completes first, then a.
			close(release["b"])
			<-done["b"]
			close(release["a"])
		}
	}
	model := script(first, final("done"))
	run := mustRun(t, model, newRegistry(t, asyncTool("job", release, done, &wg)), &agent.Options{Clock: virtual(), AwaitAsync: true, Observer: observe})
	msgs := model.request(t, 2).Messages
	var tail []string
	for _, m := range msgs[len(msgs)-4:] {
		tail = append(tail, string(m.Role)+": "+m.Content)
	}
	equalStrings(t, "turn 2 request ends with", tail, []string{
		"tool: started", "tool: started",
		"user: " + agent.AsyncResultMessage("c1", "job", tools.Success("job a finished")).Content,
		"user: " + agent.AsyncResultMessage("c2", "job", tools.Success("job b finished")).Content,
	})
	if !run.Turns[0].Calls[0].Async || !run.Turns[0].Calls[1].Async {
		t.Error("the calls are not marked Async")
	}
	equalStrings(t, "events", log.kinds()[7:11], []string{"turn_end", "async_result:c1", "async_result:c2", "model_request"})
}

func TestAsyncWithoutAwaitDeliversTheCompletedPrefix(t *testing.T) {
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	done := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	var wg sync.WaitGroup
	defer wg.Wait()
	observe := func(e agent.Event) {
		if e.Kind == agent.EventTurnEnd && e.Turn == 1 {
			close(release["a"])
			<-done["a"]
			close(release["c"]) // c completes, but b before it has not
			<-done["c"]
		}
	}
	second := respond(call("c4", "echo", `{}`))
	second.before = func(*llm.Request) {
		close(release["b"])
		<-done["b"]
	}
	model := script(respond(call("c1", "job", `{"Job":"a"}`), call("c2", "job", `{"Job":"b"}`), call("c3", "job", `{"Job":"c"}`)), second, final("done"))
	mustRun(t, model, newRegistry(t, asyncTool("job", release, done, &wg), echo("echo")), &agent.Options{Clock: virtual(), Observer: observe})
	delivered := func(req *llm.Request) []string {
		var out []string
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser && strings.HasPrefix(m.Content, "[result of") {
				out = append(out, strings.SplitN(m.Content, "\n", 2)[1])
			}
		}
		return out
	}
	equalStrings(t, "turn 2 delivered", delivered(model.request(t, 2)), []string{"job a finished"})
	equalStrings(t, "turn 3 delivered", delivered(model.request(t, 3)), []string{"job a finished", "job b finished", "job c finished"})
}

func TestRunInfoReachesTools(t *testing.T) {
	who := tools.Func(tools.Spec{Name: "who"}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		info := tools.RunInfoFrom(ctx)
		return tools.Success(info.Channel + "/" + info.ChatID + "/" + info.RunID), nil
	})
	reg := newRegistry(t, who)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprint("run-", i)
			model := script(respond(call("c1", "who", `{}`), call("c2", "who", `{}`)), respond(call("c3", "who", `{}`)), final("done"))
			var hookSaw []string
			before := func(ctx context.Context, _ *agent.HookCall) error {
				hookSaw = append(hookSaw, tools.RunInfoFrom(ctx).RunID)
				return nil
			}
			run, err := agent.Run(context.Background(), model, reg, nil, &agent.Options{Clock: virtual(), Hooks: agent.Hooks{Before: before},
				RunInfo: tools.RunInfo{Channel: "cli", ChatID: "chat", RunID: id}})
			if err != nil {
				t.Error(err)
				return
			}
			want := "cli/chat/" + id
			if got := toolMessages(run.Messages); !slices.Equal(got, []string{"c1=" + want, "c2=" + want, "c3=" + want}) {
				t.Errorf("run %s saw %q", id, got)
			}
			if !slices.Equal(hookSaw, []string{id, id, id}) {
				t.Errorf("the hooks of run %s saw %q", id, hookSaw)
			}
		}()
	}
	wg.Wait()
}

func TestProgressUpdates(t *testing.T) {
	late, lateSent := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	worker := tools.Func(tools.Spec{Name: "work"}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		tools.ReportProgress(ctx, "25%")
		tools.ReportProgress(ctx, "50%")
		wg.Add(1)
		go func() { // left behind: reports after the tool returned
			defer wg.Done()
			<-late
			tools.ReportProgress(ctx, "too late")
			close(lateSent)
		}()
		return tools.Success("worked"), nil
	})
	// next runs after work's execution is over (the batch is sequential) and
	// makes the leftover goroutine report before the batch's events are sent.
	next := tools.Func(tools.Spec{Name: "next", Execution: tools.ExecutionSequential}, func(context.Context, tools.Call) (*tools.Result, error) {
		close(late)
		<-lateSent
		return tools.Success("next"), nil
	})
	log := &eventLog{}
	model := script(respond(call("c1", "work", `{}`), call("c2", "next", `{}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, worker, next), &agent.Options{Clock: virtual(), Observer: log.observe})
	var got []string
	for _, e := range log.all() {
		if e.CallID == "c1" {
			got = append(got, string(e.Kind)+" "+e.Message)
		}
	}
	equalStrings(t, "c1 events", got, []string{"tool_start ", "tool_update 25%", "tool_update 50%", "tool_end "})
	equalStrings(t, "updates", run.Turns[0].Calls[0].Updates, []string{"25%", "50%"})
}
