package evalrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlags returns a subcommand's flag set. Its usage, printed by --help (to
// stdout, exit 0) and after a bad flag (to stderr, exit 2), is the usage line,
// the description, the flags and the exit codes.
func newFlags(e *env, name, usageLine, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { printUsage(fs.Output(), fs, usageLine, description) }
	return fs
}

func printUsage(w io.Writer, fs *flag.FlagSet, usageLine, description string) {
	fmt.Fprintln(w, "usage: "+usageLine)
	if description != "" {
		fmt.Fprintln(w, "\n"+description)
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	fmt.Fprintln(w, exitCodes)
}

// parseFlags parses args with fs, allowing flags after positional arguments
// (`evalrun replay scenarios --run x`); "--" ends the flags. It returns the
// positional arguments, and ok false with the exit code when the command
// should stop: 0 after --help (usage on stdout), 2 after a bad flag.
func parseFlags(e *env, fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	// Parse prints the usage itself on -help as on a bad flag; the usage
	// is printed here instead, once: on stdout for --help.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			usage()
			return nil, exitOK, false
		}
		if err != nil {
			usage()
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, exitOK, true
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), exitOK, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
