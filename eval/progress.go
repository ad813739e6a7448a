package eval

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ProgressPrinter returns an Options.Progress that writes to w. On a
// terminal it redraws one line in place: a bar with trials done/total, the
// pass rate so far, tokens, cost and the time left; call the returned done
// to end that line. Otherwise it writes a plain line when at least every
// has passed since the last one (by Progress.Elapsed), and always for the
// last trial; every zero means a line per trial.
func ProgressPrinter(w io.Writer, terminal bool, every time.Duration) (progress func(Progress), done func()) {
	var last time.Duration
	var printed, drawn bool
	progress = func(p Progress) {
		if terminal {
			fmt.Fprintf(w, "\r\x1b[K%s", bar(p)) // carriage return, clear the line
			drawn = true
			return
		}
		if printed && p.Elapsed-last < every && p.Done < p.Total {
			return
		}
		printed, last = true, p.Elapsed
		fmt.Fprintln(w, line(p))
	}
	done = func() {
		if drawn {
			fmt.Fprintln(w)
			drawn = false
		}
	}
	return progress, done
}

const barWidth = 24

func bar(p Progress) string {
	filled := 0
	if p.Total > 0 {
		filled = barWidth * p.Done / p.Total
	}
	return fmt.Sprintf("[%s%s] %s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), line(p))
}

func line(p Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d trials", p.Done, p.Total)
	if p.Scored > 0 {
		fmt.Fprintf(&b, ", %.0f%% passed", 100*float64(p.Passed)/float64(p.Scored))
	}
	if p.Errors > 0 {
		fmt.Fprintf(&b, ", %d errors", p.Errors)
	}
	fmt.Fprintf(&b, ", %d tokens", p.Tokens.Input+p.Tokens.Output)
	if p.Cost > 0 {
		fmt.Fprintf(&b, ", $%.4f", p.Cost)
	}
	if eta := p.ETA(); eta > 0 {
		fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
	}
	return b.String()
}
