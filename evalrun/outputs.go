package evalrun

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// outputFlags are the report files replay, eval and merge can write beside
// their main output, and the shard flag of the commands that run scenarios.
type outputFlags struct {
	junit, html, shard string
}

// addOutputFlags adds --junit and --html, and --shard when sharded is set.
func addOutputFlags(fs *flag.FlagSet, sharded bool) *outputFlags {
	o := &outputFlags{}
	fs.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to this file")
	fs.StringVar(&o.html, "html", "", "also write a self-contained HTML report to this file")
	if sharded {
		addShardFlag(fs, &o.shard)
	}
	return o
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

// renderer is a result that can be written as JUnit and HTML.
type renderer interface {
	WriteJUnit(io.Writer) error
	WriteHTML(io.Writer) error
}

// write writes the --junit and --html files, atomically.
func (o *outputFlags) write(e *env, cmd string, r renderer) int {
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--junit", o.junit, r.WriteJUnit}, {"--html", o.html, r.WriteHTML}} {
		if f.path == "" {
			continue
		}
		if err := atomicfile.Write(f.path, f.write); err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: %s: %v\n", cmd, f.flag, err)
			return exitUsage
		}
	}
	return exitOK
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
		if s, err := scenario.Load(t.path, t.root); err == nil {
			name = s.Name
		}
		if shard.Contains(name) {
			out = append(out, t)
		}
	}
	return out
}
