package ginkgoharness

import (
	"fmt"

	"github.com/onsi/gomega/types"

	"github.com/tapeloop/tapeloop/tools"
)

// FailCallWith succeeds when the final result of the call with the given id
// or position (CallAt) (after any retries) is a failure of that kind. A success, another kind or a
// call id the run does not have is a mismatch whose message quotes the result
// the model read. A kind that is not valid is misuse.
//
//	Expect(outcome).To(ginkgoharness.FailCallWith("call_3", tools.KindValidation))
func FailCallWith(id string, kind tools.FailureKind) types.GomegaMatcher {
	return &failCallWithMatcher{id: id, want: kind}
}

type failCallWithMatcher struct {
	id   string
	want tools.FailureKind
}

// Match checks the call's final result.
func (m *failCallWithMatcher) Match(actual any) (bool, error) {
	o, _, err := runOf("FailCallWith", actual)
	if err != nil {
		return false, err
	}
	if !m.want.Valid() {
		return false, fmt.Errorf("FailCallWith: unknown failure kind %q", m.want)
	}
	c, _ := o.FindCall(m.id)
	return c != nil && c.Result.Failed() && c.Result.Kind() == m.want, nil
}

// FailureMessage says what the call's result was instead.
func (m *failCallWithMatcher) FailureMessage(actual any) string {
	o, _, err := runOf("FailCallWith", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected call %s of scenario %s to fail with %s, but ", m.id, o.Name, m.want)
	c, problem := o.FindCall(m.id)
	switch {
	case c == nil:
		return msg + problem
	case c.Result == nil:
		return msg + "it has no result"
	case !c.Result.Failed():
		return msg + fmt.Sprintf("it succeeded: %q", clip(c.Result.Content))
	default:
		return msg + fmt.Sprintf("it failed with %s: %q", c.Result.Kind(), clip(c.Result.Content))
	}
}

// NegatedFailureMessage quotes the failure that should not have happened.
func (m *failCallWithMatcher) NegatedFailureMessage(actual any) string {
	o, _, err := runOf("FailCallWith", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected call %s of scenario %s not to fail with %s, but it did", m.id, o.Name, m.want)
	if c, _ := o.FindCall(m.id); c != nil && c.Result != nil {
		msg += fmt.Sprintf(": %q", clip(c.Result.Content))
	}
	return msg
}
