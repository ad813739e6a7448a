package llm

import (
	"context"
	"encoding/json"
)

// Params returns the parameters o sets, as tapeloop's loop pins them in a
// request (Request.Params) and a tape (offered.params): by the names of a
// scenario's setup.loop.request, "temperature", "top_p", "max_tokens",
// "seed", "stop", "tool_choice" and "parallel_tool_calls", each as compact
// JSON. Nil when o sets none (the zero value), so a loop that sets none
// pins none.
func (o RequestOptions) Params() map[string]json.RawMessage {
	var out map[string]json.RawMessage
	put := func(k string, v any) {
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k], _ = json.Marshal(v) // numbers, strings, bools: never an error
	}
	if o.Temperature != nil {
		put("temperature", *o.Temperature)
	}
	if o.TopP != nil {
		put("top_p", *o.TopP)
	}
	if o.MaxTokens > 0 {
		put("max_tokens", o.MaxTokens)
	}
	if o.Seed != nil {
		put("seed", *o.Seed)
	}
	if o.Stop != nil {
		put("stop", o.Stop)
	}
	if o.ToolChoice != "" {
		put("tool_choice", o.ToolChoice)
	}
	if o.ParallelToolCalls != nil {
		put("parallel_tool_calls", *o.ParallelToolCalls)
	}
	return out
}

type requestOptionsKey struct{}

// WithRequestOptions returns ctx carrying o: a model of the built-in
// providers sends, on the call made with ctx, each option o sets in place
// of the one it was opened with (OpenOptions.Request), as
// RequestOptionsOf merges them. A run of tapeloop's loop calls its model
// so with the scenario's setup.loop.request.
func WithRequestOptions(ctx context.Context, o RequestOptions) context.Context {
	return context.WithValue(ctx, requestOptionsKey{}, o)
}

// RequestOptionsOf returns base with each option the options ctx carries
// (WithRequestOptions) set put over it; base when ctx carries none.
func RequestOptionsOf(ctx context.Context, base RequestOptions) RequestOptions {
	o, ok := ctx.Value(requestOptionsKey{}).(RequestOptions)
	if !ok {
		return base
	}
	if o.Temperature != nil {
		base.Temperature = o.Temperature
	}
	if o.TopP != nil {
		base.TopP = o.TopP
	}
	if o.MaxTokens > 0 {
		base.MaxTokens = o.MaxTokens
	}
	if o.Seed != nil {
		base.Seed = o.Seed
	}
	if o.Stop != nil {
		base.Stop = o.Stop
	}
	if o.ToolChoice != "" {
		base.ToolChoice = o.ToolChoice
	}
	if o.ParallelToolCalls != nil {
		base.ParallelToolCalls = o.ParallelToolCalls
	}
	return base
}

type answeredByKey struct{}

// WithAnsweredBy returns ctx saying that model ("PROVIDER/MODEL") answers
// the call made with ctx in place of the model its request names
// (Request.Params["model"], a scenario's setup.loop.request.model): a
// recording keeps the request's model pinned and notes which model
// answered (replay.Recorder, tape.Offered.AnsweredBy). An empty model is
// ctx unchanged.
func WithAnsweredBy(ctx context.Context, model string) context.Context {
	if model == "" {
		return ctx
	}
	return context.WithValue(ctx, answeredByKey{}, model)
}

// AnsweredByOf returns the model WithAnsweredBy put on ctx; "" when none,
// as when the model the request names answers it.
func AnsweredByOf(ctx context.Context) string {
	s, _ := ctx.Value(answeredByKey{}).(string)
	return s
}
