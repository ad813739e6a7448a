package traceimport

import (
	"encoding/json"

	"github.com/tapeloop/tapeloop/llm"
)

// Call is one model call of a trace: what was sent and what came back.
type Call struct {
	// Span is the span of the call.
	Span *Span
	// Vocabulary names the attributes the call was read from (see the
	// Vocabulary constants).
	Vocabulary string
	// System holds the system instructions sent beside the conversation:
	// one prompt, its text parts joined by newlines; empty when there were
	// none, nil when none were recorded (they may be leading system
	// messages of Input instead).
	System []string
	// Tools holds the tool definitions offered; nil when not recorded.
	Tools []llm.ToolDefinition
	// Input is the conversation sent, in order, as recorded.
	Input []llm.Message
	// Output is the model's answer; nil when the call failed.
	Output *llm.Message
	// Provider names the provider (gen_ai.provider.name, before 1.37
	// gen_ai.system; OpenInference's llm.provider or llm.system); empty
	// when not recorded.
	Provider string
	// Model is the model asked for (gen_ai.request.model, OpenInference's
	// llm.model_name); empty when not recorded.
	Model string
	// FinishReason is why the model stopped, as recorded; empty when not.
	FinishReason string
	// Usage holds the token counts recorded; zero when none.
	Usage llm.Usage
	// Err is the error a failed call ended with (its status message or
	// error type); empty when the call succeeded.
	Err string
}

// ToolExec is one execution of a tool the trace recorded (an execute_tool
// or OpenInference TOOL span).
type ToolExec struct {
	// Span is the span of the execution.
	Span *Span
	// ID is the tool call's id; empty when not recorded.
	ID string
	// Name is the tool's name.
	Name string
	// Description is the tool's description; empty when not recorded.
	Description string
	// Arguments are the arguments the tool ran with, as JSON text; nil when
	// not recorded.
	Arguments json.RawMessage
	// Result is what the tool returned, as JSON text (a string for text);
	// nil when not recorded.
	Result json.RawMessage
	// Failed is set when the span's status is an error.
	Failed bool
}

// The vocabularies a call can be read from, as Call.Vocabulary names them.
const (
	// VocabGenAI is the GenAI semantic conventions 1.37 and later: the
	// gen_ai.input.messages, gen_ai.output.messages,
	// gen_ai.system_instructions and gen_ai.tool.definitions attributes,
	// on the span or on its gen_ai.client.inference.operation.details
	// event.
	VocabGenAI = "gen_ai"
	// VocabGenAIEvents is the GenAI semantic conventions 1.28 to 1.36: one
	// event per message (gen_ai.system.message, gen_ai.user.message,
	// gen_ai.assistant.message, gen_ai.tool.message) and gen_ai.choice.
	VocabGenAIEvents = "gen_ai events"
	// VocabGenAIPrompt is the GenAI semantic conventions before 1.28: the
	// gen_ai.prompt and gen_ai.completion attributes of the
	// gen_ai.content.prompt and gen_ai.content.completion events.
	VocabGenAIPrompt = "gen_ai prompt/completion"
	// VocabOpenInference is OpenInference: llm.input_messages.*,
	// llm.output_messages.*, llm.tools.* and TOOL spans' tool.*.
	VocabOpenInference = "openinference"
)
