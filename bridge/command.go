package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/scenario"
)

// MaxCommandOutput is the most a setup.agent.command may print on stdout,
// its final answer; more fails the run.
const MaxCommandOutput = 1 << 20

// commandStderrTail is how much of the end of a failing command's stderr
// its error quotes.
const commandStderrTail = 2 << 10

// ErrCommand is wrapped by the error of a setup.agent.command that could
// not start, exited with a non-zero status, printed too much or did not
// finish within its timeout. One whose program could not be started (not
// found, not executable) also wraps harness.ErrAgentNotStarted and the
// start's own error (exec.ErrNotFound, an *fs.PathError).
var ErrCommand = errors.New("the agent command failed")

// commandReadHeaderTimeout is how long the model server of a
// setup.agent.command waits for a request's headers before it drops the
// connection, so a client that stalls cannot hold it open; a test lowers it.
var commandReadHeaderTimeout = 10 * time.Second

// commandWaitDelay is how long a command that exited is waited for while a
// process it started still holds its stdout or stderr open; then the run
// fails rather than waiting for that process to end. A test lowers it.
var commandWaitDelay = 5 * time.Second

// CommandInput is what a setup.agent.command reads on its standard input:
// one JSON object, {"scenario": NAME, "messages": [{"role": ROLE,
// "content": TEXT}, ...]}, the scenario's input messages in order, on one
// line. In a conversation (the tape holds user turns after the first, or
// the user is simulated) it also holds "conversation": true, and stdin
// stays open: the command prints each answer as a line {"final": TEXT}
// (CommandAnswer) and reads the user's next message as a line
// {"role": "user", "content": TEXT} (CommandMessage), until stdin ends:
// the conversation is over and the command exits. Otherwise stdin ends
// after the object and stdout, whole, is the final answer.
type CommandInput struct {
	// Scenario is the scenario's name.
	Scenario string `json:"scenario"`
	// Messages are the scenario's input messages.
	Messages []CommandMessage `json:"messages"`
	// Conversation is true when the user may speak again after an answer;
	// false (left out) means one answer on stdout.
	Conversation bool `json:"conversation,omitempty"`
}

// CommandMessage is one input message as a command reads it.
type CommandMessage struct {
	// Role is system, user or assistant.
	Role string `json:"role"`
	// Content is the message's text.
	Content string `json:"content"`
}

// Command returns the Agent that runs s's setup.agent.command, a program
// in any language. It serves the run's model endpoint on a loopback port
// (127.0.0.1, a free one, both wire formats) and starts the command in the
// workspace directory with OPENAI_BASE_URL (ending in /v1) and
// ANTHROPIC_BASE_URL pointing at it, from an allowlisted environment:
// PATH, locale (LANG, LANGUAGE, LC_*), TZ and TERM from tapeloop's own,
// HOME and TMPDIR scratch directories removed after the run, every
// provider credential variable an SDK reads (OPENAI_API_KEY,
// ANTHROPIC_AUTH_TOKEN, GEMINI_API_KEY, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN,
// ...) set to a dummy key, so a real key never reaches the agent, the
// variables setup.agent.pass_env names passed as they are, those of
// setup.agent.pass_credentials instead of their dummies, and
// setup.agent.env added. It writes a CommandInput to the
// command's stdin and takes everything the command prints on stdout, less
// one trailing newline, as the final answer; in a conversation it reads
// each answer as a line and writes each user message back (see
// CommandInput). In the command, its arguments
// and env values, $SCENARIO_DIR stands for the directory of the scenario
// file, so a script beside the scenario is [node, $SCENARIO_DIR/agent.js].
//
// The command runs in a sandbox (package internal/sandbox): on Linux with
// the privilege, the first process of a PID namespace of its own, so that
// everything it starts dies with it, killed when tapeloop's process dies,
// and in a network namespace whose loopback holds the model endpoint and
// nothing else; a connection it attempts anywhere else is refused and
// fails the run (ErrSandbox), naming the address. Its workspace and home
// are then at /tapeloop/work and /tapeloop/home, the same on every run,
// and where the kernel has Landlock a write anywhere else is refused and
// fails the run (ErrSandbox), naming the path.
// On Linux without that privilege, all of that holds where the kernel
// allows an unprivileged user namespace: the namespaces are made in one of
// the command's own, by a stage (tapeloop's executable run again), and the
// endpoint is at 127.0.0.1:7357 (sandbox.StagePort) there; else tapeloop
// is a child subreaper while the command runs and kills what it left when
// it ends, setsid helpers included; the outcome names them and says that the network was not
// isolated (Outcome.Sandbox). Elsewhere it runs in a process group of its
// own, killed after the run.
// A command that does not finish within setup.agent.timeout (default
// scenario.DefaultAgentTimeout) is killed with what it started; that,
// a non-zero exit status and a failure to start are errors (wrapping
// ErrCommand) naming the scenario file and the line of setup.agent, with
// the end of the command's stderr, the workspace directory written $WORK.
func Command(s *scenario.Scenario) Agent { return command(s, false) }

