// Package anthropic is the Messages API provider, on the official
// github.com/anthropics/anthropic-sdk-go SDK. Importing it registers the
// provider "anthropic" with llm.Register; the key comes from
// llm.OpenOptions.APIKey or ANTHROPIC_API_KEY, the base URL from
// OpenOptions.BaseURL, ANTHROPIC_BASE_URL or the API's own:
//
//	model, err := llm.Open(ctx, "anthropic/claude-sonnet-4-5", nil)
//
// Calls stream by default (OpenOptions.NoStream turns it off) and are
// accumulated with the SDK's Message.Accumulate. System messages become the
// system prompt; tool results go back as tool_result blocks, is_error set from
// llm.Message.IsError (the loop sets it from the result's failure), several
// in one user message; thinking blocks are kept as llm.Message.Reasoning with
// their signatures and sent back before the text, as the API requires. A
// call's arguments are the concatenated input_json_delta fragments exactly as
// streamed (or the input object's text as received), never re-serialised.
// The SDK's own retries are off: the agent's ModelRetryPolicy decides, from
// the *llm.ProviderError every failure becomes.
//
// # What the wire does that needs care
//
// Each row is checked against a hand-built fixture in testdata by
// TestParallelToolsStreamedAndNot, TestStreamEdgeCases or TestStopReasons:
//
//	the API sends                                      handling
//	data lines padded with spaces after the JSON       decoded as JSON
//	ping events between deltas                         skipped
//	a tool_use block starting with "input": {} and     the fragments, concatenated; "{}" when there
//	an empty first input_json_delta                    are none
//	input fragments that do not make valid JSON        kept as sent (the SDK's accumulator empties them)
//	event: error (overloaded_error) after HTTP 200     llm.ErrOverloaded, retryable
//	a stream that stops before message_stop            llm.ErrMalformed
//	thinking with a signature_delta;                   Reasoning{Text, Signature} / Reasoning{Redacted},
//	redacted_thinking with data                        sent back on the next request
//	input_tokens without the cached part               Usage.InputTokens adds cache reads and writes
//	stop reasons end_turn, stop_sequence, tool_use,    stop, stop, tool_calls, length, content_filter,
//	max_tokens, refusal, pause_turn                    pause
//
// RequestOptions.Seed is not sent (the API has none); ParallelToolCalls false
// becomes tool_choice.disable_parallel_tool_use; MaxTokens zero sends
// DefaultMaxTokens.
package anthropic
