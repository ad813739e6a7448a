// Package otelproof proves evalrun import end to end with the real
// OpenTelemetry Go SDK: an openai-go agent with two tools, traced with
// GenAI semantic-convention spans by an openai-go middleware and exported
// by the OTLP/HTTP exporter to a local receiver that writes OTLP JSON lines
// as the Collector's file exporter does, against a scripted local model
// server. Its trace imported, the scenario replays through the bridge with
// the same agent, and fails closed when the agent's instruction changes.
//
// It also imports adk-go's own trace of a tool call (from the shared
// corpus, when present) and replays it through the Gemini API with an
// agent on the genai SDK.
//
// It is a module of its own so that the OpenTelemetry SDK and exporter
// never enter tapeloop's own requirements.
package otelproof
