package ginkgoharness

import (
	"fmt"
	"slices"

	"github.com/onsi/gomega/types"
)

// CallToolsInOrder succeeds when the calls the model made, by tool name in the
// order it emitted them across all turns (CalledTools), are exactly names. No
// names means no calls at all. The actual value is an *Outcome with its run
// record.
//
//	Expect(outcome).To(ginkgoharness.CallToolsInOrder("write_file", "read_file"))
func CallToolsInOrder(names ...string) types.GomegaMatcher {
	if names == nil {
		names = []string{}
	}
	return &callToolsInOrderMatcher{want: names}
}

type callToolsInOrderMatcher struct {
	want []string
}

// Match compares the called tools with the expected list.
func (m *callToolsInOrderMatcher) Match(actual any) (bool, error) {
	o, _, err := runOf("CallToolsInOrder", actual)
	if err != nil {
		return false, err
	}
	return slices.Equal(o.CalledTools(), m.want), nil
}

// FailureMessage lists the expected and the actual calls.
func (m *callToolsInOrderMatcher) FailureMessage(actual any) string {
	o, _, err := runOf("CallToolsInOrder", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s to call the tools %s in this order, but it called %s", o.Name, list(m.want), list(o.CalledTools()))
}

// NegatedFailureMessage lists the calls it should not have made.
func (m *callToolsInOrderMatcher) NegatedFailureMessage(actual any) string {
	o, _, err := runOf("CallToolsInOrder", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s not to call the tools %s in this order, but it did", o.Name, list(m.want))
}
