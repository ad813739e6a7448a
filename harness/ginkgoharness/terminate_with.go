package ginkgoharness

import (
	"fmt"
	"slices"

	"github.com/onsi/gomega/types"

	"github.com/tapeloop/tapeloop/agent"
)

// TerminateWith succeeds when the actual *Outcome's run ended for reason. A
// reason that is not one of agent.Reasons is misuse.
//
//	Expect(outcome).To(ginkgoharness.TerminateWith(agent.ReasonMaxIterations))
func TerminateWith(reason agent.Reason) types.GomegaMatcher {
	return &terminateWithMatcher{want: reason}
}

type terminateWithMatcher struct {
	want agent.Reason
}

// Match compares the outcome's termination reason with the expected one.
func (m *terminateWithMatcher) Match(actual any) (bool, error) {
	o, err := outcomeOf("TerminateWith", actual)
	if err != nil {
		return false, err
	}
	if !slices.Contains(agent.Reasons, m.want) {
		return false, fmt.Errorf("TerminateWith: unknown termination reason %q (known: %v)", m.want, agent.Reasons)
	}
	return o.Termination == m.want, nil
}

// FailureMessage names both reasons and the termination's error, if any.
func (m *terminateWithMatcher) FailureMessage(actual any) string {
	o, err := outcomeOf("TerminateWith", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected scenario %s to terminate with %s, but it terminated with %s", o.Name, m.want, o.Termination)
	if o.Error != "" {
		msg += " (" + o.Error + ")"
	}
	return msg
}

// NegatedFailureMessage says the run ended for the reason it should not have.
func (m *terminateWithMatcher) NegatedFailureMessage(actual any) string {
	o, err := outcomeOf("TerminateWith", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s not to terminate with %s, but it did", o.Name, m.want)
}
