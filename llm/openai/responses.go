package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// ResponsesDialect is the provider of OpenAI's Responses API, registered
// as "openai-responses": OPENAI_BASE_URL and OPENAI_API_KEY, as the
// "openai" provider reads them.
var ResponsesDialect = Dialect{Name: "openai-responses", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", KeyRequired: true}

func init() {
	llm.Register(ResponsesDialect.Name, llm.ProviderFunc(func(_ context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return NewResponses(model, opts)
	}))
}

// ResponsesModel is a model called through OpenAI's Responses API
// (POST /responses), stateless: every call sends the whole conversation
// with store false, and reasoning items come back as they came (see
// wire.Responses). It is safe for concurrent use.
type ResponsesModel struct {
	chat *Model // the client, options and schema cache, shared with Chat Completions
}

// NewResponses returns the Responses API model named model. A nil opts is
// the zero llm.OpenOptions. A missing key is an error, before any request.
// The SDK's own retries are off: the agent's retry policy decides.
func NewResponses(model string, opts *llm.OpenOptions) (*ResponsesModel, error) {
	m, err := New(ResponsesDialect, model, opts)
	if err != nil {
		return nil, err
	}
	return &ResponsesModel{chat: m}, nil
}

// Name returns "openai-responses/MODEL".
func (m *ResponsesModel) Name() string { return m.chat.Name() }

// Generate makes one Responses API call, streamed unless
// OpenOptions.NoStream; a bridged agent's call (wire.ForwardedOf) is the
// agent's own request forwarded, as the "openai" provider forwards it. Every failure is an *llm.ProviderError.
func (m *ResponsesModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if fw := wire.ForwardedOf(ctx); fw != nil {
		return m.chat.forward(ctx, fw)
	}
	params, err := m.params(ctx, req)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ResponsesDialect.Name, Message: err.Error(), Err: err}
	}
	x := &httpwatch.Exchange{}
	var r *responses.Response
	if m.chat.opts.NoStream {
		r, err = m.chat.client.Responses.New(ctx, params, option.WithMiddleware(x.Middleware))
	} else {
		r, err = m.stream(ctx, params, x)
	}
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return nil, err
	}
	if err != nil {
		return nil, m.chat.classify(ctx, x, err)
	}
	if pe := llm.ContextError(ctx, ResponsesDialect.Name, nil); pe != nil {
		return nil, pe
	}
	return m.response(r)
}

// stream makes a streamed call and returns the response its last event
// (response.completed or response.incomplete) holds. A stream that ends
// without one is malformed; one that fails (response.failed) an error.
func (m *ResponsesModel) stream(ctx context.Context, params responses.ResponseNewParams, x *httpwatch.Exchange) (*responses.Response, error) {
	s := m.chat.client.Responses.NewStreaming(ctx, params, option.WithMiddleware(x.Middleware))
	defer s.Close()
	var final *responses.Response
	events := 0
	for s.Next() {
		ev := s.Current()
		events++
		switch ev.Type {
		case "response.completed", "response.incomplete":
			r := ev.Response
			final = &r
		case "response.failed":
			msg := ev.Response.Error.Message
			return nil, &llm.ProviderError{Kind: llm.ErrOverloaded, Provider: ResponsesDialect.Name,
				Message: "the response failed: " + cmp.Or(string(ev.Response.Error.Code), "") + " " + msg}
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if final == nil {
		if err := llm.ContextError(ctx, ResponsesDialect.Name, nil); err != nil {
			return nil, err
		}
		return nil, m.chat.malformed("the stream ended without response.completed after %d events", events)
	}
	return final, nil
}

// response maps a response object: its reasoning items (each kept whole,
// see wire.Responses), its messages' text, its function calls, its status
// and usage.
func (m *ResponsesModel) response(r *responses.Response) (*llm.Response, error) {
	out := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	var texts []string
	refused := false
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			rs := it.AsReasoning()
			var sum []string
			for _, s := range rs.Summary {
				sum = append(sum, s.Text)
			}
			out.Message.Reasoning = append(out.Message.Reasoning, llm.Reasoning{Text: strings.Join(sum, "\n\n"), Signature: canonicalItem(rs.RawJSON())})
		case "message":
			for _, c := range it.AsMessage().Content {
				switch c.Type {
				case "output_text":
					texts = append(texts, c.Text)
				case "refusal":
					texts = append(texts, c.Refusal)
					refused = true
				}
			}
		case "function_call":
			fc := it.AsFunctionCall()
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments})
		}
	}
	out.Message.Content = strings.Join(texts, "\n")
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "content_filter", refused:
		out.FinishReason = llm.FinishFiltered
	case r.Status == "incomplete":
		out.FinishReason = llm.FinishLength
	case r.Status == "failed":
		return nil, &llm.ProviderError{Kind: llm.ErrOverloaded, Provider: ResponsesDialect.Name, Message: fmt.Sprintf("the response failed: %s %s", r.Error.Code, r.Error.Message)}
	case len(out.Message.ToolCalls) > 0:
		out.FinishReason = llm.FinishToolCalls
	default:
		out.FinishReason = llm.FinishStop
	}
	out.Usage = llm.Usage{
		InputTokens:       int(r.Usage.InputTokens),
		OutputTokens:      int(r.Usage.OutputTokens),
		CachedInputTokens: int(r.Usage.InputTokensDetails.CachedTokens),
		ReasoningTokens:   int(r.Usage.OutputTokensDetails.ReasoningTokens),
		CacheReported:     llm.ReportedZeroCache(r.Usage.InputTokensDetails.JSON.CachedTokens.Valid(), int(r.Usage.InputTokensDetails.CachedTokens), 0),
	}
	return out, nil
}

var _ llm.Model = (*ResponsesModel)(nil)
