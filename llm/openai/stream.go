package openai

import (
	"context"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
)

// stream makes a streamed call and accumulates it with the SDK's
// accumulator. A stream that ends without a finish_reason or without
// "data: [DONE]" is a malformed response, never a short answer.
func (m *Model) stream(ctx context.Context, params openai.ChatCompletionNewParams) (*llm.Response, error) {
	x := &httpwatch.Exchange{}
	s := m.client.Chat.Completions.NewStreaming(ctx, params, option.WithMiddleware(x.Middleware))
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	var reasoning strings.Builder
	var use openai.CompletionUsage
	chunks, finished := 0, false
	for s.Next() {
		chunk := s.Current()
		chunks++
		if !acc.AddChunk(chunk) {
			return nil, m.malformed("chunk %d of the stream does not continue it (id %q)", chunks, chunk.ID)
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if r, ok := extraString(c.Delta.JSON.ExtraFields); ok {
				reasoning.WriteString(r)
			}
			if c.FinishReason != "" {
				finished = true
			}
		}
		// Servers that repeat usage on several chunks send running totals:
		// the last one counts.
		if chunk.Usage.PromptTokens != 0 || chunk.Usage.CompletionTokens != 0 {
			use = chunk.Usage
		}
	}
	if err := s.Err(); err != nil {
		return nil, m.classify(ctx, x, err)
	}
	if pe := llm.ContextError(ctx, m.dialect.Name, nil); pe != nil {
		return nil, pe
	}
	switch {
	case !x.Done:
		return nil, m.malformed("the stream ended without data: [DONE] after %d chunks", chunks)
	case !finished || len(acc.Choices) == 0:
		return nil, m.malformed("the stream ended without a finish_reason after %d chunks", chunks)
	}
	ch := acc.Choices[0]
	resp := &llm.Response{
		Message:      m.message(ch.Message),
		FinishReason: finishReason(ch.FinishReason),
		Usage:        usage(use),
	}
	if reasoning.Len() > 0 {
		resp.Message.Reasoning = []llm.Reasoning{{Text: reasoning.String()}}
	}
	refusal(resp, ch.Message.Refusal)
	return resp, nil
}
