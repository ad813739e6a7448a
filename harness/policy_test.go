package harness

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/replay"
)

// TestPolicyRedactorFollowsEnvironment checks the cached policy Redactor is
// rebuilt when the environment changes: a secret-named variable set (or
// changed) after an earlier call is redacted from a golden.
func TestPolicyRedactorFollowsEnvironment(t *testing.T) {
	before := policyRedactor()
	const first, second = "Qm8vTz4rWx1yPa9L", "Hn3kBv7cXs2dRf6G"
	golden := []byte("final: uses " + first + " and " + second + "\n")
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", first)
	r := policyRedactor()
	if r == before {
		t.Fatal("policyRedactor returned the Redactor of the environment before t.Setenv")
	}
	if got := string(redactGolden(golden, r)); strings.Contains(got, first) || !strings.Contains(got, second) {
		t.Errorf("after setting the variable: %q, want only %q redacted", got, first)
	}
	if policyRedactor() != r {
		t.Error("policyRedactor built a new Redactor for an unchanged environment")
	}
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", second)
	if got := string(redactGolden(golden, policyRedactor())); !strings.Contains(got, first) || strings.Contains(got, second) {
		t.Errorf("after changing the variable: %q, want only %q redacted", got, second)
	}
	if !strings.Contains(string(redactGolden(golden, policyRedactor())), replay.Redacted) {
		t.Error("nothing redacted")
	}
}
