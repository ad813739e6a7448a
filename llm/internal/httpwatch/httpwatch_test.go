package httpwatch

import (
	"net/http"
	"testing"
	"time"
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
