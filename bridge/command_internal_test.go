package bridge

import "testing"

// TestCommandLimitsByDefault: outside tests, which lower them, a command's
// model server has a limit on how long a request's headers may take, and
// a command that exited has a limit on how long its output is waited for;
// zero would mean no limit at all.
func TestCommandLimitsByDefault(t *testing.T) {
	if commandReadHeaderTimeout <= 0 {
		t.Errorf("a command's model server waits %v for a request's headers, want a limit", commandReadHeaderTimeout)
	}
	if commandWaitDelay <= 0 {
		t.Errorf("a command that exited has its output waited for %v, want a limit", commandWaitDelay)
	}
}
