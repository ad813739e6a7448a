// Package traceimport turns an exported trace of an agent run into the
// pieces of a tapeloop scenario: the conversation the run started from,
// what the model was offered, and every model call in order with the
// response it gave, the tool calls it asked for and the results the agent
// sent back.
//
// It reads OpenTelemetry traces as OTLP JSON (the file exporter's and the
// collector's JSON lines of resourceSpans and resourceLogs, a single
// document, or a JSON array of them) and the span trees of ADK's telemetry
// tests, and understands two attribute vocabularies: the OpenTelemetry GenAI
// semantic conventions (gen_ai.input.messages, gen_ai.output.messages,
// gen_ai.system_instructions, gen_ai.tool.definitions, execute_tool spans,
// and the older gen_ai.*.message, gen_ai.choice and
// gen_ai.content.prompt/completion events) and OpenInference
// (llm.input_messages.*, llm.output_messages.*, llm.tools.*, tool.*).
//
// A trace that cannot be turned into a whole run is refused with an error
// naming the span: one recorded without message content (capture off), a
// tool result that no model call asked for, model calls that cannot be
// ordered. Nothing is ever guessed to fill a gap.
//
//	spans, err := traceimport.ReadFile("trace.jsonl", nil)
//	if err != nil { ... }
//	runs, err := traceimport.Runs(spans, nil)
//	if err != nil { ... } // errors.Is(err, traceimport.ErrNoContent), ...
//	for _, r := range runs {
//		doc, err := traceimport.Scenario(r, &traceimport.ScenarioOptions{Redactor: red})
//		...
//	}
package traceimport
