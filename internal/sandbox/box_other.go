//go:build !linux

package sandbox

import (
	"net"
	"os/exec"
)

// Box is one run's sandbox. Off Linux it holds no guarantee: the command
// runs as an ordinary child with the network of tapeloop (on Unix in a process group of its own, killed
// with the run).
type Box struct {
	cfg  Config
	cmds []*exec.Cmd
}

// Probe returns what a Box guarantees in this process: off Linux, nothing.
func Probe() Status {
	return Status{Missing: map[Guarantee]string{
		Processes: "no PID namespace off Linux; only the command's process group ends with the run",
		Network:   "no network namespace off Linux; the command can reach the network",
		Workspace: "no mount namespace off Linux; the workspace is a new directory on every run",
		Files:     "no Landlock off Linux; the command can write outside its workspace",
	}}
}

// Open makes the sandbox of one run. It fails, wrapping ErrUnavailable,
// when cfg.Require asks for any guarantee. End ends it.
func Open(cfg *Config) (*Box, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := Probe().check(cfg.Require); err != nil {
		return nil, err
	}
	return &Box{cfg: *cfg}, nil
}

// Dir is the path the command sees its workspace at: Config.Workspace.
func (b *Box) Dir() string { return b.cfg.Workspace }

// Home is the path the command sees its scratch home at: Config.Home.
func (b *Box) Home() string { return b.cfg.Home }

// Holds returns the guarantees this Box gives: none.
func (b *Box) Holds() Guarantee { return 0 }

// Listen returns a TCP listener on a free loopback port.
func (b *Box) Listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// Start starts cmd (on Unix in a process group of its own, which
// cancelling cmd kills).
func (b *Box) Start(cmd *exec.Cmd) error {
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	b.cmds = append(b.cmds, cmd)
	return nil
}

// End kills what is left of each command's process group and returns an
// empty Report (nothing is watched); a second call does nothing.
func (b *Box) End() Report {
	for _, cmd := range b.cmds {
		endGroup(cmd)
	}
	b.cmds = nil
	return Report{}
}
