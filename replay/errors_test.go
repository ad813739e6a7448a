package replay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// TestTypedErrorEntries: a recorded provider error in its typed form (whose
// decoding and encoding tape's tests pin) replays as an *llm.ProviderError
// whose kind and Retry-After the loop's retry policy reads.
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
	m := NewModel(tp, nil)
	_, err = m.Generate(context.Background(), &llm.Request{})
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || !errors.Is(err, llm.ErrRateLimited) || !errors.Is(err, ErrRecordedError) || !llm.Retryable(err) || llm.RetryAfter(err) != 2*time.Second {
		t.Fatalf("replayed %v: want a retryable rate_limited ProviderError with Retry-After 2s", err)
	}
	if want := "replay: tape[0] at t.yaml:3: recorded provider error: rate_limited (HTTP 429), retry after 2s: slow down"; err.Error() != want {
		t.Errorf("error text\n got %s\nwant %s", err, want)
	}
	_, err = m.Generate(context.Background(), &llm.Request{})
	if errors.As(err, &pe) || llm.Retryable(err) {
		t.Errorf("an untyped recorded error replays as a provider error: %v", err)
	}
}

func TestRecorderRecordsErrorKinds(t *testing.T) {
	failing := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, &llm.ProviderError{Kind: llm.ErrOverloaded, Provider: "anthropic", StatusCode: 529, RetryAfter: 3 * time.Second, Message: "Overloaded"}
	})
	rec := NewRecorder(failing, nil)
	_, _ = rec.Generate(context.Background(), &llm.Request{})
	e := rec.Tape().Entries[0]
	if e.Error != "Overloaded" || e.ErrorKind != llm.ErrOverloaded || e.ErrorStatus != 529 || e.RetryAfter != 3*time.Second {
		t.Fatalf("recorded %+v", e)
	}
}
