// Package openai is the Chat Completions provider, on the official
// github.com/openai/openai-go SDK: one provider for OpenAI and every
// OpenAI-compatible server (Ollama, vLLM, llama.cpp's server, LM Studio, Groq,
// DeepSeek, Mistral, OpenRouter, ...), and the Responses API provider
// (ResponsesModel, on the SDK's responses package). Importing it registers
// the providers "openai", "openai-compatible", "ollama", "vllm", "llamacpp"
// and "openai-responses" with llm.Register (see Dialects and
// ResponsesDialect for their default base URLs and keys):
//
//	model, err := llm.Open(ctx, "ollama/qwen3:8b", nil) // http://localhost:11434/v1, no key
//
// Calls stream by default (llm.OpenOptions.NoStream turns it off); the SDK's
// accumulator assembles streamed tool calls. A call's arguments reach
// llm.ToolCall exactly as the model emitted them: never parsed and
// re-serialised. Reasoning (reasoning_content, reasoning) is kept on the
// message and never sent back. The SDK's own retries are off: the agent's
// ModelRetryPolicy decides, from the *llm.ProviderError every failure becomes.
// A stream that ends without a finish_reason or without "data: [DONE]" is an
// llm.ErrMalformed error, never a short answer; an error event inside a stream
// is llm.ErrOverloaded.
//
// # Dialects
//
// What servers send that differs from OpenAI's own stream, and what the
// provider does with it (each row is a case of TestConformance):
//
//	dialect            sends                                            handling
//	openai             ": keep-alive" comments, "obfuscation" fields,   comments skipped, extra fields ignored,
//	                   a last chunk with "choices": [] and the usage    usage read from that chunk
//	openai             "refusal" instead of content                     refusal text as content, finish content_filter
//	openai             finish "length" with reasoning_tokens            FinishLength, Usage.ReasoningTokens
//	deepseek, xai      "reasoning_content" deltas (and in the message)  kept as Message.Reasoning, never sent back
//	mistral            the id and "content": "" on every chunk,         the accumulator keeps the first id and name
//	                   "name": "" on later call deltas
//	alibaba (qwen)     "id": "" on later call deltas, an empty          empty ids ignored
//	                   trailing call delta
//	groq               whole arguments in one delta, "x_groq" usage     arguments as sent, standard usage read
//	vllm               running usage totals on every chunk              the last chunk's usage counts, not the sum
//	ollama (older)     "arguments" as a JSON object, not a string       the object's text, as sent
//	anthropic compat   call indices that count its text block (first     the empty gap is dropped
//	                   call at index 1)
//	ollama, vllm,      no key                                           no Authorization header
//	llamacpp
//
// Compatible servers get max_tokens, OpenAI max_completion_tokens.
package openai
