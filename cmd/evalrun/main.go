// Command evalrun replays tapeloop scenarios, updates their goldens, and offers the
// tool runtime's repair and extraction as filters for measuring corpora.
//
// Usage:
//
//	evalrun [command] [flags] [args]
//
// With no command it replays the bundled scenarios. Exit status: 0 when everything
// passed, 1 when a scenario (or a repair) failed, 2 on a usage or input error.
// Results go to standard output, diagnostics to standard error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
)

// The exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// env is what a subcommand may touch: its streams and nothing global.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// isTerminal reports whether stdout is a terminal (colour is used only then).
	isTerminal bool
}

// command is one subcommand; each lives in its own file and registers itself.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, isTerminal: isTerminal(os.Stdout)}
	os.Exit(run(ctx, os.Args[1:], e))
}

// run dispatches to a subcommand and returns the exit code.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "-help" && args[0] != "--help") {
		args = append([]string{"replay"}, args...)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(e.stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "evalrun: unknown command %q\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return c.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: evalrun [command] [flags] [args]")
	fmt.Fprintln(w, "\nWith no command, evalrun replays the scenarios under ./scenarios.\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
