package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after review):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// inFixture runs the rest of the test in the fixture module, which holds
// one package, shop, with a place for each kind of mutant.
func inFixture(t *testing.T) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(abs)
}

// TestListFixture lists the fixture's mutants: each kind is made where the
// code has its shape, and only there.
func TestListFixture(t *testing.T) {
	wd, _ := os.Getwd()
	inFixture(t)
	var out, errs bytes.Buffer
	if code := run([]string{"-list", "shop"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	t.Chdir(wd)
	golden(t, "fixture.list", out.String())
	for _, kind := range []string{StatementRemove, BranchRemove, FieldSwap, ArgSwap, AnchorRemove, TrimRemove, EarlyReturn, EarlyContinue, DeferRemove, AppendWrong} {
		if !strings.Contains(out.String(), kind+" at ") {
			t.Errorf("no %s mutant in the fixture", kind)
		}
	}
}

// TestRunFixture runs the mutants against the fixture's tests: those its
// tests check are killed; the others live (a count never read, Removed never
// looked at, Close never called twice, a HasPrefix tested only where
// Contains answers the same), and the allowlisted one (the lock's deferred
// Unlock) is left out of the efficacy.
func TestRunFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture's tests: not in -short")
	}
	wd, _ := os.Getwd()
	allow := filepath.Join(t.TempDir(), "allow.txt")
	entry := "shop/shop.go DEFER_REMOVE "
	inFixture(t)
	var list bytes.Buffer
	if code := run([]string{"-list", "shop"}, &list, &bytes.Buffer{}); code != 0 {
		t.Fatal("list failed")
	}
	for _, l := range strings.Split(list.String(), "\n") {
		if k, ok := strings.CutPrefix(strings.TrimSpace(l), "key: "); ok && strings.HasPrefix(k, entry) {
			entry = k
		}
	}
	if err := os.WriteFile(allow, []byte("# test\n"+entry+"  # one goroutine in the test: nothing waits on the lock\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"-work", t.TempDir(), "-allow", allow, "shop"}, &out, &errs)
	t.Chdir(wd)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	golden(t, "fixture.run", out.String())
}

// TestSchemataIsTheCodeAsWritten runs the fixture's tests with every mutant
// in and none switched on: they pass, as on the code as written.
func TestSchemataIsTheCodeAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture's tests: not in -short")
	}
	inFixture(t)
	s, err := load("shop")
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{goCmd: "go", pkgDir: "shop", work: t.TempDir()}
	bin, err := r.testBinary(s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.count=1")
	cmd.Dir = "shop"
	cmd.Env = append(os.Environ(), "TAPELOOP_MUTANT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the tests fail with no mutant on: %v\n%s", err, out)
	}
}

// TestUsageErrors: no package, a worker count of 0 and an unknown flag are
// usage errors, exit 2.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"-workers", "0", "shop"}, {"-nope"}} {
		if code := run(args, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
	}
}
