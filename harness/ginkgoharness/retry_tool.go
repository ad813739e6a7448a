package ginkgoharness

import (
	"fmt"
	"slices"

	"github.com/onsi/gomega/types"
)

// RetryTool succeeds when the calls of the named tool were retried n times in
// all (attempts after the first, summed over its calls, as Retries counts
// them). n = 0 holds for a tool never called. A negative n is misuse.
//
//	Expect(outcome).To(ginkgoharness.RetryTool("fetch_weather", 2))
func RetryTool(name string, n int) types.GomegaMatcher {
	return &retryToolMatcher{name: name, want: n}
}

type retryToolMatcher struct {
	name string
	want int
}

// Match compares the tool's retry count with the expected one.
func (m *retryToolMatcher) Match(actual any) (bool, error) {
	o, _, err := runOf("RetryTool", actual)
	if err != nil {
		return false, err
	}
	if m.want < 0 {
		return false, fmt.Errorf("RetryTool: the retry count for %s is %d; it must be at least 0", m.name, m.want)
	}
	return o.Retries()[m.name] == m.want, nil
}

// FailureMessage gives both counts, or says the tool was never called.
func (m *retryToolMatcher) FailureMessage(actual any) string {
	o, _, err := runOf("RetryTool", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected scenario %s to retry %s %s, but ", o.Name, m.name, times(m.want))
	if !slices.Contains(o.CalledTools(), m.name) {
		return msg + fmt.Sprintf("it never called %s (it called %s)", m.name, list(o.CalledTools()))
	}
	return msg + fmt.Sprintf("it retried it %s", times(o.Retries()[m.name]))
}

// NegatedFailureMessage says the count is the one it should not be.
func (m *retryToolMatcher) NegatedFailureMessage(actual any) string {
	o, _, err := runOf("RetryTool", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s not to retry %s %s, but it did", o.Name, m.name, times(m.want))
}
