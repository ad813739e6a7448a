package tape_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// TestTypedErrorEntries pins the typed form of a recorded provider error: it
// decodes to the entry's kind, status and Retry-After, and encodes back to
// the same text.
func TestTypedErrorEntries(t *testing.T) {
	const src = `format: tapeloop/v1
tape:
  - error:
      message: slow down
      kind: rate_limited
      status: 429
      retry_after: 2s
  - error: plain failure
  - response:
      content: done
`
	tp, err := tape.Decode(strings.NewReader(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := tp.Entries[0]
	if e.Error != "slow down" || e.ErrorKind != llm.ErrRateLimited || e.ErrorStatus != 429 || e.RetryAfter != 2*time.Second {
		t.Fatalf("decoded %+v", e)
	}
	if got := string(encode(t, tp)); got != src {
		t.Errorf("encoded:\n%s\nwant:\n%s", got, src)
	}
}

func TestTypedErrorDecodeErrors(t *testing.T) {
	const head = "format: tapeloop/v1\ntape:\n"
	for _, tc := range []struct{ name, src, want string }{
		{"unknown kind", head + "  - error: {message: x, kind: teapot}\n",
			`t.yaml:3: tape[0].error.kind: unknown value "teapot" (want rate_limited | overloaded | auth | bad_request | context_too_long | timeout | cancelled | malformed_response | unreachable)`},
		{"missing message", head + "  - error: {kind: overloaded}\n",
			`t.yaml:3: tape[0].error: missing required key "message"`},
		{"status without kind", head + "  - error: {message: x, status: 500}\n",
			`t.yaml:3: tape[0].error: status and retry_after need a kind (want one of rate_limited, overloaded, auth, bad_request, context_too_long, timeout, cancelled, malformed_response, unreachable)`},
		{"bad duration", head + "  - error: {message: x, kind: rate_limited, retry_after: soon}\n",
			`t.yaml:3: tape[0].error.retry_after: want a duration such as 100ms or 2s, got "soon"`},
		{"status out of range", head + "  - error: {message: x, kind: overloaded, status: 42}\n",
			`t.yaml:3: tape[0].error.status: want an integer from 100 to 599, got 42`},
		{"unknown key", head + "  - error: {message: x, kind: overloaded, code: 1}\n",
			`t.yaml:3: tape[0].error: unknown key "code" (want message, kind, status, retry_after)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tape.Decode(strings.NewReader(tc.src), "t.yaml")
			if err == nil || err.Error() != tc.want || !errors.Is(err, tape.ErrFormat) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEntryDecodeErrors: the parts of an entry that are not of their
// documented shape are refused, naming the file, line and key.
func TestEntryDecodeErrors(t *testing.T) {
	const head = "format: tapeloop/v1\ntape:\n"
	for _, tc := range []struct{ name, src, want string }{
		{"tool_calls not a sequence", head + "  - response:\n      tool_calls: read_file\n",
			`t.yaml:4: tape[0].response.tool_calls: want a sequence, got a string ("read_file")`},
		{"new not a sequence", head + "  - response: {content: hi}\n    request:\n      new: hello\n",
			`t.yaml:5: tape[0].request.new: want a sequence, got a string ("hello")`},
		{"user name not text", head + "  - user:\n      content: hi\n      name: [a]\n",
			`t.yaml:5: tape[0].user.name: want a string, got a sequence`},
		{"binary arguments not base64", head + "  - response:\n      tool_calls:\n        - name: f\n          arguments: !!binary '%%%'\n",
			`t.yaml:6: tape[0].response.tool_calls[0].arguments: invalid !!binary value: illegal base64 data at input byte 0`},
		{"arguments with a key twice", head + "  - response:\n      tool_calls:\n        - name: f\n          arguments: {path: a, path: b}\n",
			`t.yaml:6: tape[0].response.tool_calls[0].arguments: duplicate key "path"`},
		{"binary argument not base64", head + "  - response:\n      tool_calls:\n        - name: f\n          arguments: {data: !!binary '%%%'}\n",
			`t.yaml:6: tape[0].response.tool_calls[0].arguments.data: invalid !!binary value: illegal base64 data at input byte 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tape.Decode(strings.NewReader(tc.src), "t.yaml")
			if err == nil || err.Error() != tc.want || !errors.Is(err, tape.ErrFormat) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestEncodeRefusesAVerdictsInvalidRequest: a judge's verdict whose request
// holds a message of an unknown role is not written.
func TestEncodeRefusesAVerdictsInvalidRequest(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}},
		Verdicts: []tape.Verdict{{Rubric: "r", Model: "m", On: "final", Request: &tape.RequestSummary{Messages: []llm.Message{{Role: "bot"}}}}}}
	var b strings.Builder
	if err := tape.Encode(&b, tp); err == nil || !errors.Is(err, tape.ErrFormat) || !strings.Contains(err.Error(), `judge[0].request.messages[0].role: invalid role "bot"`) {
		t.Errorf("Encode = %v, want the invalid role named", err)
	}
}

// TestEncodeRefusesANegativeTokenCount: usage counts are never negative in
// a tape; one that is is not written.
func TestEncodeRefusesANegativeTokenCount(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done"), Usage: llm.Usage{InputTokens: -1}}}}}
	var b strings.Builder
	if err := tape.Encode(&b, tp); err == nil || !errors.Is(err, tape.ErrFormat) || err.Error() != "tape[0].response.usage: negative token count" {
		t.Errorf("Encode = %v, want the negative count refused", err)
	}
}
