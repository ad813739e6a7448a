// Package evalrun is the evalrun command as a library: Main parses the
// command line and runs a subcommand (replay, lint, repair, extract,
// version, ...). cmd/evalrun is a thin main around it.
//
// evalrun cannot compile your code, so to replay scenarios that name your own
// tools, write a main package of your own that calls Main with them added;
// every subcommand, flag and exit code stays the same:
//
//	func main() {
//		ctx, stop := evalrun.NotifyContext(context.Background()) // SIGINT, SIGTERM
//		defer stop()
//		os.Exit(evalrun.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, &evalrun.Options{
//			Tools: []*toolkit.Factory{orders.LookupOrderFactory, orders.CancelOrderFactory},
//		}))
//	}
//
// examples/orders/cmd/ordersrun is such a main. The live providers that
// record and eval open by name are registered by main, as database/sql
// drivers are: import github.com/tapeloop/tapeloop/llm/builtin (or only the
// providers you use) in your main, as cmd/evalrun does; this package links no
// provider SDK.
//
// Usage:
//
//	evalrun [command] [flags] [args]
//	evalrun [flags] [scenario files or folders]   # replay
//
// With no command it replays the scenarios under ./scenarios; a first
// argument that is a path (not a command) replays that path. Exit status: 0
// when everything passed, 1 when a scenario (or a repair) failed, 2 on a
// usage or input error. Results go to standard output, diagnostics to
// standard error.
package evalrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// The exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
	// exitErrored: eval or merge ran, but trials errored (a failed model
	// call: the provider refused the key, was down, timed out), so their
	// scores say nothing about the model.
	exitErrored = 3
)

// exitCodes is the paragraph every subcommand's --help ends with.
const exitCodes = `
exit codes:
  0  everything passed
  1  a scenario (or a repair) failed
  2  a usage or input error
  3  eval and merge: trials errored (a failed model call)`

// Options configures Main. A nil *Options is the zero value.
type Options struct {
	// Tools are tool factories that scenarios may name in setup.tools beside
	// the built-in fixtures (see package fixtures and harness.RunOptions.Tools).
	// A name that is also a fixture's is an input error. Nil means the
	// fixtures only.
	Tools []*toolkit.Factory
	// Agents run your Go agents, by the name bridged scenarios give in
	// setup.agent.go (see harness.RunOptions.Agents): replay, record and
	// eval run such a scenario with the runner registered under its name,
	// bridge.Runner of your agent (a setup.agent.command needs none). Nil
	// means none.
	Agents map[string]harness.Runner
	// Checks are checks of your own that scenarios call from expect.check
	// (see harness.NewChecker): lint configures each item against them and
	// replay, eval and record call them. Nil means none.
	Checks []*harness.Checker
	// Command is how the user runs this program ("go run ./cmd/supportrun"),
	// named in hints such as the rebase command that accepts a changed
	// request; empty means the program's name (os.Args[0]'s base name), or
	// evalrun under go test.
	Command string
	// Stdin is what repair and extract read; nil means os.Stdin.
	Stdin io.Reader
}

// env is what a subcommand may touch: its streams and nothing global.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// isTerminal reports whether stdout is a terminal (colour is used only then).
	isTerminal bool
	// tools are the caller's tool factories (Options.Tools).
	tools []*toolkit.Factory
	// agents are the caller's Go agents (Options.Agents).
	agents map[string]harness.Runner
	// checks are the caller's checks (Options.Checks).
	checks []*harness.Checker
	// requireSandbox makes a command agent whose sandbox cannot hold
	// every guarantee fail (--require-sandbox).
	requireSandbox bool
	// allowHosts are what a replay may reach through
	// http.DefaultTransport (replay's --allow-host); nil means nothing.
	allowHosts []string
	// command is how the user runs this program (Options.Command); empty
	// means progName.
	command string
	// rerun runs a scenario again for replay --repeat; nil means
	// (*scenario.Scenario).Run. Tests set it to feed a nondeterministic outcome.
	rerun func(ctx context.Context, s *scenario.Scenario, opts *harness.RunOptions) (*harness.Outcome, error)
	// clock measures and waits in live runs (eval's backoffs); nil means
	// the real clock. Tests set a virtual one so that a retry takes no
	// wall time.
	clock clock.Clock
	// red is the command's redaction policy (set by redacting): the one a
	// replay (run) matches the tape's [REDACTED] with; nil means
	// redact.Default().
	red *redact.Redactor
}

// progName is how the user runs this program, for hints: the base name of
// os.Args[0] (evalrun, or a main of their own such as supportrun), or
// "evalrun" under go test and go run's temporary names.
func progName() string {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if name == "" || name == "." || strings.HasSuffix(name, ".test") {
		return "evalrun"
	}
	return name
}

// prog is how the user runs this program, for hints: Options.Command, or
// progName.
func (e *env) prog() string {
	if e.command != "" {
		return e.command
	}
	return progName()
}

// command is one subcommand; each lives in its own file and registers itself.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// Main runs the evalrun command line args (without the program name) and
// returns the exit code: 0 when everything passed, 1 when a scenario failed,
// 2 on a usage or input error. Results go to stdout, diagnostics to stderr.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts *Options) int {
	if opts == nil {
		opts = &Options{}
	}
	e := &env{stdin: opts.Stdin, stdout: stdout, stderr: stderr, tools: opts.Tools, agents: opts.Agents, checks: opts.Checks, command: opts.Command}
	if e.stdin == nil {
		e.stdin = os.Stdin
	}
	if f, ok := stdout.(*os.File); ok {
		e.isTerminal = isTerminal(f)
	}
	return run(ctx, args, e)
}

// run dispatches to a subcommand and returns the exit code. No arguments, a
// first argument that is a flag, or one that is not a command but names an
// existing file or folder, mean replay.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			usage(e.stdout)
			return exitOK
		}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		args = append([]string{"replay"}, args...)
	} else if _, ok := commands[args[0]]; !ok {
		if _, err := os.Stat(args[0]); err == nil {
			args = append([]string{"replay"}, args...)
		}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "evalrun: unknown command %q (and no such file or folder)\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return c.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: evalrun [command] [flags] [args]")
	fmt.Fprintln(w, "       evalrun [replay flags] [scenario files or folders]")
	fmt.Fprintln(w, "\nWith no command, evalrun replays the scenarios under ./scenarios, or the\nfiles and folders named. `evalrun COMMAND --help` describes a command.\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, exitCodes)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
