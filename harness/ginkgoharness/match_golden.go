package ginkgoharness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/onsi/gomega/types"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/redact"
)

// MatchGolden succeeds when the canonical golden encoding of the actual
// outcome (Outcome.Golden) is byte-identical to the file at path. The actual
// value is an *Outcome, or a *Verdict whose Outcome is used (misuse when the
// verdict has none). A missing golden file is a mismatch whose message says
// so; an unreadable one is an error. The failure message is CompareGolden's:
// the first difference in context.
//
//	Expect(outcome).To(ginkgoharness.MatchGolden("testdata/retry.golden.yaml"))
func MatchGolden(path string) types.GomegaMatcher {
	return &matchGoldenMatcher{path: path}
}

type matchGoldenMatcher struct {
	path string
}

// golden returns the name of the scenario and its outcome's golden bytes.
func (m *matchGoldenMatcher) golden(actual any) (string, []byte, error) {
	var o *harness.Outcome
	switch a := actual.(type) {
	case *harness.Outcome:
		o = a
	case *harness.Verdict:
		if a == nil {
			break
		}
		if a.Outcome == nil {
			return "", nil, fmt.Errorf("MatchGolden: the verdict for %s has no outcome (the scenario did not load or run: %v)", a.Path, a.Err)
		}
		o = a.Outcome
	}
	if o == nil {
		return "", nil, fmt.Errorf("MatchGolden expects a non-nil *harness.Outcome or *harness.Verdict, got %T", actual)
	}
	got, err := o.Golden(redact.Default())
	if err != nil {
		return "", nil, fmt.Errorf("MatchGolden: encoding the outcome of scenario %s: %w", o.Name, err)
	}
	return o.Name, got, nil
}

// maxGoldenSize bounds the golden file MatchGolden reads, as harness bounds
// the goldens it compares.
const maxGoldenSize = 64 << 20

// Match reports whether the golden file holds exactly the outcome's encoding.
func (m *matchGoldenMatcher) Match(actual any) (bool, error) {
	_, got, err := m.golden(actual)
	if err != nil {
		return false, err
	}
	want, err := regularfile.Read(m.path, maxGoldenSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("MatchGolden: %w", err)
	}
	return bytes.Equal(want, got), nil
}

// FailureMessage is CompareGolden's error text.
func (m *matchGoldenMatcher) FailureMessage(actual any) string {
	_, got, err := m.golden(actual)
	if err != nil {
		return err.Error()
	}
	if err := harness.CompareGolden(m.path, got); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("the outcome matches the golden file %s", m.path)
}

// NegatedFailureMessage says the outcome is identical to the golden.
func (m *matchGoldenMatcher) NegatedFailureMessage(actual any) string {
	name, _, err := m.golden(actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected the outcome of scenario %s to differ from the golden file %s, but it is byte-identical", name, m.path)
}
