package eval

import (
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/report"
)

func TestProgressPlainLines(t *testing.T) {
	var b strings.Builder
	progress, done := ProgressPrinter(&b, false, 10*time.Second)
	for i := 1; i <= 4; i++ {
		progress(Progress{Done: i, Total: 4, Passed: i - 1, Scored: i, Tokens: report.Tokens{Input: 100 * i, Output: 10 * i}, Elapsed: time.Duration(i) * 6 * time.Second})
	}
	done()
	// At 6s (the first), not at 12s (6s later), at 18s (12s later), and the last.
	want := "1/4 trials, 0% passed, 110 tokens, ETA 18s\n" +
		"3/4 trials, 67% passed, 330 tokens, ETA 6s\n" +
		"4/4 trials, 75% passed, 440 tokens\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	progress, done := ProgressPrinter(&b, true, 0)
	progress(Progress{Done: 1, Total: 4, Passed: 1, Scored: 1, Errors: 1, Cost: 0.0123, Elapsed: time.Second})
	progress(Progress{Done: 4, Total: 4, Passed: 3, Scored: 4, Elapsed: 4 * time.Second})
	done()
	want := "\r\x1b[K[######..................] 1/4 trials, 100% passed, 1 errors, 0 tokens, $0.0123, ETA 3s" +
		"\r\x1b[K[########################] 4/4 trials, 75% passed, 0 tokens\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// Off a terminal, a progress line is printed once the interval has passed
// since the last one: exactly at the interval counts.
func TestProgressPrinterAtTheInterval(t *testing.T) {
	var b strings.Builder
	progress, done := ProgressPrinter(&b, false, 10*time.Second)
	for _, p := range []Progress{{Done: 1, Total: 4}, {Done: 2, Total: 4, Elapsed: 9 * time.Second}, {Done: 3, Total: 4, Elapsed: 10 * time.Second}} {
		progress(p)
	}
	done()
	if got := strings.Count(b.String(), "\n"); got != 2 || !strings.Contains(b.String(), "3/4 trials") || strings.Contains(b.String(), "2/4 trials") {
		t.Errorf("lines:\n%s\nwant 1/4 and 3/4 (10 s after it), not 2/4 (9 s)", b.String())
	}
}

// A progress line names only what there is: no pass rate before a trial is
// scored, no errors, cost or time left when there are none; a bar with no
// trials to run is empty (no division by zero).
func TestProgressLineLeavesOutZeros(t *testing.T) {
	if got, want := line(Progress{Done: 1, Total: 1}), "1/1 trials, 0 tokens"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	if got, want := bar(Progress{}), "[........................] 0/0 trials, 0 tokens"; got != want {
		t.Errorf("bar of no trials = %q, want %q", got, want)
	}
}
