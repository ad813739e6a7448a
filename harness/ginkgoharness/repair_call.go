package ginkgoharness

import (
	"fmt"
	"slices"

	"github.com/onsi/gomega/types"
)

// RepairCall succeeds when the call with the given id or position (CallAt) had its arguments
// repaired with exactly fixes, in order (the repair cascade's fix names, such
// as "trailing_comma"). No fixes means the call needed no repair. A call id
// the run does not have is a mismatch whose message lists the ids it has.
//
//	Expect(outcome).To(ginkgoharness.RepairCall("call_1", "trailing_comma"))
func RepairCall(id string, fixes ...string) types.GomegaMatcher {
	if fixes == nil {
		fixes = []string{}
	}
	return &repairCallMatcher{id: id, want: fixes}
}

type repairCallMatcher struct {
	id   string
	want []string
}

// Match compares the call's repairs with the expected fixes.
func (m *repairCallMatcher) Match(actual any) (bool, error) {
	o, _, err := runOf("RepairCall", actual)
	if err != nil {
		return false, err
	}
	c, _ := o.FindCall(m.id)
	return c != nil && slices.Equal(c.Repairs, m.want), nil
}

// FailureMessage gives the fixes applied, or says there is no such call.
func (m *repairCallMatcher) FailureMessage(actual any) string {
	o, _, err := runOf("RepairCall", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected call %s of scenario %s to be repaired with %s, but ", m.id, o.Name, list(m.want))
	c, problem := o.FindCall(m.id)
	if c == nil {
		return msg + problem
	}
	return msg + fmt.Sprintf("it was repaired with %s", list(c.Repairs))
}

// NegatedFailureMessage names the fixes that should not have been applied.
func (m *repairCallMatcher) NegatedFailureMessage(actual any) string {
	o, _, err := runOf("RepairCall", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected call %s of scenario %s not to be repaired with %s, but it was", m.id, o.Name, list(m.want))
}
