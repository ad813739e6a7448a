package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// Run runs the loop: it sends the conversation and the available tools to the
// model, executes the calls it asks for through the registry, appends the
// results, and repeats until a termination reason. It returns the run whatever
// happened; the error is non-nil exactly when the termination carries one
// (max_iterations, model_error, cancelled, hook_error) and is the same error.
func Run(ctx context.Context, model llm.Model, registry *tools.Registry, input []llm.Message, opts *Options) (*RunResult, error) {
	r := newRunner(model, registry, opts)
	return r.run(ctx, input)
}

// runner holds one run's state. Everything but the async deliveries and the
// abandoned-execution group is touched only by the loop's goroutine.
type runner struct {
	model    llm.Model
	registry *tools.Registry
	opts     Options
	clock    clock.Clock
	virtual  bool

	result  *RunResult
	seq     int // events emitted
	idSeq   int // generated call ids
	turn    int
	memo    map[string]*tools.Result
	async   *asyncQueue
	waiting sync.WaitGroup // executions abandoned after a real-clock timeout
	// finish, when set, runs after a final text answer, before the run ends,
	// and says how the run ends instead (RunStructured's second phase).
	finish func(ctx context.Context) Termination
}

func newRunner(model llm.Model, registry *tools.Registry, opts *Options) *runner {
	r := &runner{model: model, registry: registry, result: &RunResult{}}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.MaxIterations <= 0 {
		r.opts.MaxIterations = DefaultMaxIterations
	}
	r.clock = r.opts.Clock
	if r.clock == nil {
		r.clock = clock.Real{}
	}
	_, isReal := r.clock.(clock.Real)
	r.virtual = !isReal
	if r.opts.Memoize {
		r.memo = map[string]*tools.Result{}
	}
	r.async = newAsyncQueue()
	return r
}

func (r *runner) emit(e Event) {
	r.seq++
	e.Seq = r.seq
	if e.Turn == 0 {
		e.Turn = r.turn
	}
	if e.Time.IsZero() {
		e.Time = r.clock.Now()
	}
	if r.opts.Observer != nil {
		r.opts.Observer(e)
	}
}

func (r *runner) run(ctx context.Context, input []llm.Message) (run *RunResult, err error) {
	defer r.waiting.Wait()
	r.result.Messages = make([]llm.Message, 0, len(input)+8)
	for _, m := range input {
		r.result.Messages = append(r.result.Messages, m.Clone())
	}
	// Tools and hooks find the run's info in their context.
	ctx = tools.WithRunInfo(ctx, r.opts.RunInfo)
	r.emit(Event{Kind: EventRunStart})
	term := r.loop(ctx)
	if term.Reason == ReasonFinalText && r.finish != nil {
		term = r.finish(ctx)
	}
	if term.Err != nil {
		term.Error = term.Err.Error()
	}
	r.result.Termination = term
	r.emit(Event{Kind: EventRunEnd, Termination: &term})
	return r.result, term.Err
}

// loop runs turns until one ends the run.
func (r *runner) loop(ctx context.Context) (term Termination) {
	defer func() {
		if v := recover(); v != nil {
			hp, ok := v.(hookPanic)
			if !ok {
				panic(v)
			}
			term = Termination{Reason: ReasonHookError, Err: fmt.Errorf("%w: %s hook on call %s: %v", ErrHookPanic, hp.hook, hp.callID, hp.value)}
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return Termination{Reason: ReasonCancelled, Err: err}
		}
		if r.result.ModelCalls >= r.opts.MaxIterations {
			return Termination{Reason: ReasonMaxIterations, Err: fmt.Errorf("%w: %d model calls", ErrMaxIterations, r.result.ModelCalls)}
		}
		if err := r.deliverAsync(ctx); err != nil {
			return Termination{Reason: ReasonCancelled, Err: err}
		}
		snap := r.registry.Snapshot()
		defs := snap.Definitions()
		t, stop := r.generate(ctx, &llm.Request{Messages: r.history(), Tools: defs})
		if stop != nil {
			return *stop
		}

		if stop := r.tooManyCalls(len(t.Response.Message.ToolCalls), "", nil); stop != nil {
			return *stop
		}
		// The history's message shares the response's calls unless the
		// loop must give one an id: a second copy of every call is the
		// largest thing a long run keeps that it does not need.
		msg := t.Response.Message
		if slices.ContainsFunc(msg.ToolCalls, func(c llm.ToolCall) bool { return c.ID == "" }) {
			msg = msg.Clone()
		}
		msg.Role = llm.RoleAssistant
		if len(msg.ToolCalls) == 0 && r.opts.TextCalls != nil && msg.Content != "" {
			calls, remaining, envelope, err := r.opts.TextCalls.ExtractCalls(msg.Content, defs)
			if stop := r.tooManyCalls(len(calls), envelope, err); stop != nil {
				return *stop
			}
			if len(calls) > 0 {
				msg.Content = remaining
				msg.ToolCalls = calls
				t.Extraction = &Extraction{Envelope: envelope, Content: remaining}
				for i := range msg.ToolCalls {
					msg.ToolCalls[i].ID = ""
				}
			}
		}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				r.idSeq++
				msg.ToolCalls[i].ID = "call_gen_" + strconv.Itoa(r.idSeq)
			}
		}
		if t.Extraction != nil {
			r.emit(Event{Kind: EventTextExtraction, Envelope: t.Extraction.Envelope, Calls: msg.ToolCalls})
		}
		r.result.Messages = append(r.result.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			r.emit(Event{Kind: EventTurnEnd})
			if !r.nextUser(ctx) {
				return Termination{Reason: ReasonFinalText}
			}
			continue
		}
		loopBreaking, allTerminate := r.batch(ctx, snap, t, msg.ToolCalls)
		r.emit(Event{Kind: EventTurnEnd})
		switch {
		case loopBreaking:
			return Termination{Reason: ReasonLoopBreaking}
		case allTerminate:
			return Termination{Reason: ReasonAllTerminate}
		}
	}
}

