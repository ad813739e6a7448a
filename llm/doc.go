// Package llm holds the provider-neutral types of a tool-calling conversation:
// messages, tool calls, tool definitions, requests, responses and usage, and the
// Model interface that a live provider or a replayed tape implements.
//
// A ToolCall keeps its arguments as the raw text the model emitted, which may be
// broken JSON; repairing and validating it is the job of the tools registry.
//
//	resp, err := model.Generate(ctx, &llm.Request{
//		Messages: []llm.Message{llm.UserMessage("What is 2+2?")},
//		Tools:    registry.Definitions(),
//	})
//
// A live model is opened by name, "PROVIDER/MODEL", from a provider that
// registered itself (as database/sql drivers do); import
// github.com/tapeloop/tapeloop/llm/builtin to register the built-in ones:
//
//	model, err := llm.Open(ctx, "openai/gpt-4.1-mini", nil) // key from OPENAI_API_KEY
//
// A provider's failure is a *ProviderError whose ErrorKind (rate-limited,
// overloaded, auth, bad request, context too long, timeout, cancelled,
// malformed response) errors.Is can test; a model that answers badly still
// answers with a Response.
//
// Package llm imports no other package of this module.
package llm
