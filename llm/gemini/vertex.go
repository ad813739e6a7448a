package gemini

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/oauth2"
	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpopts"
)

// The Vertex AI provider's name, variables and defaults.
const (
	VertexProviderName = "vertex"
	// ProjectEnv names the Google Cloud project, as genai reads it; unset
	// means the project the credentials name (a service account's
	// project_id, the metadata server's).
	ProjectEnv = "GOOGLE_CLOUD_PROJECT"
	// LocationEnv names the location (us-central1, europe-west4, global),
	// then RegionEnv, as genai reads them; unset means DefaultLocation.
	LocationEnv = "GOOGLE_CLOUD_LOCATION"
	RegionEnv   = "GOOGLE_CLOUD_REGION"
	// DefaultLocation is genai's default when no location is set.
	DefaultLocation = "global"
	// VertexAPIVersion is the API version the provider calls, genai's
	// default for Vertex AI.
	VertexAPIVersion = "v1beta1"
)

func init() {
	llm.Register(VertexProviderName, llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return NewVertex(ctx, model, opts)
	}))
}

// vertex is what a Vertex AI model calls with.
type vertex struct {
	// project and location are the settings' (ProjectEnv, LocationEnv or
	// the credentials'); a request path naming its own wins over them.
	project, location string
	// quota is the project billed (X-Goog-User-Project); empty means none
	// is sent.
	quota string
	// tokens gives the access tokens; source says where the credentials
	// were found, for errors.
	tokens oauth2.TokenSource
	source string
	// base replaces the regional host (OpenOptions.BaseURL: a test's
	// server, a proxy); empty means the location's host (vertexHost).
	base string
}

// NewVertex returns the Vertex AI model named model (gemini-2.5-flash),
// called with an OAuth2 access token of Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server; a
// nil opts is the zero llm.OpenOptions, and OpenOptions.APIKey is not
// used). Credentials found nowhere are an error naming each place looked,
// wrapping llm.ErrMissingKey, before any request. The project is
// GOOGLE_CLOUD_PROJECT, else the credentials'; the location
// GOOGLE_CLOUD_LOCATION, else GOOGLE_CLOUD_REGION, else global. Calls go to
// the location's host (https://LOCATION-aiplatform.googleapis.com,
// https://aiplatform.googleapis.com for global), or to OpenOptions.BaseURL
// when set (a local server in tests). Only opts and those variables
// configure the client: API version v1beta1, no retries.
func NewVertex(ctx context.Context, model string, opts *llm.OpenOptions) (*Model, error) {
	if opts == nil {
		opts = &llm.OpenOptions{}
	}
	hc, err := httpopts.Client(VertexProviderName, opts)
	if err != nil {
		return nil, err
	}
	creds, err := findADC(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", VertexProviderName, err)
	}
	v := &vertex{
		project:  cmp.Or(opts.Env(ProjectEnv), creds.project),
		location: cmp.Or(opts.Env(LocationEnv), opts.Env(RegionEnv), DefaultLocation),
		quota:    cmp.Or(opts.Env(QuotaProjectEnv), creds.quota),
		tokens:   oauth2.ReuseTokenSource(nil, creds.tokens), source: creds.source,
		base: strings.TrimRight(opts.BaseURL, "/"),
	}
	base, err := v.host(v.location)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", VertexProviderName, LocationEnv, err)
	}
	client := &http.Client{}
	if hc != nil {
		*client = *hc
	}
	client.Transport = &bearer{v: v, next: client.Transport}
	headers := httpopts.Header(opts).Clone()
	if v.quota != "" {
		if headers == nil {
			headers = http.Header{}
		}
		headers.Set("X-Goog-User-Project", v.quota)
	}
	cfg := &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: v.project, Location: v.location, HTTPClient: client,
		HTTPOptions: genai.HTTPOptions{BaseURL: base + "/", APIVersion: VertexAPIVersion, Headers: headers},
	}
	gc, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", VertexProviderName, err)
	}
	return &Model{client: gc, provider: VertexProviderName, model: model, opts: *opts, http: hc, vertex: v}, nil
}

// host is the root of location's Vertex AI API: base when set, else
// Google's regional host (as genai chooses it). A location that is not a
// host label is an error: it comes from a variable or a request path.
func (v *vertex) host(location string) (string, error) {
	if v.base != "" {
		return v.base, nil
	}
	if location == "" || strings.Trim(location, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return "", fmt.Errorf("%q is not a Google Cloud location (us-central1, europe-west4, global)", location)
	}
	switch location {
	case "global":
		return "https://aiplatform.googleapis.com", nil
	case "us", "eu":
		return "https://aiplatform." + location + ".rep.googleapis.com", nil
	}
	return "https://" + location + "-aiplatform.googleapis.com", nil
}

// token returns the current access token, or an *llm.ProviderError of kind
// llm.ErrAuth saying where the credentials came from.
func (v *vertex) token() (*oauth2.Token, error) {
	tok, err := v.tokens.Token()
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrAuth, Provider: VertexProviderName,
			Message: fmt.Sprintf("getting an access token with the credentials of %s: %v", v.source, err), Err: err}
	}
	return tok, nil
}

// bearer is the transport of the genai client on Vertex AI: each request
// gets the current access token.
type bearer struct {
	v    *vertex
	next http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := b.v.token()
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	r2 := r.Clone(r.Context())
	tok.SetAuthHeader(r2)
	next := b.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r2)
}
