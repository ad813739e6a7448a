// Package gemini is the provider of Google's Gemini API, on its official Go
// SDK (google.golang.org/genai), and of the same models on Vertex AI. It
// registers "gemini" and "vertex" with package llm:
//
//	model, err := llm.Open(ctx, "gemini/gemini-2.5-flash", nil)
//	model, err = llm.Open(ctx, "vertex/gemini-2.5-flash", nil) // Vertex AI, Application Default Credentials
//
// The key is OpenOptions.APIKey, else GEMINI_API_KEY, else GOOGLE_API_KEY;
// the API's root OpenOptions.BaseURL, else GOOGLE_GEMINI_BASE_URL, else
// Google's. A call is streamed (streamGenerateContent?alt=sse) unless
// OpenOptions.NoStream. A bridged agent's Gemini request is forwarded as
// the agent sent it (see wire.Forward), its model replaced in the path when
// this model is another.
//
// A "vertex/MODEL" model (NewVertex) calls Vertex AI on genai's Vertex
// backend with an OAuth2 access token of Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server),
// in the project and location of GOOGLE_CLOUD_PROJECT and
// GOOGLE_CLOUD_LOCATION; a bridged agent's request is forwarded to its
// own project and location's host with the token in place of its
// credentials. The token is held in memory only, never put in a variable
// or a file.
//
// A model turn keeps Gemini's thought signatures (llm.ToolCall.Signature,
// and a reasoning block holding only a signature for one on text), which
// Gemini 3 wants back with the calls of the turn.
package gemini

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpopts"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// The provider's name, environment variables and defaults.
const (
	ProviderName = "gemini"
	// KeyEnv is read when OpenOptions.APIKey is empty, then AltKeyEnv.
	KeyEnv    = "GEMINI_API_KEY"
	AltKeyEnv = "GOOGLE_API_KEY"
	// BaseURLEnv is read when OpenOptions.BaseURL is empty.
	BaseURLEnv = "GOOGLE_GEMINI_BASE_URL"
	// DefaultBaseURL is the API's root when neither says otherwise.
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	// APIVersion is the API version the provider calls.
	APIVersion = "v1beta"
)

func init() {
	llm.Register(ProviderName, llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return New(ctx, model, opts)
	}))
}

// Model is a Gemini API model. It is safe for concurrent use.
type Model struct {
	client *genai.Client
	// provider is "gemini" or "vertex".
	provider string
	model    string
	opts     llm.OpenOptions
	// http is opts.HTTPClient as the *http.Client it is; nil means none.
	http *http.Client
	// key and base are what the client was made with, which a bridged
	// agent's forwarded request is sent with (forward.go).
	key, base string
	// vertex is set for a Vertex AI model (vertex.go); nil for the
	// Gemini API.
	vertex *vertex
}

// New returns the model named model. A nil opts is the zero
// llm.OpenOptions. A missing key is an error naming GEMINI_API_KEY, before
// any request. Only opts (and the variables above) configure the client:
// the Gemini API backend, API version v1beta, no retries (the agent's
// retry policy decides).
func New(ctx context.Context, model string, opts *llm.OpenOptions) (*Model, error) {
	if opts == nil {
		opts = &llm.OpenOptions{}
	}
	key := cmp.Or(opts.APIKey, opts.Env(KeyEnv), opts.Env(AltKeyEnv))
	if key == "" {
		return nil, fmt.Errorf("%w: set %s or pass a key", llm.ErrMissingKey, KeyEnv)
	}
	base := strings.TrimRight(cmp.Or(opts.BaseURL, opts.Env(BaseURLEnv), DefaultBaseURL), "/")
	hc, err := httpopts.Client(ProviderName, opts)
	if err != nil {
		return nil, err
	}
	cfg := &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: key, HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: base + "/", APIVersion: APIVersion, Headers: httpopts.Header(opts).Clone()},
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &Model{client: client, provider: ProviderName, model: model, opts: *opts, http: hc, key: key, base: base}, nil
}

// Name returns "gemini/MODEL", or "vertex/MODEL" for Vertex AI.
func (m *Model) Name() string { return m.provider + "/" + m.model }