// nextUser asks Options.NextUser for the user's next message after a final
// text answer and appends it; false means the conversation is over.
func (r *runner) nextUser(ctx context.Context) bool {
	if r.opts.NextUser == nil {
		return false
	}
	m, ok := r.opts.NextUser(ctx)
	if !ok {
		return false
	}
	m = m.Clone()
	m.Role = llm.RoleUser
	r.result.Messages = append(r.result.Messages, m)
	r.emit(Event{Kind: EventUserMessage, User: &m})
	return true
}

// generate makes one model call as the next turn, retrying it as
// Options.ModelRetry allows: request, retry and response events, usage, and
// the turn's record. A failed call ends the run with the returned termination.
func (r *runner) generate(ctx context.Context, req *llm.Request) (*Turn, *Termination) {
	r.turn++
	r.result.ModelCalls++
	call := r.result.ModelCalls
	r.emit(Event{Kind: EventModelRequest, ModelCall: call, Request: req})
	var resp *llm.Response
	attempt := 1
	for ; ; attempt++ {
		var err error
		resp, err = r.callModel(ctx, req)
		if err == nil && resp == nil {
			err = errors.New("the model returned no response")
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			r.turn--
			return nil, &Termination{Reason: ReasonCancelled, Err: ctx.Err()}
		}
		wait, retry := r.opts.ModelRetry.wait(attempt, err)
		if !retry {
			r.emit(Event{Kind: EventModelError, ModelCall: call, Attempt: attempt, Error: err.Error(), ErrorKind: errorKind(err)})
			r.turn--
			return nil, &Termination{Reason: ReasonModelError, Err: fmt.Errorf("%w: turn %d: %w", ErrModel, r.result.ModelCalls, err)}
		}
		r.emit(Event{Kind: EventModelRetry, ModelCall: call, Attempt: attempt, Backoff: wait, Error: err.Error(), ErrorKind: errorKind(err)})
		r.result.ModelRetries++
		if err := r.clock.Sleep(ctx, wait); err != nil {
			r.turn--
			return nil, &Termination{Reason: ReasonCancelled, Err: err}
		}
	}
	e := Event{Kind: EventModelResponse, ModelCall: call, Response: resp}
	if attempt > 1 {
		e.Attempt = attempt
	}
	r.emit(e)
	r.result.Usage = r.result.Usage.Add(resp.Usage)
	t := &Turn{Index: r.turn, Request: RequestSummary{Tools: req.ToolNames(), Messages: len(req.Messages)}, Response: resp}
	r.result.Turns = append(r.result.Turns, t)
	return t, nil
}

// callModel makes one attempt of a model call, within Options.ModelTimeout.
func (r *runner) callModel(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if r.opts.ModelTimeout <= 0 {
		return r.model.Generate(ctx, req)
	}
	attemptCtx, cancel := context.WithTimeout(ctx, r.opts.ModelTimeout)
	defer cancel()
	resp, err := r.model.Generate(attemptCtx, req)
	var pe *llm.ProviderError
	if err != nil && attemptCtx.Err() != nil && ctx.Err() == nil && !errors.As(err, &pe) {
		// The attempt's own deadline passed; a model that says only
		// "context deadline exceeded" still timed out, which the retry
		// policy must see as such.
		return nil, llm.ContextError(attemptCtx, "", err)
	}
	return resp, err
}

// history returns the conversation so far for a request, without copying: the
// run only ever appends to it (never changes a message once appended), and the
// returned slice's capacity is its length, so neither the run's later appends
// nor a model's appends to the request can be seen through the other. A model
// must not change the request's messages (llm.Model).
func (r *runner) history() []llm.Message {
	n := len(r.result.Messages)
	return r.result.Messages[:n:n]
}

// hookPanic carries a hook's panic to the loop, which ends the run with it.
type hookPanic struct {
	hook   string
	callID string
	value  any
}

// callHook runs fn, turning a panic into a hookPanic for the loop to recover.
func callHook(hook, callID string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			panic(hookPanic{hook: hook, callID: callID, value: v})
		}
	}()
	fn()
}
