// Command semantic is scripts/mutation's second mutation engine: it makes
// the mutants gremlins' arithmetic and conditional operators never do, the
// bugs a careful engineer could write (see mutant.go for the kinds: a
// statement or a branch removed, a value stored in the wrong field, two
// arguments swapped, a match unanchored, a trim dropped, an early return or
// continue, a deferred call dropped, an append to the wrong slice), and
// reports which of them the package's own tests kill.
//
// It builds each package's tests once, with every mutant in (mutant
// schemata: each mutant is guarded by a switch read from TAPELOOP_MUTANT),
// and then runs, per mutant, only the tests that cover its line (the
// coverage map that mutantgo makes for gremlins, shared). A mutant that a
// test reaches only through a process it starts (a built binary) cannot be
// switched on there, so it may be reported LIVED where a rebuilt binary
// would kill it, never the reverse.
//
// Usage, from the module root:
//
//	semantic [flags] PKGDIR...
//
// Flags:
//
//	-allow FILE          mutants allowed to live, with a reason each (see allow.go)
//	-maps DIR            coverage maps, made there when missing (default: a temporary folder)
//	-work DIR            scratch folder (default: a temporary folder, removed afterwards)
//	-workers N           mutants tested at once (default 1)
//	-timeout-coefficient N  each covering test may take N times its time alone, plus 10 s (default 10)
//	-sample N            test N mutants per package, chosen by a hash of their keys and -seed (default: all)
//	-seed S              the sample's seed (default "tapeloop")
//	-only KEY[,KEY...]   test only these mutants, named by key (as -list and the LIVED lines print
//	                     it) or, with one package, by ID; not with -sample
//	-min-efficacy P      exit 1 when a package's efficacy is below P percent
//	-list                print the mutants and exit, running nothing
//
// A mutant times out when one of its covering tests runs past the
// coefficient times that test's time alone (the coverage map's) plus 10 s:
// the test binary runs with -test.v=test2json, whose framing the engine
// follows, and a test past its allowance is sent SIGQUIT, so a deadlock
// ends after that one test's allowance and prints its goroutines' stacks. The whole run is also given the sum of its tests'
// allowances as -test.timeout. A test can also be slow for the machine's
// sake (one that builds a program, on a loaded machine), and a timeout
// counts as a kill: so a run that times out is run again with twice the
// allowances, and only a second timeout makes the mutant timed out. The
// output of each timed-out run is kept in WORK/PKG/timedout/KEY-1.txt and
// KEY.txt (with -work; the default folder is removed).
// Before the mutants, their covering tests run once with no mutant on, so
// that what a test builds on the way (a program, with go build) is ready
// and not timed in a mutant's run; a test that fails then is an error
// (exit 2).
// Each progress line (on stderr) says how long the mutant's run took against
// its tests' time alone.
//
// With -only, every chosen mutant's verdict is printed on stdout, killed
// ones too: the way to confirm that a new test kills a mutant, or that an
// allowlist entry matches, without a whole run. A name that matches no
// mutant is a usage error.
//
// Efficacy is killed / (killed + lived), timed out counted as killed, the
// allowed and the not covered left out (the coverage is printed beside it).
// Exit 0 when every package ran (and met -min-efficacy), 1 when one did not
// meet it, 2 on a usage error or when a package could not be run, 130 when
// interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments and streams: it returns the exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("semantic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	allowFile := fs.String("allow", "", "mutants allowed to live, with a reason each")
	maps := fs.String("maps", "", "folder of coverage maps (made there when missing)")
	work := fs.String("work", "", "scratch folder (default: temporary)")
	workers := fs.Int("workers", 1, "mutants tested at once")
	coefficient := fs.Int("timeout-coefficient", 10, "each covering test may take N times its time alone, plus 10 s")
	n := fs.Int("sample", 0, "test N mutants per package (default: all)")
	seed := fs.String("seed", "tapeloop", "the sample's seed")
	minEff := fs.Float64("min-efficacy", 0, "exit 1 when a package's efficacy is below this percentage")
	list := fs.Bool("list", false, "print the mutants and exit")
	onlyFlag := fs.String("only", "", "test only these mutants: keys, or IDs with one package, comma-separated")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *workers < 1 || *coefficient < 1 || *n < 0 {
		fmt.Fprintln(stderr, "usage: semantic [flags] PKGDIR... (from the module root; -h for the flags)")
		return 2
	}
	only, err := parseOnly(*onlyFlag, *n, fs.NArg())
	if err != nil {
		fmt.Fprintln(stderr, "semantic:", err)
		return 2
	}
	allow := allowlist{}
	if *allowFile != "" {
		var err error
		if allow, err = readAllow(*allowFile); err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	scratch := *work
	if scratch == "" {
		var err error
		if scratch, err = os.MkdirTemp("", "semantic"); err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			return 2
		}
		defer os.RemoveAll(scratch)
	}
	if *maps == "" {
		*maps = filepath.Join(scratch, "maps")
	}
	code := 0
	var seen []string
	for _, dir := range fs.Args() {
		dir = filepath.ToSlash(filepath.Clean(dir))
		s, err := load(dir)
		if err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			code = 2
			continue
		}
		ms := sample(s.mutants, *n, *seed)
		if only != nil {
			ms = only.choose(s.mutants)
			if last := dir == filepath.ToSlash(filepath.Clean(fs.Arg(fs.NArg()-1))); last && len(only.unmatched()) > 0 {
				break // said below, before running this package
			}
		}
		head := fmt.Sprintf("== %s: %d mutants", dir, len(s.mutants))
		if s.dropped > 0 {
			head += fmt.Sprintf(" (%d more left out: the package did not compile with them)", s.dropped)
		}
		switch {
		case only != nil:
			head += fmt.Sprintf(", %d chosen by -only", len(ms))
		case len(ms) < len(s.mutants):
			head += fmt.Sprintf(", %d tested (a sample, seed %q)", len(ms), *seed)
		}
		fmt.Fprintln(stdout, head)
		if len(ms) == 0 && only != nil {
			continue
		}
		if *list {
			for _, m := range ms {
				fmt.Fprintf(stdout, "%s\n    key: %s\n", m.describe(dir), allow.key(dir, m))
			}
			continue
		}
		r := &runner{goCmd: "go", pkgDir: dir, work: filepath.Join(scratch, strings.ReplaceAll(dir, "/", "_")), maps: *maps, workers: *workers,
			coefficient: *coefficient, slack: 10 * time.Second,
			progress: func(done, total int, v verdict) {
				fmt.Fprintf(stderr, "[%d/%d] %s %s %s\n", done, total, v.state, v.m.describe(dir), v.times())
			}}
		cov, err := r.coverage()
		if err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			code = 2
			continue
		}
		bin, err := r.testBinary(s)
		if err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			code = 2
			continue
		}
		if err := r.warmUp(ctx, bin, cov, ms); err != nil {
			fmt.Fprintln(stderr, "semantic:", err)
			code = 2
			continue
		}
		vs := r.run(ctx, bin, cov, ms)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "semantic: interrupted; stopped")
			return 130
		}
		t := tally(dir, vs, allow)
		seen = append(seen, t.allowedKeys...)
		for _, v := range vs {
			if only != nil && v.m != nil && v.state != Lived {
				fmt.Fprintf(stdout, "%s %s\n    key: %s\n", v.state, v.m.describe(dir), allow.key(dir, v.m))
			}
			if v.state == Lived {
				fmt.Fprintf(stdout, "LIVED %s\n    allow as: %s  # why no test can kill it\n", v.m.describe(dir), allow.key(dir, v.m))
			}
		}
		fmt.Fprintln(stdout, t.summary(dir))
		if *minEff > 0 && t.efficacy() < *minEff {
			code = max(code, 1)
		}
		if len(ms) == len(s.mutants) {
			for _, k := range allow.unused(dir, seen) {
				fmt.Fprintf(stdout, "allowlist: %s matches no mutant that lived: update or remove it\n", k)
			}
		}
	}
	if missing := only.unmatched(); len(missing) > 0 {
		fmt.Fprintf(stderr, "semantic: -only: no mutant of %s is %s\n", strings.Join(fs.Args(), ", "), strings.Join(missing, ", "))
		return 2
	}
	return code
}

