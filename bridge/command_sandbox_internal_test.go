package bridge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestSandboxNote: a process whose sandbox holds everything says nothing;
// one whose sandbox is partial says which guarantees hold, why each other
// does not, and how to make that an error.
func TestSandboxNote(t *testing.T) {
	if got := sandboxNote(sandbox.Status{Held: sandbox.All}); got != "" {
		t.Errorf("a whole sandbox: %q, want nothing", got)
	}
	got := sandboxNote(sandbox.Status{Held: sandbox.Processes, Missing: map[sandbox.Guarantee]string{sandbox.Network: "no network namespace (EPERM)"}})
	for _, want := range []string{"holds: processes", "not network: no network namespace (EPERM)", RequireSandboxEnv + "=1", "--require-sandbox"} {
		if !strings.Contains(got, want) {
			t.Errorf("a partial sandbox: %q, want it to say %q", got, want)
		}
	}
}

// TestRequireSandbox: where the sandbox cannot hold a guarantee, a command
// that requires it fails with ErrNoSandbox naming the scenario's line, the
// guarantee and why, and is not started; one that does not require it
// runs (here it fails for want of a program, which is not ErrNoSandbox).
func TestRequireSandbox(t *testing.T) {
	t.Setenv(RequireSandboxEnv, "") // CI requires the sandbox for every test
	openSandbox = func(cfg *sandbox.Config) (*sandbox.Box, error) {
		if cfg.Require != 0 {
			return nil, fmt.Errorf("%w: network: no network namespace (EPERM)", sandbox.ErrUnavailable)
		}
		return sandbox.Open(cfg)
	}
	t.Cleanup(func() { openSandbox = sandbox.Open })
	s := &scenario.Scenario{Path: "dir/notes.yaml", Name: "notes", Setup: scenario.Setup{Agent: &scenario.AgentSetup{Command: []string{"/nonexistent/agent"}, Line: 4}}}
	r := &Run{Dir: t.TempDir()}
	err := command(s, true)(t.Context(), r)
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "notes.yaml:4: setup.agent.command") || !strings.Contains(err.Error(), "network: no network namespace") {
		t.Errorf("required: %v, want ErrNoSandbox naming notes.yaml:4 and the missing guarantee", err)
	}
	err = command(s, false)(t.Context(), r)
	if errors.Is(err, ErrNoSandbox) || !errors.Is(err, ErrCommand) {
		t.Errorf("not required: %v, want the command's own failure", err)
	}
}

// TestRunNoteSandbox: the outcome's sandbox notes say first that the
// network was not isolated, then which processes the command left
// running, in the order given, counted; a sandbox that isolated the
// network and a command that left nothing add no note.
func TestRunNoteSandbox(t *testing.T) {
	r := &Run{}
	r.noteSandbox(sandbox.Processes, []string{"node", "sh"})
	r.noteSandbox(sandbox.All, []string{"node"})
	r.noteSandbox(sandbox.All, nil)
	want := []string{
		"the network is not isolated: the agent command could reach any address, and what it reached is not reported (no network namespace here; " + RequireSandboxEnv + "=1 or --require-sandbox makes this an error)",
		"the agent command left 2 processes running, killed when the run ended: node, sh",
		"the agent command left 1 process running, killed when the run ended: node",
	}
	if !slices.Equal(r.sandbox, want) {
		t.Errorf("the sandbox notes are\n%q\nwant\n%q", r.sandbox, want)
	}
}
