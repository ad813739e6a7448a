package fileerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
)

var errKind = errors.New("a kind of problem")

// TestErrorText: each part is left out when empty, and a line without a
// file says "line N".
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		e    fileerr.Error
		want string
	}{
		{fileerr.Error{File: "s.yaml", Line: 3, Key: "setup.tools", Problem: "bad"}, "s.yaml:3: setup.tools: bad"},
		{fileerr.Error{File: "s.yaml", Key: "tape", Problem: "missing"}, "s.yaml: tape: missing"},
		{fileerr.Error{File: "s.yaml", Problem: "empty file"}, "s.yaml: empty file"},
		{fileerr.Error{Line: 12, Key: "with.kind", Problem: "unknown"}, "line 12: with.kind: unknown"},
		{fileerr.Error{Key: "with", Problem: "invalid"}, "with: invalid"},
		{fileerr.Error{Problem: "alone"}, "alone"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// TestErrorUnwrapsToItsKind: errors.Is sees the kind, errors.As the
// fields, through wrapping.
func TestErrorUnwrapsToItsKind(t *testing.T) {
	err := fmt.Errorf("loading: %w", &fileerr.Error{File: "s.yaml", Line: 2, Key: "k", Problem: "p", Kind: errKind})
	var fe *fileerr.Error
	if !errors.Is(err, errKind) || !errors.As(err, &fe) || fe.Line != 2 || fe.Key != "k" {
		t.Errorf("%v: Is %v, As %+v", err, errors.Is(err, errKind), fe)
	}
	if (&fileerr.Error{}).Unwrap() != nil {
		t.Error("an Error with no kind unwraps to something")
	}
}

func ExampleError() {
	err := fmt.Errorf("loading: %w", &fileerr.Error{File: "notes.yaml", Line: 7, Key: "expect.final", Problem: "want a mapping"})
	var fe *fileerr.Error
	if errors.As(err, &fe) {
		fmt.Println(fe.File, fe.Line, fe.Key)
	}
	// Output: notes.yaml 7 expect.final
}
