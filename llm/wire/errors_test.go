package wire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestErrorBodyTypes: an error answer's body names the failure as the
// vendor's error reference does, by status, or by kind where the status
// does not say it. Messages: 400 invalid_request_error, 401
// authentication_error, 403 permission_error, 404 not_found_error, 413
// request_too_large, 429 rate_limit_error, 500 api_error, 529
// overloaded_error (and a timeout timeout_error). Chat Completions: the
// type (rate_limit_exceeded, invalid_authentication, server_error,
// invalid_request_error) and, for a context too long, the code
// context_length_exceeded. With no message, the status's text says it.
func TestErrorBodyTypes(t *testing.T) {
	anthropic := []struct {
		e        wire.Error
		typ, msg string
	}{
		{wire.Error{Status: 400}, "invalid_request_error", "Bad Request"},
		{wire.Error{Status: 401}, "authentication_error", "Unauthorized"},
		{wire.Error{Status: 403}, "permission_error", "Forbidden"},
		{wire.Error{Status: 404}, "not_found_error", "Not Found"},
		{wire.Error{Status: 413}, "request_too_large", "Request Entity Too Large"},
		{wire.Error{Status: 429}, "rate_limit_error", "Too Many Requests"},
		{wire.Error{Status: 503, Kind: llm.ErrRateLimited, Message: "Slow down."}, "rate_limit_error", "Slow down."},
		{wire.Error{Status: 500}, "api_error", "Internal Server Error"},
		{wire.Error{Status: 500, Kind: llm.ErrOverloaded, Message: "Busy."}, "api_error", "Busy."},
		{wire.Error{Status: 503}, "overloaded_error", "Service Unavailable"},
		{wire.Error{Status: 529}, "overloaded_error", "error 529"},
		{wire.Error{Kind: llm.ErrOverloaded}, "overloaded_error", "error 529"},
		// An overloaded failure a gateway answered below 500.
		{wire.Error{Status: 499, Kind: llm.ErrOverloaded, Message: "Busy."}, "overloaded_error", "Busy."},
		{wire.Error{Status: 408}, "timeout_error", "Request Timeout"},
		{wire.Error{Status: 504, Kind: llm.ErrTimeout, Message: "Too slow."}, "timeout_error", "Too slow."},
		{wire.Error{Kind: llm.ErrContextTooLong, Message: "Reduce the input."}, "invalid_request_error", "prompt is too long: Reduce the input."},
	}
	for _, tc := range anthropic {
		var body struct {
			Type  string
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(tc.e.Body(wire.Anthropic), &body); err != nil {
			t.Fatal(err)
		}
		if body.Type != "error" || body.Error.Type != tc.typ || body.Error.Message != tc.msg {
			t.Errorf("messages %+v: body %+v, want type %s, message %q", tc.e, body, tc.typ, tc.msg)
		}
	}

	openai := []struct {
		e              wire.Error
		typ, code, msg string
	}{
		{wire.Error{Status: 429}, "rate_limit_exceeded", "", "Too Many Requests"},
		{wire.Error{Status: 503, Kind: llm.ErrRateLimited, Message: "Slow down."}, "rate_limit_exceeded", "", "Slow down."},
		{wire.Error{Status: 401}, "invalid_authentication", "", "Unauthorized"},
		{wire.Error{Status: 500}, "server_error", "", "Internal Server Error"},
		{wire.Error{Status: 503}, "server_error", "", "Service Unavailable"},
		{wire.Error{Status: 400}, "invalid_request_error", "", "Bad Request"},
		// A context too long by its status and message, or by its kind.
		{wire.Error{Status: 400, Message: "prompt is too long: 300000 tokens"}, "invalid_request_error", "context_length_exceeded", "prompt is too long: 300000 tokens"},
		{wire.Error{Kind: llm.ErrContextTooLong, Message: "Reduce the input."}, "invalid_request_error", "context_length_exceeded", "This model's maximum context length was exceeded: Reduce the input."},
	}
	for _, tc := range openai {
		for _, f := range []wire.Format{wire.OpenAI, nil} {
			var body struct {
				Error struct {
					Type, Message string
					Code          *string
				}
			}
			if err := json.Unmarshal(tc.e.Body(f), &body); err != nil {
				t.Fatal(err)
			}
			code := ""
			if body.Error.Code != nil {
				code = *body.Error.Code
			}
			if body.Error.Type != tc.typ || code != tc.code || body.Error.Message != tc.msg {
				t.Errorf("%v %+v: body %+v (code %q), want type %s, code %q, message %q", f, tc.e, body, code, tc.typ, tc.code, tc.msg)
			}
		}
	}
}

// TestErrorHeader: an error answer carries Retry-After only when the
// error says when to retry.
func TestErrorHeader(t *testing.T) {
	for retry, want := range map[time.Duration]string{0: "", 1500 * time.Millisecond: "1.5", 2 * time.Second: "2"} {
		h := (&wire.Error{Status: 429, RetryAfter: retry}).Header()
		if got, ok := h["Retry-After"]; (want == "") == ok || (ok && got[0] != want) {
			t.Errorf("retry after %v: Retry-After %q, want %q", retry, got, want)
		}
		if h.Get("Content-Type") != wire.ContentJSON {
			t.Errorf("retry after %v: content type %q", retry, h.Get("Content-Type"))
		}
	}
}
