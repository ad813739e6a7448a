package bridge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/internal/sandbox"
)

// ErrSandbox is wrapped by the error of a setup.agent.command that tried
// to reach beyond its sandbox: a connection to anything but the bridge's
// listener (another loopback port, an outside address, a DNS server), or
// a change to a file outside its workspace and home ("write /etc/x",
// "mkdir /opt/y"). The error lists each attempt with its address or
// path; the run fails with agent_error even when the command got over the
// refusal and answered.
var ErrSandbox = errors.New("the agent command reached beyond its sandbox")

// ErrNoSandbox is wrapped by the error of a setup.agent.command run with
// Options.RequireSandbox (or TAPELOOP_REQUIRE_SANDBOX=1) where its sandbox
// cannot give a guarantee: another OS, no privilege to make namespaces, a
// kernel without Landlock. The error names each missing guarantee and why.
var ErrNoSandbox = errors.New("the agent command's sandbox is required, and cannot hold here")

// RequireSandboxEnv is the environment variable that, set to 1, makes
// every setup.agent.command require its whole sandbox, as
// Options.RequireSandbox does: for CI, where go test runs the scenarios.
const RequireSandboxEnv = "TAPELOOP_REQUIRE_SANDBOX"

// openSandbox opens a command's sandbox; a test replaces it to be where
// a guarantee is missing.
var openSandbox = sandbox.Open

// sandboxLog is where a process says once what the sandbox of its
// command agents cannot hold; a test replaces it.
var sandboxLog io.Writer = os.Stderr

// noteOnce makes noteSandbox say it once a process.
var noteOnce sync.Once

// noteSandbox says, the first time a command agent runs in this process,
// which guarantees its sandbox holds and why the others do not, when one
// does not.
func noteSandbox() {
	noteOnce.Do(func() {
		if line := sandboxNote(sandbox.Probe()); line != "" {
			fmt.Fprintln(sandboxLog, line)
		}
	})
}

// sandboxNote is the line that says what st cannot hold; "" when it holds
// everything.
func sandboxNote(st sandbox.Status) string {
	if st.Held == sandbox.All {
		return ""
	}
	return "tapeloop: a command agent's sandbox is partial here (" + RequireSandboxEnv + "=1 or --require-sandbox makes that an error): " + st.String()
}

// noteSandbox adds to the run's outcome (Outcome.Sandbox) what a
// command's sandbox, holding held, did not isolate, and the processes it
// left running (left), which the sandbox killed.
func (r *Run) noteSandbox(held sandbox.Guarantee, left []string) {
	var notes []string
	if held&sandbox.Network == 0 {
		notes = append(notes, "the network is not isolated: the agent command could reach any address, and what it reached is not reported (no network namespace here; "+RequireSandboxEnv+"=1 or --require-sandbox makes this an error)")
	}
	if len(left) > 0 {
		n := fmt.Sprintf("%d processes", len(left))
		if len(left) == 1 {
			n = "1 process"
		}
		notes = append(notes, fmt.Sprintf("the agent command left %s running, killed when the run ended: %s", n, strings.Join(left, ", ")))
	}
	r.mu.Lock()
	r.sandbox = append(r.sandbox, notes...)
	r.mu.Unlock()
}
