package bridge

import "errors"

// ErrSandbox is wrapped by the error of a setup.agent.command that tried
// to reach beyond its sandbox: a connection to anything but the bridge's
// listener (another loopback port, an outside address, a DNS server).
// The error lists each attempt with its address; the run fails with
// agent_error even when the command got over the refusal and answered.
var ErrSandbox = errors.New("the agent command reached beyond its sandbox")