// counts is a package's tally of verdicts.
type counts struct {
	killed, lived, notCovered, timedOut, allowed int
	allowedKeys                                  []string
}

// tally counts the verdicts, a lived mutant that the allowlist names as
// allowed.
func tally(dir string, vs []verdict, allow allowlist) *counts {
	c := &counts{}
	for i := range vs {
		v := &vs[i]
		if v.m == nil {
			continue // not run: interrupted
		}
		switch v.state {
		case Killed:
			c.killed++
		case TimedOut:
			c.timedOut++
		case NotCovered:
			c.notCovered++
		case Lived:
			if k := allow.key(dir, v.m); allow[k] != "" {
				v.state = Allowed
				c.allowed++
				c.allowedKeys = append(c.allowedKeys, k)
			} else {
				c.lived++
			}
		}
	}
	return c
}

// efficacy is killed / (killed + lived) in percent, timed out counted as
// killed; 100 when nothing was tested.
func (c *counts) efficacy() float64 {
	k := c.killed + c.timedOut
	if k+c.lived == 0 {
		return 100
	}
	return 100 * float64(k) / float64(k+c.lived)
}

func (c *counts) summary(dir string) string {
	tested := c.killed + c.timedOut + c.lived + c.allowed
	cover := 100.0
	if tested+c.notCovered > 0 {
		cover = 100 * float64(tested) / float64(tested+c.notCovered)
	}
	return fmt.Sprintf("%s: killed %d, timed out %d, lived %d, allowed %d, not covered %d: efficacy %.1f%%, mutant coverage %.1f%%",
		dir, c.killed, c.timedOut, c.lived, c.allowed, c.notCovered, c.efficacy(), cover)
}