// command is Command, requiring every guarantee of the sandbox when
// require is set.
func command(s *scenario.Scenario, require bool) Agent {
	return func(ctx context.Context, r *Run) error {
		a := s.Setup.Agent
		if a == nil || len(a.Command) == 0 {
			return fmt.Errorf("%s: %w: the scenario has no setup.agent.command", s.Path, ErrCommand)
		}
		where := fmt.Sprintf("%s:%d: setup.agent.command", filepath.Base(s.Path), a.Line)
		return runCommand(ctx, s, r, where, require)
	}
}

func runCommand(ctx context.Context, s *scenario.Scenario, r *Run, where string, require bool) error {
	a := s.Setup.Agent
	home, err := os.MkdirTemp("", "tapeloop-home-")
	if err != nil {
		return fmt.Errorf("%s: %w: no scratch home for the command: %v", where, ErrCommand, err)
	}
	defer os.RemoveAll(home)
	if err := os.Mkdir(filepath.Join(home, "tmp"), 0o700); err != nil {
		return fmt.Errorf("%s: %w: no scratch TMPDIR for the command: %v", where, ErrCommand, err)
	}
	cfg := &sandbox.Config{Workspace: r.Dir, Home: home}
	if require || os.Getenv(RequireSandboxEnv) == "1" {
		cfg.Require = sandbox.All
	}
	box, err := openSandbox(cfg)
	if errors.Is(err, sandbox.ErrUnavailable) {
		return fmt.Errorf("%s: %w: %v", where, ErrNoSandbox, err)
	} else if err != nil {
		return fmt.Errorf("%s: %w: the sandbox: %v", where, ErrCommand, err)
	}
	noteSandbox()
	defer box.End()
	ln, err := box.Listen()
	if err != nil {
		return fmt.Errorf("%s: %w: no loopback port to serve the model on: %v", where, ErrCommand, err)
	}
	srv := &http.Server{Handler: r.Handler, ReadHeaderTimeout: commandReadHeaderTimeout}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close(); <-served }()
	base := "http://" + ln.Addr().String()

	timeout := a.Timeout
	if timeout <= 0 {
		timeout = scenario.DefaultAgentTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	scenarioDir, err := filepath.Abs(filepath.Dir(s.Path))
	if err != nil {
		return fmt.Errorf("%s: %w: %v", where, ErrCommand, err)
	}
	expand := func(v string) string {
		return os.Expand(v, func(name string) string {
			if name == "SCENARIO_DIR" {
				return scenarioDir
			}
			return "$" + name
		})
	}
	args := make([]string, len(a.Command))
	for i, v := range a.Command {
		args[i] = expand(v)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = box.Dir()
	r.seen = box.Dir()
	if r.traffic != nil {
		r.traffic.setWorkspace(r.seen)
	}
	cmd.Env = agentEnviron(os.Environ(), box.Home(), filepath.Join(box.Home(), "tmp"), r.APIKey, a.PassEnv, a.PassCredentials)
	for _, f := range wire.Formats {
		cmd.Env = append(cmd.Env, f.Env(base)...)
	}
	cmd.Env = append(cmd.Env, "TAPELOOP_SCENARIO="+s.Name)
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		cmd.Env = append(cmd.Env, k+"="+expand(a.Env[k]))
	}
	in, err := json.Marshal(commandInput(s.Name, r))
	if err != nil {
		return fmt.Errorf("%s: %w: %v", where, ErrCommand, err)
	}
	stdout := &cappedBuffer{max: MaxCommandOutput}
	stderr := &tailBuffer{max: commandStderrTail}
	cmd.Stderr = stderr
	cmd.WaitDelay = commandWaitDelay

	start := func(cmd *exec.Cmd) error {
		err := box.Start(cmd)
		if err != nil && programMissing(err) {
			return fmt.Errorf("%w: %w", harness.ErrAgentNotStarted, err)
		}
		return err
	}
	var talkErr error
	if r.conversation {
		err, talkErr = converse(ctx, cmd, start, r, in)
	} else {
		cmd.Stdin = bytes.NewReader(append(in, '\n'))
		cmd.Stdout = stdout
		if err = start(cmd); err == nil {
			err = cmd.Wait()
		}
	}
	// What the command started and left running dies here, before the
	// outcome is built from the workspace.
	report := box.End()
	r.noteSandbox(box.Holds(), report.Left)
	err = commandError(ctx, err, talkErr, stdout, stderr, r, box.Dir(), where, a, timeout)
	if !report.Empty() {
		beyond := fmt.Errorf("%s %q: %w: %s", where, a.Command, ErrSandbox, report)
		if err != nil {
			return fmt.Errorf("%w; and %w", beyond, err)
		}
		return beyond
	}
	if err != nil {
		return err
	}
	if !r.conversation {
		final := strings.TrimSuffix(stdout.String(), "\n")
		r.Final(strings.TrimSuffix(final, "\r"))
	}
	return nil
}

