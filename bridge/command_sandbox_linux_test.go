//go:build linux

package bridge_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/scenario"
)

// needSandbox skips the test unless this process's sandbox holds g,
// saying why it does not.
func needSandbox(t *testing.T, g sandbox.Guarantee) {
	t.Helper()
	if st := sandbox.Probe(); st.Held&g != g {
		t.Skipf("the sandbox here cannot hold %s: %s", g, st)
	}
}

// conns takes n connections from h: the processes holding them are alive.
func takeConns(t *testing.T, h *holders, n int, exited <-chan error) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for len(cs) < n {
		select {
		case c := <-h.conns:
			cs = append(cs, c)
		case err := <-exited:
			t.Fatalf("the run ended before %d processes had connected (%d had): %v", n, len(cs), err)
		case <-time.After(time.Minute):
			t.Fatalf("%d of %d processes connected within a minute", len(cs), n)
		}
	}
	return cs
}

// TestCommandSetsidHelperEnds: a helper the command starts in a session
// of its own (as setsid, launchers and dev servers do), out of its
// process group, still dies when the run ends: the command is the first
// process of a PID namespace, and when it exits the kernel kills every
// process in it. The command itself exits at once with its answer.
func TestCommandSetsidHelperEnds(t *testing.T) {
	needSandbox(t, sandbox.Processes)
	runSetsid(t, "a setsid helper of a finished run")
}

// runSetsid runs a command that starts a helper in a session of its own
// and answers at once; it checks the answer and that the helper's two
// connections end with the run (what names the case in failures). It
// returns the outcome and the scenario run.
func runSetsid(t *testing.T, what string) (*harness.Outcome, *scenario.Scenario) {
	t.Helper()
	h := newHolders(t)
	s := modeScenario(t, "60s", "setsid", h.addr())
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "answer" {
		t.Errorf("the run ended with %s, final %q, error %q; want final_text \"answer\"", o.Termination, o.Final, o.Error)
	}
	for _, c := range takeConns(t, h, 2, nil) {
		connEnds(t, c, what)
	}
	return o, s
}

// TestCommandDiesWithTapeloop: when tapeloop's process is killed with
// SIGKILL (no chance to clean up), its command agent and the agent's
// setsid helper die too, as soon as the kernel delivers the parent-death
// signal: here the test binary, run as such a process, is killed while
// its agent blocks.
func TestCommandDiesWithTapeloop(t *testing.T) {
	needSandbox(t, sandbox.Processes)
	h := newHolders(t)
	s := modeScenario(t, "600s", "setsid", h.addr(), "block")
	parent := exec.Command(os.Args[0], "-test.run=^$")
	// Killed, it cannot remove its scratch directories: they go in one
	// the test removes.
	parent.Env = append(os.Environ(), parentEnv+"="+s.Path, "TMPDIR="+t.TempDir())
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- parent.Wait() }()
	cs := takeConns(t, h, 2, exited)
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	for _, c := range cs {
		connEnds(t, c, "a process of a killed tapeloop")
	}
}

// TestCommandNetworkRefused: in its network namespace a command reaches
// the bridge and nothing else. A dial to another loopback port, one to an
// outside address and a DNS lookup each fail at once (the command checks
// that each dial was refused rather than left to time out), and the run
// fails all the same, its error naming each address: a command that got
// over the refusals cannot pass.
func TestCommandNetworkRefused(t *testing.T) {
	needSandbox(t, sandbox.Network)
	s := modeScenario(t, "60s", "reach", "127.0.0.1:1", "192.0.2.1:443", "api.example.com")
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "agent_error" {
		t.Fatalf("the run ended with %s, final %q, error %q; want agent_error", o.Termination, o.Final, o.Error)
	}
	for _, want := range []string{
		"reached beyond its sandbox: ",
		"connect tcp 127.0.0.1:1",
		"connect tcp 192.0.2.1:443",
		"DNS lookup of api.example.com",
	} {
		if !strings.Contains(o.Error, want) {
			t.Errorf("the run's error is\n%s\nwant it to say %q", o.Error, want)
		}
	}
	if strings.Contains(o.Error, "; and ") {
		t.Errorf("the command itself failed (a dial not refused at once, or a lookup that worked):\n%s", o.Error)
	}
}

