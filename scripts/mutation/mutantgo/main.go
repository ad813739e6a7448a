// Command mutantgo makes each mutant of scripts/mutation cheaper: it runs only
// the tests that cover the mutated line. It also keys gremlins' lived
// mutants by their code, not their line, for scripts/mutation/allow.txt.
//
// gremlins tests a mutant by running "go test PKG" in a copy of the module.
// scripts/mutation puts mutantgo first on gremlins' PATH under the name go.
// For such a run mutantgo finds the one line of PKG that differs from the
// source module (the first token that differs, so gremlins' reprinting of the
// file does not matter), looks the line up in a map of which top-level tests
// cover it, and runs the real go with -run naming those tests. Every other
// go command (gremlins' coverage run, go list, ...) passes through unchanged.
// A mutant that does not compile exits 2, which gremlins counts as NOT
// VIABLE; go test itself exits 1, which gremlins would count as KILLED.
// A test that covers no line of the mutant cannot see it, so the verdict is
// the one the whole test suite would give, except for a test that reaches the
// line only in a process it starts (its coverage is not counted): such a
// mutant may be reported LIVED where the full suite kills it, never the
// reverse.
//
// Usage:
//
//	mutantgo -map PKGDIR MAPFILE    build the map for the package in PKGDIR
//	                                 (relative to the module root, the
//	                                 current folder)
//	go test ... PKG                  (as go) run a mutant's tests
//	mutantgo -allow ALLOWFILE        key the lived mutants read from stdin
//	                                 ("PKGDIR/FILE.go:LINE:COL MUTATOR",
//	                                 one a line) from the source in the
//	                                 current folder, and print each as
//	                                 allowed or lived with its key (see
//	                                 classify); exit 2 on a bad allowlist
//
// Environment: MUTANTGO_GO is the real go command, MUTANTGO_SRC the source
// module root, MUTANTGO_MAPS the folder holding one map per package, named
// as PKGDIR with "/" replaced by "_" and ".map" appended.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/covermap"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-map" {
		if err := covermap.Write(os.Getenv("MUTANTGO_GO"), os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "mutantgo:", err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "-allow" {
		a, err := readAllow(os.Args[2])
		if err == nil {
			err = classify(a, ".", os.Stdin, os.Stdout, os.Stderr)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutantgo:", err)
			os.Exit(2)
		}
		return
	}
	realGo := os.Getenv("MUTANTGO_GO")
	if realGo == "" {
		fmt.Fprintln(os.Stderr, "mutantgo: MUTANTGO_GO is not set")
		os.Exit(2)
	}
	args := os.Args[1:]
	mutant := isMutantRun(args)
	if run, ok := selectTests(args); ok {
		args = withRun(args, run)
	}
	cmd := exec.Command(realGo, args...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if mutant {
		cmd.Stdout = io.MultiWriter(os.Stdout, &out)
		cmd.Stderr = io.MultiWriter(os.Stderr, &out)
	}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exitCode(mutant, exit.ExitCode(), out.Bytes()))
		}
		fmt.Fprintln(os.Stderr, "mutantgo:", err)
		os.Exit(2)
	}
}

// exitCode returns the exit code for gremlins: go test exits 1 both when a
// test fails and when the mutant does not compile, and gremlins would count
// both as KILLED; a mutant that does not build exits 2, which gremlins counts
// as NOT VIABLE.
func exitCode(mutant bool, code int, out []byte) int {
	if mutant && code == 1 && (bytes.Contains(out, []byte(" [build failed]")) || bytes.Contains(out, []byte(" [setup failed]"))) {
		return 2
	}
	return code
}

// isMutantRun reports whether args are those of gremlins' run of a mutant's
// tests, "go test ... PKG" without -cover (its coverage run has -cover).
func isMutantRun(args []string) bool {
	return len(args) >= 2 && args[0] == "test" && !slices.Contains(args, "-cover")
}

// selectTests returns the -run pattern for a mutant's "go test ... PKG" run,
// and false for any other go command or when the mutated line is not in the
// map (then every test runs, as without mutantgo).
func selectTests(args []string) (string, bool) {
	if !isMutantRun(args) {
		return "", false
	}
	for _, a := range args {
		if a == "-run" || strings.HasPrefix(a, "-run=") {
			return "", false
		}
	}
	pkg := args[len(args)-1]
	src, maps := os.Getenv("MUTANTGO_SRC"), os.Getenv("MUTANTGO_MAPS")
	if src == "" || maps == "" {
		return "", false
	}
	dir, err := packageDir(pkg)
	if err != nil {
		return "", false
	}
	file, line, err := mutatedLine(dir, filepath.Join(src, dir))
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutantgo: %v; running every test\n", err)
		return "", false
	}
	tests, err := covermap.Lookup(filepath.Join(maps, strings.ReplaceAll(dir, "/", "_")+".map"), fmt.Sprintf("%s:%d", file, line))
	if err != nil || len(tests) == 0 {
		return "", false
	}
	fmt.Fprintf(os.Stderr, "mutantgo: %s/%s:%d: %d tests cover it\n", dir, file, line, len(tests))
	return "^(" + strings.Join(tests, "|") + ")$", true
}

// withRun returns args with -run pattern put before the package, the last
// argument.
func withRun(args []string, pattern string) []string {
	out := append([]string{}, args[:len(args)-1]...)
	return append(out, "-run", pattern, args[len(args)-1])
}

// packageDir returns the folder of import path pkg relative to the module
// root (the current folder), read from ./go.mod.
func packageDir(pkg string) (string, error) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			name = strings.Trim(strings.TrimSpace(name), `"`)
			if pkg == name {
				return ".", nil
			}
			if rel, ok := strings.CutPrefix(pkg, name+"/"); ok {
				return rel, nil
			}
			return "", fmt.Errorf("%s is not in module %s", pkg, name)
		}
	}
	return "", errors.New("go.mod names no module")
}
