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
// Package llm imports no other package of this module.
package llm