// TestCommandWorkspaceIsFixed: an agent that tells the model its working
// and home directories, as coding agents do, replays: it sees them at
// /tapeloop/work and /tapeloop/home on every run (each run's workspace is
// a new directory), so the requests of two replays match the recording
// byte for byte.
func TestCommandWorkspaceIsFixed(t *testing.T) {
	needSandbox(t, sandbox.Workspace)
	text := strings.Replace(commandText(buildCommandAgent(t), "notes", "60s"),
		`NOTES_SYSTEM: "You keep notes in files."`, `NOTES_SYSTEM: "You keep notes in {cwd}; your home is {home}."`, 1)
	path := writeScenario(t, text)
	recordCommand(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "You keep notes in " + sandbox.WorkDir + "; your home is " + sandbox.HomeDir + "."; !strings.Contains(string(b), want) {
		t.Fatalf("the recording does not hold the system prompt %q:\n%s", want, b)
	}
	for i, update := range []bool{true, false} {
		if v := verify(t, path, bridge.Command(load(t, path)), update); !v.Passed() {
			t.Fatalf("replay %d fails:\n%s", i+1, fmt.Sprint(v.Failure()))
		}
	}
}

// TestCommandGetsPathsAtItsWorkspace: in a full sandbox the command sees
// its workspace at sandbox.WorkDir, the path the model knows it by, so an
// answer naming a file there reaches the command as it is and the tool
// call writes that file of the run's workspace.
func TestCommandGetsPathsAtItsWorkspace(t *testing.T) {
	needSandbox(t, sandbox.Workspace)
	s := load(t, writeScenario(t, commandText(buildCommandAgent(t), "notes", "60s")))
	model := script(
		call("call_1", "write_file", `{"path":"`+sandbox.WorkDir+`/notes.txt","content":"hello\nworld\n"}`),
		text("Done: notes.txt now says hello and world."))
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	var notes string
	for _, f := range o.Workspace {
		if f.Path == "notes.txt" {
			notes = f.Content
		}
	}
	if o.Termination != "final_text" || notes != "hello\nworld\n" {
		t.Errorf("a write to %s/notes.txt: the run ended with %s (%s), notes.txt holds %q; want it written", sandbox.WorkDir, o.Termination, o.Error, notes)
	}
}

// TestCommandWritesOutsideRefused: a command writes its workspace and its
// home, and a write anywhere else is refused (Landlock): the file is not
// made, the command sees a permission error, and the run fails all the
// same, naming the path, as a connection beyond the sandbox does: a
// command that got over the refusal cannot pass.
func TestCommandWritesOutsideRefused(t *testing.T) {
	needSandbox(t, sandbox.Files)
	outside := filepath.Join(t.TempDir(), "escape.txt")
	s := modeScenario(t, "60s", "write", outside)
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "agent_error" || !strings.Contains(o.Error, "reached beyond its sandbox: write "+outside) {
		t.Errorf("the run ended with %s, final %q, error %q; want agent_error naming the write to %s", o.Termination, o.Final, o.Error, outside)
	}
	if _, err := os.Stat(outside); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write outside the workspace reached the disk: %v", err)
	}
	var inside *harness.FileState
	for i, f := range o.Workspace {
		if f.Path == "inside.txt" {
			inside = &o.Workspace[i]
		}
	}
	if inside == nil || inside.Content != "x" {
		t.Errorf("the workspace holds inside.txt as %+v, want \"x\"", inside)
	}
}

// withoutNamespaces makes the command sandboxes of test t take the
// fallback of a machine without namespaces (sandbox.Config.Without).
func withoutNamespaces(t *testing.T) {
	t.Helper()
	t.Setenv(bridge.RequireSandboxEnv, "") // CI requires the sandbox for every test
	*bridge.OpenSandbox = func(cfg *sandbox.Config) (*sandbox.Box, error) {
		cfg.Without = sandbox.All
		return sandbox.Open(cfg)
	}
	t.Cleanup(func() { *bridge.OpenSandbox = sandbox.Open })
}

// TestCommandSetsidHelperEndsWithoutNamespaces: where no namespace can be
// made, a helper the command starts in a session of its own still dies
// when the run ends (tapeloop is a child subreaper for the command's
// life, and kills and reaps what it left), the outcome names it and says
// that the network was not isolated, and a run that requires the sandbox
// fails instead of running.
func TestCommandSetsidHelperEndsWithoutNamespaces(t *testing.T) {
	withoutNamespaces(t)
	o, s := runSetsid(t, "a setsid helper of a finished run without namespaces")
	notes := strings.Join(o.Sandbox, "\n")
	for _, want := range []string{"the network is not isolated", "left 1 process running, killed when the run ended: cmdagent"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the outcome's sandbox notes are\n%s\nwant them to say %q", notes, want)
		}
	}
	o, err := bridge.Runner(nil, &bridge.Options{RequireSandbox: true})(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Error, "sandbox is required, and cannot hold here") {
		t.Errorf("required: the run ended with %s, error %q; want the sandbox required and missing", o.Termination, o.Error)
	}
}

