package otelproof

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Middleware traces each Chat Completions call as a GenAI inference span
// (semantic conventions 1.37+): gen_ai.operation.name chat, the provider
// and model, and, when capture is set (as
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true sets it in the
// OpenTelemetry instrumentations), gen_ai.input.messages,
// gen_ai.output.messages and gen_ai.tool.definitions as JSON strings.
func Middleware(tracer trace.Tracer, capture bool) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var in chatRequest
		_ = json.Unmarshal(body, &in)
		ctx, span := tracer.Start(req.Context(), "chat "+in.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", in.Model)))
		defer span.End()
		if capture {
			span.SetAttributes(attribute.String("gen_ai.input.messages", in.messages()), attribute.String("gen_ai.tool.definitions", in.tools()))
		}
		resp, err := next(req.WithContext(ctx))
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			return resp, err
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(out))
		if err != nil {
			return resp, err
		}
		var answer chatResponse
		if json.Unmarshal(out, &answer) == nil && len(answer.Choices) > 0 {
			c := answer.Choices[0]
			span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{c.FinishReason}),
				attribute.Int("gen_ai.usage.input_tokens", answer.Usage.PromptTokens), attribute.Int("gen_ai.usage.output_tokens", answer.Usage.CompletionTokens))
			if capture {
				span.SetAttributes(attribute.String("gen_ai.output.messages", outputMessages(c.Message, c.FinishReason)))
			}
		}
		return resp, nil
	}
}

// The Chat Completions shapes the middleware reads.
type (
	chatMessage struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	chatRequest struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	chatResponse struct {
		Choices []struct {
			FinishReason string      `json:"finish_reason"`
			Message      chatMessage `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// parts returns m as the conventions' message: role and parts.
func parts(m chatMessage) map[string]any {
	var ps []any
	if text, ok := m.Content.(string); ok && text != "" {
		if m.Role == "tool" {
			ps = append(ps, map[string]any{"type": "tool_call_response", "id": m.ToolCallID, "response": text})
		} else {
			ps = append(ps, map[string]any{"type": "text", "content": text})
		}
	}
	for _, tc := range m.ToolCalls {
		ps = append(ps, map[string]any{"type": "tool_call", "id": tc.ID, "name": tc.Function.Name, "arguments": tc.Function.Arguments})
	}
	return map[string]any{"role": m.Role, "parts": ps}
}

func (r chatRequest) messages() string {
	var ms []any
	for _, m := range r.Messages {
		ms = append(ms, parts(m))
	}
	b, _ := json.Marshal(ms)
	return string(b)
}

func (r chatRequest) tools() string {
	var ts []any
	for _, t := range r.Tools {
		ts = append(ts, map[string]any{"type": "function", "name": t.Function.Name, "description": t.Function.Description, "parameters": t.Function.Parameters})
	}
	b, _ := json.Marshal(ts)
	return string(b)
}

func outputMessages(m chatMessage, finish string) string {
	p := parts(m)
	p["role"] = "assistant"
	p["finish_reason"] = finish
	b, _ := json.Marshal([]any{p})
	return string(b)
}
