package main

import (
	"io"
	"testing"
	"time"
)

// TestWatchTimesEachTest follows -test.v=test2json output as the testing
// package writes it (framing lines start with ^V): a test's clock runs from
// RUN or CONT to its PASS, FAIL or SKIP line, a pause stops it; subtests,
// tests not followed (no time in the coverage map) and a test's own output
// that looks like framing are not timed; framing after output left
// unended still counts.
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
	say("\x16=== RUN   TestA\nno newline here\x16=== RUN   TestA/sub\n    a_test.go:5: hi\n\x16--- PASS: TestA/sub (0.00s)\n\x16=== RUN   TestUntimed\n")
	now = now.Add(5 * time.Second)
	late("") // exactly at its allowance: not past it
	now = now.Add(time.Millisecond)
	late("TestA")
	say("printed by TestA\x16--- PASS: TestA (5.00s)\n\x16--- PASS: TestUntimed (0.00s)\n")
	late("")
	// A line written in pieces, and output that looks like framing but is
	// a test's own (no ^V): TestB's RUN line is not framing.
	say("\x16=== RUN   Te")
	say("stP\n\x16")
	say("=== PAUSE TestP\n=== RUN   TestB\n--- PASS: TestP (0.00s)\n")
	now = now.Add(21 * time.Second)
	late("") // TestP paused; TestB not started
	say("\x16=== RUN   TestB\n")
	now = now.Add(21 * time.Second)
	late("TestB")
	say("\x16--- SKIP: TestB (21.00s)\n\x16=== CONT  TestP\n")
	now = now.Add(3 * time.Second)
	late("")
	say("\x16=== NAME  TestP\n    p_test.go:9: still going\n")
	now = now.Add(time.Second)
	late("TestP")
	say("\x16--- FAIL: TestP (4.00s)\n")
	late("")
}
