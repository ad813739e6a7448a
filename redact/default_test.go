package redact

import (
	"strings"
	"testing"
)

// TestDefaultFollowsEnvironment: the default policy's secrets are worked
// out again when the environment changes (a secret-named variable set or
// changed after an earlier call is redacted) and only then.
func TestDefaultFollowsEnvironment(t *testing.T) {
	Default()
	before := def.r
	const first, second = "Qm8vTz4rWx1yPa9L", "Hn3kBv7cXs2dRf6G"
	text := "final: uses " + first + " and " + second + "\n"
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", first)
	r := Default()
	if def.r == before {
		t.Fatal("Default kept the secrets of the environment before t.Setenv")
	}
	if got := r.Quiet(text); strings.Contains(got, first) || !strings.Contains(got, second) {
		t.Errorf("after setting the variable: %q, want only %q redacted", got, first)
	}
	built := def.r
	if Default(); def.r != built {
		t.Error("Default worked out the secrets again for an unchanged environment")
	}
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", second)
	if got := Default().Quiet(text); !strings.Contains(got, first) || strings.Contains(got, second) {
		t.Errorf("after changing the variable: %q, want only %q redacted", got, second)
	}
}

// TestDefaultCountsAreItsOwn: each Redactor Default returns counts what it
// redacted, not what another did.
func TestDefaultCountsAreItsOwn(t *testing.T) {
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", "Qm8vTz4rWx1yPa9L")
	a, b := Default(), Default()
	a.Redact("key Qm8vTz4rWx1yPa9L")
	if got := a.Counts()["TAPELOOP_POLICY_TEST_TOKEN"]; got != 1 {
		t.Errorf("a counted %d, want 1", got)
	}
	if got := b.Counts(); len(got) != 0 {
		t.Errorf("b counted %v, want nothing", got)
	}
}

// TestNewReadsNoEnvironment: New takes the environment only from its
// options; a secret-named variable of the process is not redacted by it.
func TestNewReadsNoEnvironment(t *testing.T) {
	t.Setenv("TAPELOOP_POLICY_TEST_TOKEN", "Qm8vTz4rWx1yPa9L")
	if got := New(nil).Quiet("key Qm8vTz4rWx1yPa9L"); got != "key Qm8vTz4rWx1yPa9L" {
		t.Errorf("New(nil) redacted a value of the process's environment: %q", got)
	}
	env := []string{"TAPELOOP_POLICY_TEST_TOKEN=Zx9cVb8nMq7wEr6t"}
	if got := New(&Options{Environ: env}).Quiet("key Zx9cVb8nMq7wEr6t, Qm8vTz4rWx1yPa9L"); got != "key "+Redacted+", Qm8vTz4rWx1yPa9L" {
		t.Errorf("New with Environ = %q", got)
	}
}