// TestCommandRequireSandbox: where the sandbox holds every guarantee, a
// command that requires it (Options.RequireSandbox, evalrun's
// --require-sandbox) runs and answers.
func TestCommandRequireSandbox(t *testing.T) {
	needSandbox(t, sandbox.All)
	t.Setenv(bridge.RequireSandboxEnv, "") // the option alone requires it here
	s := modeScenario(t, "60s", "print", "6")
	o, err := bridge.Runner(nil, &bridge.Options{RequireSandbox: true})(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "xxxxxx" {
		t.Errorf("required: the run ended with %s, final %q, error %q; want final_text \"xxxxxx\"", o.Termination, o.Final, o.Error)
	}
}

// unprivilegedTests are the tests of a command's sandbox that
// TestCommandSandboxUnprivileged runs again as an unprivileged user.
var unprivilegedTests = []string{
	"TestCommandSetsidHelperEnds",
	"TestCommandDiesWithTapeloop",
	"TestCommandNetworkRefused",
	"TestCommandWorkspaceIsFixed",
	"TestCommandWritesOutsideRefused",
	"TestCommandRequireSandbox",
}

// TestCommandSandboxUnprivileged: without root, a command agent gets the
// whole sandbox where the kernel allows unprivileged user namespaces (a
// stage makes its network and mount namespaces in one): it reaches the
// bridge and nothing else, a dial and a lookup elsewhere are refused and
// fail the run, it works at /tapeloop/work, a write outside is refused and
// fails the run, its setsid helpers die with it and with tapeloop, and
// requiring the sandbox passes. Run as root (as CI is), this runs those
// tests again in this test binary as nobody (uid 65534), with the sandbox
// required, and each must pass, not skip; where the kernel refuses the
// user namespace, it skips, saying so.
func TestCommandSandboxUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests of the sandbox above take the unprivileged path themselves")
	}
	const nobody = 65534
	// Everything nobody needs, in a directory nobody can reach: this
	// binary, the test agent, and a TMPDIR of its own.
	dir, err := os.MkdirTemp("", "tapeloop-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, agent, tmp := filepath.Join(dir, "bridge.test"), filepath.Join(dir, "cmdagent"), filepath.Join(dir, "tmp")
	linkOrCopy(t, self, bin)
	linkOrCopy(t, buildCommandAgent(t), agent)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^("+strings.Join(unprivilegedTests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, bridge.RequireSandboxEnv+"=1", cmdAgentEnv+"="+agent)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	b, err := cmd.CombinedOutput()
	out := string(b)
	var skipped []string
	for _, name := range unprivilegedTests {
		switch {
		case strings.Contains(out, "--- PASS: "+name+" "):
		case strings.Contains(out, "--- SKIP: "+name+" "):
			skipped = append(skipped, name)
		default:
			t.Errorf("%s did not pass as uid %d", name, nobody)
		}
	}
	if err != nil || t.Failed() {
		t.Fatalf("the tests as uid %d: %v\n%s", nobody, err, out)
	}
	if len(skipped) > 0 {
		// needSandbox says why: the probe's reasons.
		if !strings.Contains(out, "unprivileged user namespace") {
			t.Fatalf("%s skipped as uid %d, not for want of an unprivileged user namespace:\n%s", skipped, nobody, out)
		}
		t.Skipf("the kernel refuses an unprivileged user namespace, or what the sandbox needs in one, here (%s skipped as uid %d):\n%s", skipped, nobody, out)
	}
}

// linkOrCopy makes to the file from, executable by anyone: a hard link,
// or a copy where none can be made.
func linkOrCopy(t *testing.T, from, to string) {
	t.Helper()
	if os.Link(from, to) == nil {
		if fi, err := os.Stat(to); err == nil && fi.Mode().Perm()&0o005 == 0o005 {
			return
		}
		os.Remove(to)
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCommandWorksInItsWorkspaceWithoutNamespaces: where no namespace can
// be made (no fixed root to start in), the command still starts in the
// run's workspace: a file of setup.workspace is there by its relative
// name, and the directory it prints is the run's.
func TestCommandWorksInItsWorkspaceWithoutNamespaces(t *testing.T) {
	withoutNamespaces(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the command with")
	}
	text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [" + sh + `, -c, "cat notes.txt; pwd -P"]` + "\n    timeout: 60s\n" +
		"  workspace:\n    files:\n      notes.txt: \"hello from the workspace\\n\"\n" +
		"input: [{role: user, content: hi}]\ntape: []\n"
	s := load(t, writeScenario(t, text))
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("the run ended with %s, error %q; want final_text", o.Termination, o.Error)
	}
	text, dir, _ := strings.Cut(o.Final, "\n")
	if text != "hello from the workspace" {
		t.Errorf("the command read notes.txt as %q, want the workspace's file", text)
	}
	if !strings.HasPrefix(filepath.Base(dir), "tapeloop-bridge-") {
		t.Errorf("the command ran in %s, want the run's workspace (a tapeloop-bridge- directory)", dir)
	}
}
