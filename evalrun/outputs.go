package evalrun

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// outputFlags are the report files replay, eval, merge and report write
// (--json, --junit, --html; "-" is standard output), and the shard flag of
// the commands that run scenarios.
type outputFlags struct {
	json, junit, html, shard string
}

// addOutputFlags adds --json, --junit and --html, and --shard when sharded
// is set. jsonFormat names the JSON document --json writes.
func addOutputFlags(fs *flag.FlagSet, sharded bool, jsonFormat string) *outputFlags {
	o := &outputFlags{}
	addJSONFlag(fs, &o.json, jsonFormat)
	fs.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to this file (- for standard output)")
	fs.StringVar(&o.html, "html", "", "also write a self-contained HTML report to this file (- for standard output)")
	if sharded {
		addShardFlag(fs, &o.shard)
	}
	return o
}

// addJSONFlag adds --json FILE, stored in p: the command's result as JSON
// (the document jsonFormat names) in FILE, or on standard output for "-".
func addJSONFlag(fs *flag.FlagSet, p *string, jsonFormat string) {
	fs.StringVar(p, "json", "", "write the result as JSON ("+jsonFormat+") to this `FILE` (- for standard output, instead of the text)")
}

// writeJSONOutput writes the --json output of a command whose result is
// built here rather than by the harness or eval (which redact as they
// record): as writeOutput does, through the default redaction policy
// (redact.New: the providers' keys, every variable named like a
// secret, the key shapes), so that no secret in the input reaches the
// file. Each write of write is redacted on its own: write a document, or a
// line, in one write.
func writeJSONOutput(e *env, path string, write func(io.Writer) error) error {
	red := redact.Default()
	return writeOutput(e, path, func(w io.Writer) error {
		// The redactor sees each write whole; the buffer gathers them.
		bw := bufio.NewWriter(w)
		err := write(red.Writer(bw))
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	})
}

// check refuses two outputs sent to standard output.
func (o *outputFlags) check(e *env, cmd string) int {
	n := 0
	for _, p := range []string{o.json, o.junit, o.html} {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintf(e.stderr, "evalrun %s: only one of --json, --junit and --html may be - (standard output)\n", cmd)
		return exitUsage
	}
	return exitOK
}

// toStdout reports whether an output takes standard output, in place of
// the command's text results.
func (o *outputFlags) toStdout() bool {
	return o.json == "-" || o.junit == "-" || o.html == "-"
}

// textOut is where a command's text results go: standard output, or
// standard error when an output took standard output.
func (o *outputFlags) textOut(e *env) io.Writer {
	if o.toStdout() {
		return e.stderr
	}
	return e.stdout
}

// any reports whether an output was asked for.
func (o *outputFlags) any() bool { return o.json != "" || o.junit != "" || o.html != "" }

// jsonSwitch keeps replay's old --json switch working: a --json not
// followed by "-" or a name ending in .json means standard output, as it
// did when --json took no value. Other arguments are returned as they were.
func jsonSwitch(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--json" || a == "-json" {
			if i+1 < len(args) && takesJSON(args[i+1]) {
				out = append(out, a, args[i+1])
				i++
				continue
			}
			a = "--json=-"
		}
		out = append(out, a)
	}
	return out
}

// takesJSON reports whether the argument after --json is its file: "-",
// a name ending in .json, or any name that is not a flag nor an existing
// folder or scenario file (those are the old switch's paths; a golden is
// not one, and writeOutput refuses it).
func takesJSON(next string) bool {
	switch {
	case next == "-" || strings.HasSuffix(next, ".json"):
		return true
	case strings.HasPrefix(next, "-"):
		return false
	}
	info, err := os.Stat(next)
	if err != nil {
		return true
	}
	return !info.IsDir() && (isGolden(next) || !isScenarioFile(next))
}

// isGolden reports whether path is named as a golden file is.
func isGolden(path string) bool {
	return strings.HasSuffix(path, ".golden.yaml") || strings.HasSuffix(path, ".golden.yml")
}

// isScenarioFile reports whether path is a scenario file or a golden:
// named NAME.golden.yaml (or .yml), or a file whose text has a top-level
// `format: tapeloop/` line.
func isScenarioFile(path string) bool {
	if isGolden(path) {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	for _, line := range strings.Split(string(head[:n]), "\n") {
		if strings.HasPrefix(line, "format: tapeloop/") || strings.HasPrefix(line, "format: \"tapeloop/") {
			return true
		}
	}
	return false
}

// addShardFlag adds --shard, stored in p.
func addShardFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "shard", "", "run only shard `i/n` (1-based) of the scenarios, split by a hash of their names;\n"+
		"without it, "+report.JobIndexVar+" (0-based, as a Kubernetes Indexed Job sets it) and "+report.ShardTotalVar+" choose the shard")
}

// shardOf returns the shard --shard or the environment chooses; nil for the
// whole suite.
func shardOf(e *env, cmd string, o *outputFlags) (*report.Shard, int) {
	return parseShard(e, cmd, o.shard)
}

// parseShard parses --shard, or reads the environment when it is "".
func parseShard(e *env, cmd, flagValue string) (*report.Shard, int) {
	var s *report.Shard
	var err error
	if flagValue != "" {
		s, err = report.ParseShard(flagValue)
	} else {
		s, err = report.ShardFromEnv(os.Getenv)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun %s: --shard: %v\n", cmd, err)
		return nil, exitUsage
	}
	return s, exitOK
}

// renderer is a result that can be written as JSON, JUnit and HTML.
type renderer interface {
	WriteJSON(io.Writer) error
	WriteJUnit(io.Writer) error
	WriteHTML(io.Writer) error
}

// write writes the --json, --junit and --html outputs: a file atomically,
// or standard output for "-".
func (o *outputFlags) write(e *env, cmd string, r renderer) int {
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--json", o.json, r.WriteJSON}, {"--junit", o.junit, r.WriteJUnit}, {"--html", o.html, r.WriteHTML}} {
		if err := writeOutput(e, f.path, f.write); err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: %s: %v\n", cmd, f.flag, err)
			return exitUsage
		}
	}
	return exitOK
}

// writeOutput writes one output: nothing for "", standard output for "-",
// else the file: a regular file is replaced atomically; a device (such as
// /dev/stdout), a named pipe or a link to one is written through, never
// replaced (atomicfile.Output).
func writeOutput(e *env, path string, write func(io.Writer) error) error {
	switch path {
	case "":
		return nil
	case "-":
		return write(e.stdout)
	}
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && isScenarioFile(path) {
		return fmt.Errorf("%s is a tapeloop scenario or golden file; refusing to write a report over it", path)
	}
	return atomicfile.Output(path, write)
}

// shardTargets keeps the targets in the shard: by scenario name, or by path
// for a file that does not load (recording it reports the error).
func shardTargets(targets []target, shard *report.Shard) []target {
	if shard == nil {
		return targets
	}
	var out []target
	for _, t := range targets {
		name := t.path
		if s, err := scenario.Load(t.path); err == nil {
			name = s.Name
		}
		if shard.Contains(name) {
			out = append(out, t)
		}
	}
	return out
}
