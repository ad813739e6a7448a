package main

import (
	"io"
	"testing"
	"time"
)

// TestWatchTimesEachTest follows -test.v output as the testing package
// writes it: a test's clock runs from RUN or CONT to its PASS, FAIL or SKIP
// line, a pause stops it, subtests and tests not followed (one with no time
// in the coverage map, or a line a test prints itself) are not timed.
func TestWatchTimesEachTest(t *testing.T) {
	now := time.Unix(1000, 0)
	w := newWatch(map[string]time.Duration{"TestA": 5 * time.Second, "TestB": 20 * time.Second, "TestP": 3 * time.Second},
		func() time.Time { return now })
	say := func(s string) {
		t.Helper()
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	late := func(want string) {
		t.Helper()
		got, _, ok := w.overdue()
		if want == "" && ok {
			t.Fatalf("at %v: %s overdue, want none", now.Unix(), got)
		}
		if want != "" && got != want {
			t.Fatalf("at %v: overdue %q (%v), want %q", now.Unix(), got, ok, want)
		}
	}
	say("=== RUN   TestA\n=== RUN   TestA/sub\n    --- PASS: TestA/sub (0.00s)\n=== RUN   TestUntimed\n")
	now = now.Add(5 * time.Second)
	late("") // exactly at its allowance: not past it
	now = now.Add(time.Millisecond)
	late("TestA")
	say("--- PASS: TestA (5.00s)\n--- PASS: TestUntimed (0.00s)\n")
	late("")
	// A line written in two pieces, and a test's own output that looks like
	// framing for a test not asked for.
	say("=== RUN   Te")
	say("stP\n")
	say("=== PAUSE TestP\n=== RUN   TestB\n    === RUN   TestA\nwhat a test prints\n")
	now = now.Add(10 * time.Second)
	late("") // TestP paused; TestB within its 20 s
	say("--- SKIP: TestB (10.00s)\n=== CONT  TestP\n")
	now = now.Add(3 * time.Second)
	late("")
	say("=== NAME  TestP\n    p_test.go:9: still going\n")
	now = now.Add(time.Second)
	late("TestP")
	say("--- FAIL: TestP (4.00s)\n")
	late("")
}
