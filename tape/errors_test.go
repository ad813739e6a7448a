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
