// Package builtin registers every provider that ships with tapeloop, for
// programs that open models by name:
//
//	import _ "github.com/tapeloop/tapeloop/llm/builtin"
//
//	model, err := llm.Open(ctx, "anthropic/claude-sonnet-4-5", nil)
//
// It registers "openai", "openai-compatible", "ollama", "vllm",
// "llamacpp" and "openai-responses" (package llm/openai), "anthropic"
// (package llm/anthropic), "gemini" and "vertex" (package llm/gemini) and
// "bedrock" (package llm/bedrock).
package builtin

import (
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // Messages API
	_ "github.com/tapeloop/tapeloop/llm/bedrock"   // Bedrock Converse
	_ "github.com/tapeloop/tapeloop/llm/gemini"    // Gemini API, Vertex AI
	_ "github.com/tapeloop/tapeloop/llm/openai"    // Chat Completions dialects, Responses API
)
