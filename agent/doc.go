// Package agent is the tool-calling loop: it alternates between a model and the
// tools registry until the run ends, and tells everything it did as an ordered
// stream of events.
//
//	run, err := agent.Run(ctx, model, registry, []llm.Message{
//		llm.SystemMessage("You are a careful assistant."),
//		llm.UserMessage("Append 'world' to notes.txt."),
//	}, &agent.Options{
//		Retry:   &agent.RetryPolicy{Attempts: 3, Backoff: 100 * time.Millisecond},
//		Clock:   clock.NewVirtual(time.Time{}),
//		Observer: func(e agent.Event) { log.Println(e.Seq, e.Kind, e.CallID) },
//	})
//	// run.Termination.Reason == agent.ReasonFinalText
//
// The contract:
//   - Each iteration takes a fresh registry snapshot: a tool registered mid-run
//     is offered on the next turn; an unavailable one is hidden.
//   - The calls of one response form a batch, run concurrently unless the
//     options or any of its tools say sequential. A call that may change the
//     workspace or the world (side effects write or external) runs alone, after
//     the calls before it and before those after it, so a batch has the result
//     of running it in source order whatever the scheduling; calls that change
//     nothing run concurrently, MaxConcurrentCalls at a time at most, each on
//     its own timeline from the batch's start. Start events and before hooks
//     run in the order the model emitted the calls, before execution; after
//     hooks, end events and result messages run in that order after the whole
//     batch, whatever finished first.
//   - Every failure (unknown tool, invalid or unrepairable arguments, blocked,
//     unavailable, tool error, panic, timeout, cancellation) becomes a tool
//     message the model can read; none is empty. A successful result reaches
//     the model exactly as the tool returned it, an empty one empty.
//   - A transient failure of an idempotent tool is retried until the policy's
//     attempts are used, with exponential backoff on the run's clock; a
//     non-idempotent tool is never retried.
//   - A failed model call is retried under Options.ModelRetry when the
//     provider classifies it as retryable (llm.Retryable), waiting the
//     doubling backoff or the server's Retry-After, whichever is longer, on
//     the run's clock; each failed attempt is a model_retry or model_error
//     event.
//   - With Options.NextUser, a final text answer is followed by the user's
//     next message when there is one, and the loop goes on: one run is a whole
//     conversation, and generated IDs, the memo, pending asynchronous calls and
//     the iteration limit span its user turns.
//   - The run ends on a final text answer (with no user message to follow),
//     after a batch that ran a
//     loop-breaking tool, after a batch in which every result asked to
//     terminate, at the iteration limit (ErrMaxIterations), on a model error,
//     on cancellation, or when a hook panics (ErrHookPanic).
//   - Calls written as text are extracted only when a response has no
//     structured calls; calls without IDs get IDs from a per-run sequence
//     (call_gen_N).
//   - A response holding more than llm.MaxCallsPerResponse (1000) calls,
//     structured or written as text, or whose text the TextCallExtractor
//     refuses, ends the run with model_error before any of its calls runs
//     (the error matches ErrModel, and llm.ErrTooManyCalls for too many).
//   - With Memoize, an identical call to a pure tool is answered from the memo;
//     any call that may change the workspace clears it; failures are never
//     memoised.
//   - Asynchronous results (Started) are delivered as messages before the next
//     model call, in the order the calls were made.
//   - RunStructured adds a structured finish: after a final text answer it asks
//     for the answer as JSON valid against a schema inferred from a Go type,
//     with one correction request when it is not.
//
// Time comes only from Options.Clock. On a *clock.Virtual every call runs on its
// own timeline forked at the batch's start, so backoff, delays and timeouts take
// no wall time and the events, with their times, are the same on every run.
package agent
