package agent

import (
	"encoding/json"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// EventKind names an event.
type EventKind string

// The events of a run, in the order they can occur within a turn.
const (
	EventRunStart       EventKind = "run_start"
	EventAsyncResult    EventKind = "async_result"
	EventModelRequest   EventKind = "model_request"
	EventModelRetry     EventKind = "model_retry"
	EventModelError     EventKind = "model_error"
	EventModelResponse  EventKind = "model_response"
	EventTextExtraction EventKind = "text_extraction"
	EventRepair         EventKind = "repair"
	EventToolStart      EventKind = "tool_start"
	EventToolUpdate     EventKind = "tool_update"
	EventRetry          EventKind = "retry"
	EventToolEnd        EventKind = "tool_end"
	EventMemoHit        EventKind = "memo_hit"
	EventTurnEnd        EventKind = "turn_end"
	EventUserMessage    EventKind = "user_message"
	EventRunEnd         EventKind = "run_end"
)

// Event is one thing a run did. Seq numbers events from 1 in the order the
// observer receives them, which is the same on every run of the same inputs:
// events of concurrent calls are delivered in the order the model emitted the
// calls, never in completion order. Time is read from the run's clock (for
// events of a call, from the call's own timeline). Fields that do not apply to
// the kind are zero.
type Event struct {
	Seq    int
	Kind   EventKind
	Turn   int
	CallID string
	Time   time.Time

	// Tool is the called tool's name (call events).
	Tool string `json:",omitempty"`
	// ModelCall numbers, from 1, the model call a model_request,
	// model_retry, model_error or model_response event belongs to, so that
	// an observer pairs an answer with the request it answers even when
	// calls overlap. Zero means not numbered (events of other kinds, or a
	// source that does not number its calls).
	ModelCall int `json:",omitempty"`
	// Request is the request sent (model_request).
	Request *llm.Request `json:",omitempty"`
	// Response is the model's answer (model_response).
	Response *llm.Response `json:",omitempty"`
	// Envelope and Calls describe a text extraction.
	Envelope string         `json:",omitempty"`
	Calls    []llm.ToolCall `json:",omitempty"`
	// Arguments are the arguments as executed (tool_start) when they parsed.
	Arguments json.RawMessage `json:",omitempty"`
	// Repairs are the fixes applied to a call's arguments (repair).
	Repairs []string `json:",omitempty"`
	// Message is a progress update (tool_update).
	Message string `json:",omitempty"`
	// User is the user message the conversation went on with
	// (user_message); Turn is then the turn it follows.
	User *llm.Message `json:",omitempty"`
	// Attempt is the attempt that failed (retry, model_retry, model_error) or
	// the number of attempts made (tool_end, and model_response after a
	// retry); Backoff the wait before the next one (retry, model_retry).
	Attempt int           `json:",omitempty"`
	Backoff time.Duration `json:",omitempty"`
	// Error is a failed model call's error text and ErrorKind its kind when a
	// provider classified it (model_retry, model_error).
	Error     string        `json:",omitempty"`
	ErrorKind llm.ErrorKind `json:",omitempty"`
	// Result is a call's final result (tool_end, memo_hit, async_result).
	Result *tools.Result `json:",omitempty"`
	// Duration is the measured time of a call, all attempts and waits included
	// (tool_end).
	Duration time.Duration `json:",omitempty"`
	// Termination says how the run ended (run_end).
	Termination *Termination `json:",omitempty"`
}
