package benchagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
)

// Answer is one model call of the agent: the request's URL, path, headers
// and body as it sent them, and the answer's status, content type and body
// as the bytes a server sent.
type Answer struct {
	URL, Path   string
	Header      http.Header
	Request     []byte
	Status      int
	ContentType string
	Body        []byte
}

// Capture runs the agent once against Script through the bridge's handler
// (in process) and returns its calls and the answers it got, in order:
// what Canned serves back.
func Capture(ctx context.Context) ([]Answer, error) {
	inner := bridge.Client(bridge.Handler(Script(), nil)).Transport
	var got []Answer
	capture := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		req, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(req))
		resp, err := inner.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		got = append(got, Answer{URL: r.URL.String(), Path: r.URL.Path, Header: r.Header.Clone(), Request: req, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body})
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	})
	if _, err := RunSeeded(ctx, bridge.OpenAIBaseURL, &http.Client{Transport: capture}); err != nil {
		return nil, err
	}
	if len(got) != Turns {
		return nil, fmt.Errorf("captured %d answers, want %d", len(got), Turns)
	}
	return got, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Canned is an http.RoundTripper that answers the n-th request of a run with
// the n-th captured answer and does nothing else (it drains and closes the
// request body, as any transport does): no decoding, no matching, no
// checks. Driving the agent with it measures the agent's own cost (its
// SDK building requests and decoding answers, its tools on disk), the
// floor under every harness that replays it. A Canned serves one run at a
// time; it starts again from the first answer after the last.
type Canned struct {
	answers []Answer
	n       int
}

// NewCanned returns a Canned serving answers.
func NewCanned(answers []Answer) *Canned { return &Canned{answers: answers} }

// RoundTrip answers r with the next answer.
func (c *Canned) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if len(c.answers) == 0 {
		return nil, errors.New("benchagent: no canned answers")
	}
	a := c.answers[c.n]
	c.n = (c.n + 1) % len(c.answers)
	return &http.Response{
		Status: http.StatusText(a.Status), StatusCode: a.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {a.ContentType}},
		Body:          io.NopCloser(bytes.NewReader(a.Body)),
		ContentLength: int64(len(a.Body)), Request: r,
	}, nil
}

// CannedClient captures the agent's answers (Capture) and returns an HTTP
// client that serves them with Canned.
func CannedClient(ctx context.Context) (*http.Client, error) {
	answers, err := Capture(ctx)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: NewCanned(answers)}, nil
}

// Seed is the workspace the workload starts from: log.txt and its content.
const Seed = "start\n"

// RunSeeded runs the agent against the model at baseURL through client in
// a fresh temporary directory seeded with log.txt, checks its answer and
// the file it leaves, removes the directory and returns the final text.
// It is what a go-vcr test of the agent does around the agent.
func RunSeeded(ctx context.Context, baseURL string, client *http.Client) (string, error) {
	dir, err := os.MkdirTemp("", "benchagent-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	log := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(log, []byte(Seed), 0o644); err != nil {
		return "", err
	}
	final, err := Run(ctx, Client(baseURL, option.WithHTTPClient(client)), dir)
	if err != nil {
		return "", err
	}
	got, err := os.ReadFile(log)
	if err != nil {
		return "", err
	}
	if want := len(Seed) + 10*len("line 1\n") + 1; final != "Done." || len(got) != want {
		return "", fmt.Errorf("final %q, log.txt %q", final, got)
	}
	return final, nil
}
