// Package wire is the server side of the wire formats tapeloop speaks, each
// a value of Format listed in Formats: OpenAI's Chat Completions, Anthropic's
// Messages, OpenAI's Responses API, and so on. It decodes a request
// as a client (an official SDK, or any other) sends it into an llm.Request,
// and encodes an llm.Response, or a provider error, exactly as the vendor's
// server answers: a JSON body, or a server-sent event stream of the shape
// the official SDKs parse (chat.completion.chunk deltas with tool-call
// argument fragments, a usage chunk and data: [DONE]; message_start,
// content blocks with text_delta and input_json_delta, message_delta and
// message_stop; the Responses API's typed response.* events, each with its
// sequence_number), and typed error bodies with their status codes and
// Retry-After.
//
// The bridge (a scenario's tape behind an HTTP client), the fault injector
// (llm/faults) and the scripted servers of the tests all encode through it,
// so there is one copy of each format.
//
//	call, err := wire.Decode(r.URL.Path, body)   // which format: by path
//	...
//	wire.WriteResponse(w, call, resp, nil)       // JSON or SSE, as call asked
//	(&wire.Error{Kind: llm.ErrRateLimited, RetryAfter: 2 * time.Second}).Write(w, call.Format)
//
// A Decoder decodes a conversation's requests one after another, decoding
// only the messages a request adds to the previous one (an agent resends
// its whole conversation each call); what it returns is Decode's, value for
// value.
//
// A Responses request may continue a response the server kept
// (previous_response_id): a Decoder told of each response served (Keep,
// which gives it a deterministic id) decodes it to the whole conversation.
//
// What the formats cannot carry is documented where it is lost: images and
// other non-text parts of a request are dropped; the Responses API counts
// no cache writes and has no pause; a non-streamed Anthropic
// answer holds a call's input as JSON, so its spacing is not kept, and
// arguments that are not a JSON object are sent as a JSON string holding
// their text (a stream carries any text byte for byte).
package wire