// Generate makes one generateContent call, streamed unless
// OpenOptions.NoStream; a bridged agent's call (ctx carries its request,
// wire.ForwardedOf) is the agent's own request forwarded. Every failure is
// an *llm.ProviderError.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if fw := wire.ForwardedOf(ctx); fw != nil {
		if m.vertex != nil {
			return m.forwardVertex(ctx, fw)
		}
		return m.forward(ctx, fw)
	}
	if m.vertex != nil && m.vertex.project == "" {
		err := fmt.Errorf("no Google Cloud project: set %s (the credentials of %s name none)", ProjectEnv, m.vertex.source)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: m.provider, Message: err.Error(), Err: err}
	}
	contents, cfg, err := m.request(ctx, req)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: m.provider, Message: err.Error(), Err: err}
	}
	var (
		parts  []*genai.Part
		finish string
		usage  *genai.GenerateContentResponseUsageMetadata
	)
	gather := func(r *genai.GenerateContentResponse) {
		if r.UsageMetadata != nil {
			usage = r.UsageMetadata
		}
		if len(r.Candidates) == 0 || r.Candidates[0] == nil {
			return
		}
		c := r.Candidates[0]
		if c.Content != nil {
			parts = append(parts, c.Content.Parts...)
		}
		if c.FinishReason != "" {
			finish = string(c.FinishReason)
		}
	}
	if m.opts.NoStream {
		r, err := m.client.Models.GenerateContent(ctx, m.model, contents, cfg)
		if err != nil {
			return nil, classify(ctx, m.provider, err)
		}
		gather(r)
	} else {
		for r, err := range m.client.Models.GenerateContentStream(ctx, m.model, contents, cfg) {
			if err != nil {
				return nil, classify(ctx, m.provider, err)
			}
			gather(r)
		}
		if pe := llm.ContextError(ctx, m.provider, nil); pe != nil {
			return nil, pe
		}
	}
	if finish == "" {
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: m.provider, Message: "the answer has no finish reason (a stream cut short, or no candidate)"}
	}
	resp, err := response(parts, finish, usage)
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		pe.Provider = m.provider
	}
	return resp, err
}

// response makes the response of an answer's parts, read as the bridge
// reads a Gemini answer (wire.GeminiModelTurn), so that a native run and a
// bridged one see the same message.
func response(parts []*genai.Part, finish string, u *genai.GenerateContentResponseUsageMetadata) (*llm.Response, error) {
	if parts == nil {
		parts = []*genai.Part{}
	}
	raw, err := json.Marshal(parts)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ProviderName, Message: "the answer's parts: " + err.Error(), Err: err}
	}
	msg, err := wire.GeminiModelTurn(raw)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	resp := &llm.Response{Message: msg, FinishReason: wire.GeminiFinishReason(finish, len(msg.ToolCalls) > 0)}
	if u != nil {
		resp.Usage = llm.Usage{
			InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			CachedInputTokens: int(u.CachedContentTokenCount), ReasoningTokens: int(u.ThoughtsTokenCount),
			// The API leaves out a count that is zero: a usage reports
			// the cache's, none included.
			CacheReported: llm.ReportedZeroCache(true, int(u.CachedContentTokenCount), 0),
		}
	}
	return resp, nil
}

// classify turns a failed call of provider into an *llm.ProviderError:
// the context's failure first, then one the transport made (Vertex AI's
// access token), then Google's error (its kind by the google.rpc status
// name, its wait from a RetryInfo detail), then transport failures.
func classify(ctx context.Context, provider string, err error) error {
	if pe := llm.ContextError(ctx, provider, err); pe != nil {
		return pe
	}
	var own *llm.ProviderError
	if errors.As(err, &own) {
		return own
	}
	var ae genai.APIError
	if errors.As(err, &ae) {
		return &llm.ProviderError{
			Kind: wire.GeminiErrorKind(ae.Code, ae.Status, ae.Message), Provider: provider, StatusCode: ae.Code,
			Message: ae.Message, RetryAfter: wire.GeminiRetryDelay(ae.Details), Err: err,
		}
	}
	return httpwatch.TransportError(provider, err)
}

// signature decodes a base64 thought signature; nil when there is none or
// it is not base64 (then it is not Gemini's, and not sent).
func signature(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

var _ llm.Model = (*Model)(nil)
