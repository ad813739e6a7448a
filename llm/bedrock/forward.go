package bedrock

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// forward sends a bridged agent's own Converse request to Bedrock (the
// region's endpoint, or the configured one), signed anew with this
// model's credentials: wire.Forward removes the agent's signature headers
// (wire.Bedrock's Credentials) and the signing transport adds these. The
// model is in the path: a request naming another model is sent to this
// model's path, and fw.Replaced says so. A request in another format is
// refused.
func (m *Model) forward(ctx context.Context, fw *wire.Forwarded) (*llm.Response, error) {
	if fw.Call.Format != wire.Bedrock {
		err := fmt.Errorf("%w: %s serves Bedrock Converse (POST .../model/M/converse); the agent called POST %s (%s): choose a provider of its format with --model", wire.ErrForward, m.Name(), fw.URL.Path, fw.Call.Format)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	method := "converse"
	if fw.Call.Stream {
		method = "converse-stream"
	}
	if m.model != fw.Call.Model {
		fw.Replaced = fw.Call.Model
	}
	u := *fw.URL
	u.Path, u.RawPath = "/model/"+m.model+"/"+method, "/model/"+url.PathEscape(m.model)+"/"+method
	out := *fw
	out.URL = &u
	base := m.base
	if base == "" {
		base = "https://bedrock-runtime." + m.region + ".amazonaws.com"
	}
	inner := http.DefaultTransport
	if m.http != nil && m.http.Transport != nil {
		inner = m.http.Transport
	}
	client := &http.Client{Transport: &signer{m: m, next: inner}}
	resp, err := wire.Forward(ctx, &out, wire.Endpoint{Provider: ProviderName, BaseURL: base, Client: client})
	fw.Replaced = out.Replaced
	return resp, err
}

// signer signs each request with SigV4 for bedrock in the model's region.
type signer struct {
	m    *Model
	next http.RoundTripper
}

// RoundTrip signs r (its body hashed) and sends it.
func (s *signer) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"} {
		r.Header.Del(h)
	}
	if err := v4.NewSigner().SignHTTP(r.Context(), s.m.creds, r, hash, "bedrock", s.m.region, time.Now()); err != nil {
		return nil, err
	}
	return s.next.RoundTrip(r)
}
