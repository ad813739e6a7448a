package httpwatch

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

func TestDoneDetection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   bool
	}{
		{"terminator", []string{"data: {\"a\":1}\n\ndata: [DONE]\n\n"}, true},
		{"split across reads", []string{"data: {}\n\nda", "ta: [DO", "NE]\r\n\r\n"}, true},
		{"no space", []string{"data:[DONE]\n"}, true},
		{"in content", []string{`data: {"content":"data: [DONE]"}` + "\n\n"}, false},
		{"long line first", []string{"data: " + string(make([]byte, 40)) + "[DONE]\n"}, false},
		{"missing", []string{"data: {}\n\n"}, false},
		{"last line without newline", []string{"data: [DONE]"}, false},
	} {
		x := &Exchange{}
		for _, c := range tc.chunks {
			x.scan([]byte(c))
		}
		if x.Done != tc.want {
			t.Errorf("%s: Done = %v, want %v", tc.name, x.Done, tc.want)
		}
	}
}

func TestErrorMessageAndRetryAfter(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`: "slow down (rate_limit_exceeded)",
		`{"error":"model not found"}`:                                    "model not found",
		`{"object":"error","message":"too long"}`:                        "too long",
		`{"detail":"Not Found"}`:                                         "Not Found",
		"  upstream connect error  ":                                     "upstream connect error",
	} {
		if got := ErrorMessage([]byte(body)); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", body, got, want)
		}
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := RetryAfter(http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, now); got != 1500*time.Millisecond {
		t.Errorf("retry-after-ms: %v", got)
	}
	if got := RetryAfter(http.Header{"Retry-After": {"9"}}, now); got != 9*time.Second {
		t.Errorf("Retry-After: %v", got)
	}
}

// TestTransportErrorUnreachable: a refused connection (a local port just
// closed), a TLS handshake with a certificate nobody trusts (a local TLS
// server) and a DNS failure (built, never looked up) are unreachable and
// name the URL without its query; another transport failure stays
// overloaded.
func TestTransportErrorUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1/chat/completions"
	l.Close()
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsServer.Close()
	get := func(u string) error {
		resp, err := (&http.Client{}).Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET %s succeeded", u)
		}
		return err
	}
	dns := &url.Error{Op: "Post", URL: "https://api.example.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"refused", get(closed + "?key=sk-secret"), []string{"cannot reach the server at " + closed + ": the connection failed: connection refused"}},
		{"tls", get(tlsServer.URL + "/v1"), []string{"cannot reach the server at " + tlsServer.URL + "/v1: the TLS handshake failed: ", "certificate"}},
		{"dns", dns, []string{"cannot reach the server at https://api.example.invalid/v1: the host name did not resolve: lookup api.example.invalid: no such host"}},
	} {
		pe := TransportError("openai", tc.err)
		if pe.Kind != llm.ErrUnreachable || !errors.Is(pe, tc.err) {
			t.Errorf("%s: kind %s (%v); want unreachable wrapping the cause", tc.name, pe.Kind, pe)
		}
		for _, w := range tc.want {
			if !strings.Contains(pe.Message, w) {
				t.Errorf("%s: message %q lacks %q", tc.name, pe.Message, w)
			}
		}
		if strings.Contains(pe.Error(), "sk-secret") {
			t.Errorf("%s: the query reached the message: %s", tc.name, pe)
		}
	}
	if pe := TransportError("openai", errors.New("connection reset by peer")); pe.Kind != llm.ErrOverloaded {
		t.Errorf("another transport failure: kind %s; want overloaded", pe.Kind)
	}
}
