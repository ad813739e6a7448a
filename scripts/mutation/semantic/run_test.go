package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/covermap"
)

// deadlock returns the fixture's counter package built with its mutants,
// a runner for it with a 1 s slack, its coverage map, and the mutant that
// drops the deferred Unlock (the second Next waits for ever).
func deadlock(t *testing.T) (*runner, string, *covermap.Map, *Mutant) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the fixture's tests: not in -short")
	}
	inFixture(t)
	s, err := load("counter")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	r := &runner{goCmd: "go", pkgDir: "counter", work: work, maps: filepath.Join(work, "maps"), workers: 1, coefficient: 1, slack: time.Second}
	cov, err := r.coverage()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := r.testBinary(s)
	if err != nil {
		t.Fatal(err)
	}
	return r, bin, cov, mutant(t, s, DeferRemove)
}

// mutant returns s's first mutant of the kind.
func mutant(t *testing.T, s *schemata, kind string) *Mutant {
	t.Helper()
	for _, m := range s.mutants {
		if m.Kind == kind {
			return m
		}
	}
	t.Fatalf("the fixture has no %s mutant", kind)
	return nil
}

// kept returns the output the verdict's note says was kept.
func kept(t *testing.T, v verdict) string {
	t.Helper()
	i := strings.LastIndex(v.note, "output: ")
	if i < 0 {
		t.Fatalf("the note %q names no kept output", v.note)
	}
	path := v.note[i+len("output: "):]
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeadlockEndsAfterItsTest: a mutant that deadlocks one test is timed
// out once that test runs past its own allowance, with every goroutine's
// stack kept (the one waiting for the lock among them).
func TestDeadlockEndsAfterItsTest(t *testing.T) {
	r, bin, cov, m := deadlock(t)
	// TestNext's time in the map is milliseconds: its allowance is about
	// the 1 s slack. Give the whole run far more, so that only the watch
	// can end it in time.
	cov.Took["TestNext"] = time.Millisecond
	cov.Took["TestOther"] = time.Hour
	cov.Lines[fmt.Sprintf("%s:%d", m.File, m.Line)] = []string{"TestNext", "TestOther"}
	// If the watch fails to end it, this ends it after a minute.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	v := r.run(ctx, bin, cov, []*Mutant{m})[0]
	if v.state != TimedOut {
		t.Fatalf("verdict %s (%s), want %s", v.state, v.note, TimedOut)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("it took %v to end", took)
	}
	if !strings.Contains(v.note, "timed out twice: TestNext ran past its 1s") || !strings.Contains(v.note, "then TestNext ran past its 2s") {
		t.Errorf("the note %q does not name the test past its allowance, then past twice that", v.note)
	}
	out := kept(t, v)
	for _, want := range []string{"SIGQUIT", "counter.(*Counter).Next", "sync.Mutex.Lock"} {
		if !strings.Contains(out, want) {
			t.Errorf("the kept output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunEndsItselfWithoutTestTimes: a test with no time in the map is not
// watched, and the run's -test.timeout (the slack alone here) ends it with
// its stacks.
func TestRunEndsItselfWithoutTestTimes(t *testing.T) {
	r, bin, cov, m := deadlock(t)
	delete(cov.Took, "TestNext")
	v := r.run(context.Background(), bin, cov, []*Mutant{m})[0]
	if v.state != TimedOut {
		t.Fatalf("verdict %s (%s), want %s", v.state, v.note, TimedOut)
	}
	if !strings.Contains(v.note, "the run went past its 1s") || !strings.Contains(v.note, "then the run went past its 2s") {
		t.Errorf("the note %q does not say the run went past its budget", v.note)
	}
	if out := kept(t, v); !strings.Contains(out, "panic: test timed out after") || !strings.Contains(out, "counter.(*Counter).Next") {
		t.Errorf("the kept output lacks the testing package's timeout and the stacks:\n%s", out)
	}
}

// TestOnlyConfirms runs the mutants -only names, by key and by ID, and
// prints each one's verdict, killed ones too.
func TestOnlyConfirms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture's tests: not in -short")
	}
	inFixture(t)
	var list bytes.Buffer
	if code := run([]string{"-list", "counter"}, &list, &bytes.Buffer{}); code != 0 {
		t.Fatal("list failed")
	}
	var keys []string
	for _, l := range strings.Split(list.String(), "\n") {
		if k, ok := strings.CutPrefix(strings.TrimSpace(l), "key: "); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) != 3 || !strings.Contains(keys[0], "STATEMENT_REMOVE") || !strings.Contains(keys[2], "STATEMENT_REMOVE") {
		t.Fatalf("the counter's mutants changed: %q", keys)
	}
	// The first by its whole allowlist key, the third by ID: not the
	// deadlocking second.
	var out, errs bytes.Buffer
	code := run([]string{"-work", t.TempDir(), "-only", keys[0] + ",3", "counter"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	got := out.String()
	for _, want := range []string{
		"== counter: 3 mutants, 2 chosen by -only\n",
		"KILLED STATEMENT_REMOVE at counter/counter.go:16:2 in (*Counter).Next: c.mu.Lock()  →  (removed)\n    key: " + keys[0] + "\n",
		"KILLED STATEMENT_REMOVE at counter/counter.go:18:2 in (*Counter).Next: c.n++  →  (removed)\n    key: " + keys[2] + "\n",
		"counter: killed 2, timed out 0, lived 0, allowed 0, not covered 0: efficacy 100.0%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "DEFER_REMOVE") {
		t.Errorf("a mutant not chosen was run:\n%s", got)
	}
}

// TestOnlyRefuses: a name that matches no mutant, an ID with two packages,
// and -only with -sample are usage errors, said before anything runs.
func TestOnlyRefuses(t *testing.T) {
	inFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-only", "0123456789", "counter"}, "-only: no mutant of counter is 0123456789"},
		{[]string{"-only", "2", "counter", "shop"}, "an ID names a mutant of one package"},
		{[]string{"-only", "2", "-sample", "1", "counter"}, "does not go with -sample"},
	} {
		var out, errs bytes.Buffer
		if code := run(tc.args, &out, &errs); code != 2 || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tc.args, code, errs.String(), tc.want)
		}
		if strings.Contains(errs.String(), "[1/") {
			t.Errorf("run(%q) ran a mutant before refusing:\n%s", tc.args, errs.String())
		}
	}
}

// TestTimedOutOnceRunsAgain: a run that times out once, for the machine's
// sake, is run again with twice the allowances, and the second run's
// verdict stands (here killed), saying the first timed out.
func TestTimedOutOnceRunsAgain(t *testing.T) {
	r, bin, cov, _ := deadlock(t)
	s, err := load("counter")
	if err != nil {
		t.Fatal(err)
	}
	m := s.mutants[len(s.mutants)-1]
	if m.Orig != "c.n++" {
		t.Fatalf("the counter's last mutant is %s, want c.n++ removed", m.describe("counter"))
	}
	t.Setenv("COUNTER_SLOW_ONCE", filepath.Join(t.TempDir(), "slow"))
	cov.Took["TestSlowOnce"], cov.Took["TestNext"] = time.Millisecond, time.Millisecond
	cov.Lines[fmt.Sprintf("%s:%d", m.File, m.Line)] = []string{"TestSlowOnce", "TestNext"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v := r.run(ctx, bin, cov, []*Mutant{m})[0]
	// Its allowance and the whole run's are both about the 1 s slack:
	// either may end the first run.
	if v.state != Killed || !strings.Contains(v.note, "after a first run timed out: ") || !strings.Contains(v.note, "past its 1s") {
		t.Fatalf("verdict %s (%s); want %s after a first run timed out", v.state, v.note, Killed)
	}
}

// TestOnlyTellsKeysFromIDs: a key is 10 hex digits (and -N when repeated),
// which may all be decimal digits; it is read as a key, also with two
// packages, and a shorter number as an ID.
func TestOnlyTellsKeysFromIDs(t *testing.T) {
	c, err := parseOnly("0061863389,0061863389-2,12", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	ms := []*Mutant{{ID: 12, Key: "aaaaaaaaaa"}, {ID: 3, Key: "0061863389"}, {ID: 4, Key: "0061863389-2"}, {ID: 61863389, Key: "bbbbbbbbbb"}}
	var got []int
	for _, m := range c.choose(ms) {
		got = append(got, m.ID)
	}
	if fmt.Sprint(got) != "[12 3 4]" || len(c.unmatched()) > 0 {
		t.Errorf("chose %v, unmatched %q; want [12 3 4] and none", got, c.unmatched())
	}
	if _, err := parseOnly("0061863389", 0, 2); err != nil {
		t.Errorf("a key of decimal digits with two packages: %v", err)
	}
}

// TestWarmUpRefusesFailingTests: when the tests fail with no mutant on,
// the package is not measured (exit 2, naming the failure), since every
// mutant would look killed.
func TestWarmUpRefusesFailingTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture's tests: not in -short")
	}
	inFixture(t)
	maps := t.TempDir()
	args := []string{"-maps", maps, "-work", t.TempDir(), "-only", "3", "counter"}
	var out, errs bytes.Buffer
	if code := run(args, &out, &errs); code != 0 {
		t.Fatalf("exit %d with the tests passing: %s", code, errs.String())
	}
	t.Setenv("COUNTER_FAIL", "1")
	out.Reset()
	errs.Reset()
	code := run(args, &out, &errs)
	if code != 2 || !strings.Contains(errs.String(), "counter: its tests fail with no mutant on") || !strings.Contains(errs.String(), "asked to fail") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2, naming the failing test", code, errs.String())
	}
	if strings.Contains(errs.String(), "[1/") || strings.Contains(out.String(), "KILLED") {
		t.Errorf("a mutant ran:\n%s%s", out.String(), errs.String())
	}
}
