// Package covermap records which top-level tests of a Go package cover each
// of its lines, so that a mutant on a line runs only the tests that can see
// it. Both mutation engines of scripts/mutation (gremlins through mutantgo,
// and semantic) read the same map.
//
// A map file holds, for each covered line, "FILE.go:LINE", a tab and the
// covering tests (and examples and fuzz targets' seeds) space-separated,
// sorted; and for each test a line "#", a tab, its name, a tab and the
// seconds it took alone, which a mutant's timeout is measured against.
package covermap

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/cover"
)

// Write writes the map of the package in pkgDir (relative to the current
// folder, a module root) to out, running each of its tests alone with
// coverage, built by the go command goCmd ("go" when empty). A test that
// fails alone is an error: the mutants' verdicts would not be the suite's.
func Write(goCmd, pkgDir, out string) error {
	if goCmd == "" {
		goCmd = "go"
	}
	tmp, err := os.MkdirTemp("", "covermap")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "pkg.test")
	build := exec.Command(goCmd, "test", "-c", "-cover", "-covermode=set", "-o", bin, "./"+pkgDir)
	if msg, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the tests of %s: %v\n%s", pkgDir, err, msg)
	}
	covered := map[string][]string{}
	took := map[string]time.Duration{}
	if _, err := os.Stat(bin); err == nil { // no binary: the package has no tests
		list := exec.Command(bin, "-test.list", ".")
		list.Dir = pkgDir
		names, err := list.Output()
		if err != nil {
			return fmt.Errorf("listing the tests of %s: %v", pkgDir, err)
		}
		for _, name := range strings.Fields(string(names)) {
			if strings.HasPrefix(name, "Benchmark") {
				continue
			}
			start := time.Now()
			if err := coverOne(bin, pkgDir, name, filepath.Join(tmp, "c.out"), covered); err != nil {
				return err
			}
			took[name] = time.Since(start)
		}
	}
	var b bytes.Buffer
	for _, key := range slices.Sorted(maps.Keys(covered)) {
		fmt.Fprintf(&b, "%s\t%s\n", key, strings.Join(covered[key], " "))
	}
	for _, name := range slices.Sorted(maps.Keys(took)) {
		fmt.Fprintf(&b, "#\t%s\t%.3f\n", name, took[name].Seconds())
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// coverOne runs the one test name alone and adds it to covered under every
// line it covers.
func coverOne(bin, pkgDir, name, profile string, covered map[string][]string) error {
	run := exec.Command(bin, "-test.run", "^"+name+"$", "-test.count", "1", "-test.coverprofile", profile)
	run.Dir = pkgDir
	if msg, err := run.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %s fails when run alone: %v\n%s", pkgDir, name, err, msg)
	}
	profiles, err := cover.ParseProfiles(profile)
	if err != nil {
		return err
	}
	for _, p := range profiles {
		file := filepath.Base(p.FileName)
		for _, blk := range p.Blocks {
			if blk.Count == 0 {
				continue
			}
			for l := blk.StartLine; l <= blk.EndLine; l++ {
				key := fmt.Sprintf("%s:%d", file, l)
				if tests := covered[key]; len(tests) == 0 || tests[len(tests)-1] != name {
					covered[key] = append(tests, name)
				}
			}
		}
	}
	return nil
}

// Lookup returns the tests the map file lists for key ("FILE.go:LINE").
func Lookup(mapFile, key string) ([]string, error) {
	m, err := Read(mapFile)
	if err != nil {
		return nil, err
	}
	return m.Lines[key], nil
}

// Map is a map file read whole.
type Map struct {
	// Lines holds, for "FILE.go:LINE", the tests covering that line; a
	// line no test covers is absent.
	Lines map[string][]string
	// Took holds each test's time alone; absent for a map written before
	// times were kept.
	Took map[string]time.Duration
}

// Read reads a map file.
func Read(mapFile string) (*Map, error) {
	f, err := os.Open(mapFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Map{Lines: map[string][]string{}, Took: map[string]time.Duration{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "#\t"); ok {
			name, secs, _ := strings.Cut(rest, "\t")
			s, err := strconv.ParseFloat(secs, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad time line %q", mapFile, line)
			}
			m.Took[name] = time.Duration(s * float64(time.Second))
			continue
		}
		if k, tests, ok := strings.Cut(line, "\t"); ok {
			m.Lines[k] = strings.Fields(tests)
		}
	}
	return m, sc.Err()
}