// commandError is how the command ended as the run's error: err from
// waiting for it, talkErr from its conversation; nil when it answered.
// The workspace in its stderr, at r.Dir or where the command saw it
// (seen), is written $WORK.
func commandError(ctx context.Context, err, talkErr error, stdout *cappedBuffer, stderr *tailBuffer, r *Run, seen, where string, a *scenario.AgentSetup, timeout time.Duration) error {
	tail := strings.NewReplacer(r.Dir, "$WORK", seen, "$WORK").Replace(stderr.String())
	tail = strings.TrimSpace(tail)
	if tail != "" {
		tail = "; its stderr ends:\n" + tail
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("%s %q: %w: it did not finish within %s and was killed%s", where, a.Command, ErrCommand, timeout, tail)
	case stdout.over:
		return fmt.Errorf("%s %q: %w: it printed more than %d bytes on stdout (its final answer)", where, a.Command, ErrCommand, MaxCommandOutput)
	case talkErr != nil:
		return fmt.Errorf("%s %q: %w: %v%s", where, a.Command, ErrCommand, talkErr, tail)
	case errors.Is(err, exec.ErrWaitDelay):
		return fmt.Errorf("%s %q: %w: it exited, but a process it started kept its stdout or stderr open for more than %s%s", where, a.Command, ErrCommand, commandWaitDelay, tail)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s %q: %w: %v%s", where, a.Command, ErrCommand, exit.ProcessState, tail)
		}
		return fmt.Errorf("%s %q: %w: %w", where, a.Command, ErrCommand, err)
	}
	return nil
}

// programMissing reports whether err, from starting a command, says its
// program is not there or cannot run (not found in PATH, no such file, not
// executable, not a program): what setup.agent.command and PATH decide,
// not the sandbox (harness.ErrAgentNotStarted).
func programMissing(err error) bool {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) {
		return true
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "fork/exec" {
		return false
	}
	return errors.Is(pe.Err, fs.ErrNotExist) || errors.Is(pe.Err, syscall.EACCES) || errors.Is(pe.Err, syscall.ENOEXEC) || errors.Is(pe.Err, syscall.ENOTDIR)
}

func commandInput(name string, r *Run) CommandInput {
	in := CommandInput{Scenario: name, Messages: []CommandMessage{}, Conversation: r.conversation}
	for _, m := range r.Input {
		in.Messages = append(in.Messages, CommandMessage{Role: string(m.Role), Content: m.Content})
	}
	return in
}

// cappedBuffer keeps up to max bytes and notes that more came. Its only
// way in is Write: the buffer is not embedded, since io.Copy (exec's copy
// of a command's stdout) would take bytes.Buffer's ReadFrom and bypass the
// cap.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) String() string { return b.buf.String() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
