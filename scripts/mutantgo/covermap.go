package main

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/cover"
)

// writeMap writes to out, for each line of the package in pkgDir that a test
// covers, "FILE.go:LINE" and the top-level tests (and examples and fuzz
// targets' seeds) covering it, space-separated, one line each, sorted.
func writeMap(pkgDir, out string) error {
	realGo := os.Getenv("MUTANTGO_GO")
	if realGo == "" {
		realGo = "go"
	}
	tmp, err := os.MkdirTemp("", "mutantgo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "pkg.test")
	build := exec.Command(realGo, "test", "-c", "-cover", "-covermode=set", "-o", bin, "./"+pkgDir)
	if msg, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the tests of %s: %v\n%s", pkgDir, err, msg)
	}
	covered := map[string][]string{}
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
			if err := coverOne(bin, pkgDir, name, filepath.Join(tmp, "c.out"), covered); err != nil {
				return err
			}
		}
	}
	var b bytes.Buffer
	for _, key := range slices.Sorted(maps.Keys(covered)) {
		fmt.Fprintf(&b, "%s\t%s\n", key, strings.Join(covered[key], " "))
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// coverOne runs the one test name alone and adds it to covered under every
// line it covers. A test that fails alone is an error: the mutants' verdicts
// would not be the suite's.
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

// lookup returns the tests the map file lists for key ("FILE.go:LINE").
func lookup(mapFile, key string) ([]string, error) {
	f, err := os.Open(mapFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		if k, tests, ok := strings.Cut(sc.Text(), "\t"); ok && k == key {
			return strings.Fields(tests), nil
		}
	}
	return nil, sc.Err()
}
