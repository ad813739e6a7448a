package harness

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// readAppend is a scenario of n turns that each read a file and append a
// line to it: each turn's golden shows the file read and a diff, literal
// blocks whose indentation is as much again as their text.
func readAppend(n int) []byte {
	var b strings.Builder
	b.WriteString("format: tapeloop/v1\nsetup:\n  workspace:\n    files: {log.txt: \"start\\n\", other.txt: \"kept\\n\"}\n" +
		"  tools: [read_file, append_file]\ninput:\n  - {role: user, content: go}\ntape:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - response:\n      content: \"Turn %[1]d.\"\n      tool_calls:\n"+
			"        - {id: r%[1]d, name: read_file, arguments: '{\"path\": \"log.txt\"}'}\n"+
			"        - {id: w%[1]d, name: append_file, arguments: '{\"path\": \"log.txt\", \"content\": \"line %[1]d\\n\"}'}\n", i)
	}
	b.WriteString("  - response: {content: Done.}\n")
	return []byte(b.String())
}

// bigFiles is a scenario whose workspace holds two files of n lines: the
// agent appends a line to one, which the golden then shows whole, and
// leaves the other, which the golden lists by size and hash.
func bigFiles(n int) []byte {
	var text strings.Builder
	for i := range n {
		fmt.Fprintf(&text, "        line %05d of a file that is long enough to be worth sizing the golden for\n", i)
	}
	return []byte("format: tapeloop/v1\nsetup:\n  workspace:\n    files:\n      log.txt: |\n" + text.String() + "      kept.txt: |\n" + text.String() +
		"  tools: [append_file]\ninput:\n  - {role: user, content: go}\ntape:\n" +
		"  - response:\n      tool_calls:\n        - {id: w1, name: append_file, arguments: '{\"path\": \"log.txt\", \"content\": \"one more\\n\"}'}\n" +
		"  - response: {content: Done.}\n")
}

// TestGoldenIsBuiltInPlace checks that writing a golden allocates little
// more than the golden itself: its buffer is sized for the calls and texts
// up front, instead of doubling up to twice the golden and leaving as much
// again as garbage (what made the golden phase the peak of replay --update
// on issue 21's tape, and a tenth of what Verify allocated on the bench's
// reference scenario).
func TestGoldenIsBuiltInPlace(t *testing.T) {
	for name, text := range map[string][]byte{"many calls": manyResponses(5), "read and append": readAppend(10), "big files": bigFiles(1000)} {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Parse(text, "size.yaml", "size")
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The least of a few writes: the counter is the process's, and
			// something else (a goroutine the run left finishing, a loaded
			// machine's scheduling of it) may allocate during one of them.
			var b []byte
			allocated := uint64(math.MaxUint64)
			for range 5 {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				b, err = o.writeGolden()
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatal(err)
				}
				allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
			}
			t.Logf("golden %d bytes, allocated %d", len(b), allocated)
			if limit := uint64(len(b)) * 3 / 2; allocated > limit {
				t.Errorf("writing a golden of %d bytes allocated %d bytes, more than %d", len(b), allocated, limit)
			}
		})
	}
}
