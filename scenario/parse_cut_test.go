package scenario

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/tape"
)

// TestTapeReadEntryByEntry checks that Parse, which reads a tape one entry at
// a time, gives every bundled scenario exactly what reading it whole gives,
// and that a tape that cannot be read in pieces (an alias to an anchor
// outside it) is read whole, with the same result or error.
func TestTapeReadEntryByEntry(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".golden.yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		whole, werr := parse(data, path, "s", whole)
		if werr != nil || whole.NoTape {
			return nil // not a scenario, or one of a test of bad input
		}
		cut, cerr := parseCutFrom(data, path, "s", 0, byEntryCounted)
		if cerr != nil || !reflect.DeepEqual(cut, whole) {
			t.Errorf("%s: read entry by entry, it differs from reading it whole (%v)", path, cerr)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("only %d scenarios with a tape found", n)
	}
	for _, src := range []string{
		"format: tapeloop/v1\ninput: &in [{role: user, content: go}]\ntape:\n  - user: *in\n  - response: {content: a}\n",
		"format: tapeloop/v1\ninput: &in [{role: user, content: go}]\ntape:\n  - response: {content: a}\n  - response: {content: *in}\n",
	} {
		whole, werr := parse([]byte(src), "s.yaml", "s", whole)
		cut, cerr := parseCutFrom([]byte(src), "s.yaml", "s", 0, byEntryCounted)
		if werr == nil || cerr == nil || cerr.Error() != werr.Error() || cut != nil || whole != nil {
			t.Errorf("%q:\nread in pieces: %v\nread whole: %v", src, cerr, werr)
		}
	}
}

// repeat is n copies of line, each with its index for every %[1]d in it.
func repeat(n int, line string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, line, i)
	}
	return b.String()
}

// countedHead is a scenario up to its tape's first entry.
const countedHead = "format: tapeloop/v1\nsetup: {tools: [echo]}\ninput: [{role: user, content: go}]\ntape:\n"

// TestCountedCallsReadAsBefore checks that counting a response's tool_calls
// from their text (byEntryCounted) changes nothing a scenario decodes to:
// each text, with one call more than a response may hold and at the limit,
// decodes to the same scenario or the same error (file, line, key and
// message) read entry by entry with every call parsed (byEntry, what Parse
// did before) and the same decision read whole; and the first cases, whose
// calls can be counted, are refused without their calls being parsed.
func TestCountedCallsReadAsBefore(t *testing.T) {
	max := tape.MaxCallsPerResponse
	for _, c := range []struct {
		name    string
		src     func(n int) string
		counted bool // over the limit, counted from the text
		earlier bool // and refused for something before the calls
	}{
		{"flow mappings", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo, arguments: {text: t%[1]d}}\n") + "  - response: {content: done}\n"
		}, true, false},
		{"block mappings, finish_reason after", func(n int) string {
			return "  - response:\n      content: thinking\n      tool_calls:\n" + repeat(n, "        - id: c%[1]d\n          name: echo\n          arguments:\n            text: t%[1]d\n") + "      finish_reason: tool_calls\n"
		}, true, false},
		{"items as indented as the key", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "      - {id: c%[1]d, name: echo}\n") + "      finish_reason: tool_calls\n  - response: {content: done}\n"
		}, true, false},
		{"comments and blank lines", func(n int) string {
			return "  # the big one\n  - response:\n      tool_calls: # many\n\n" + repeat(n, "        # call %[1]d\n        - {id: c%[1]d, name: echo} # it's call %[1]d\n\n") + "# between\n  - response: {content: done}\n"
		}, true, false},
		{"a flow sequence on one line", func(n int) string {
			return "  - response:\n      tool_calls: [" + strings.TrimSuffix(repeat(n, "{id: c%[1]d, name: echo, arguments: {text: t%[1]d, list: [1, 2]}}, "), ", ") + "]\n"
		}, true, false},
		{"a flow sequence across lines, a trailing comma and comments", func(n int) string {
			return "  - response:\n      tool_calls: [ # many\n" + repeat(n, "        {id: c%[1]d, name: echo}, # %[1]d\n") + "      ] # done\n      finish_reason: tool_calls\n"
		}, true, false},
		{"a request before the response", func(n int) string {
			return "  - request: {tools: [echo]}\n    response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n")
		}, true, false},
		{"an alias in a call to an anchor before", func(n int) string {
			return "  - response:\n      content: &a go\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo, arguments: {text: *a}}\n")
		}, true, false},
		{"merge keys in the calls", func(n int) string {
			return "  - response:\n      tool_calls:\n        - &a {name: echo}\n" + repeat(n-1, "        - <<: *a\n          id: c%[1]d\n")
		}, true, false},
		{"an unknown key before the calls", func(n int) string {
			return "  - response:\n      contents: hi\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n")
		}, true, true},
		{"a wrong content before the calls", func(n int) string {
			return "  - response:\n      content: [a]\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n")
		}, true, true},
		{"a bad entry before", func(n int) string {
			return "  - response: {content: [a]}\n  - response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n")
		}, true, true},
		{"two tool_calls keys", func(n int) string {
			return "  - response:\n      tool_calls:\n        - {id: a, name: echo}\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n")
		}, true, true},
		{"calls quoted", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "        - {id: 'c%[1]d', name: echo, arguments: '{\"text\":\"t\"}'}\n")
		}, true, false},
		{"quoted text across lines that look like calls", func(n int) string {
			return "  - response:\n      tool_calls:\n        - {id: a, name: echo, arguments: {text: \"x\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n") + "        \"}}\n"
		}, false, false},
		{"a flow mapping across lines that look like calls", func(n int) string {
			return "  - response:\n      tool_calls:\n        - {id: a, name: echo, arguments: {text: x\n" + repeat(n, "        - y%[1]d\n") + "        }}\n"
		}, false, false},
		{"an anchor in the calls used after them", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: &n echo}\n") + "      finish_reason: *n\n"
		}, false, false},
		{"a tag in a flow sequence", func(n int) string {
			return "  - response:\n      tool_calls: [" + strings.TrimSuffix(repeat(n, "!!map {id: c%[1]d, name: echo}, "), ", ") + "]\n"
		}, false, false},
		{"a tab in the indentation", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "        - id: c%[1]d\n\t  name: echo\n")
		}, false, false},
		{"calls in a request's messages", func(n int) string {
			return "  - request:\n      messages:\n        - role: assistant\n          tool_calls:\n" + repeat(n, "            - {id: c%[1]d, name: echo}\n") + "    response: {content: done}\n"
		}, false, false},
		{"a second document after", func(n int) string {
			return "  - response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n") + "---\nformat: tapeloop/v1\n"
		}, false, false},
		{"a text block holding calls", func(n int) string {
			return "  - response:\n      content: |\n" + repeat(n, "        - {id: c%[1]d, name: echo}\n") + "  - response: {content: done}\n"
		}, false, false},
	} {
		for _, n := range []int{max, max + 1} {
			t.Run(fmt.Sprintf("%s/%d", c.name, n), func(t *testing.T) {
				src := []byte(countedHead + c.src(n))
				before, berr := parseCutFrom(src, "s.yaml", "s", 0, byEntry)
				got, gerr := parseCutFrom(src, "s.yaml", "s", 0, byEntryCounted)
				if fmt.Sprint(gerr) != fmt.Sprint(berr) || !reflect.DeepEqual(got, before) {
					t.Fatalf("calls counted: %v\nparsed: %v", gerr, berr)
				}
				if _, werr := parseCutFrom(src, "s.yaml", "s", 0, whole); (werr == nil) != (gerr == nil) {
					t.Fatalf("read whole: %v\nentry by entry: %v", werr, gerr)
				}
				d := &yamlx.Decoder{File: "s.yaml", Count: yamlx.Counted{Keys: []string{"response", "tool_calls"}, Over: max}}
				if counted := countedAny(t, d, src); counted != (c.counted && n > max) {
					t.Errorf("counted %v, want %v (%v)", counted, c.counted && n > max, gerr)
				}
				if c.counted && !c.earlier && n > max && (gerr == nil || !strings.Contains(gerr.Error(), fmt.Sprintf("%d calls, more than the %d one response may hold", n, max))) {
					t.Errorf("got %v, want the count refused", gerr)
				}
			})
		}
	}
}

// countedAny reports whether d, reading src entry by entry, counted the
// calls of some response rather than parsing them: a sequence holding one
// node many times.
func countedAny(t *testing.T, d *yamlx.Decoder, src []byte) bool {
	t.Helper()
	root, err := d.ParseCut(src, "tape")
	if err != nil || root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	found := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if !d.IsCut(root.Content[i+1]) {
			continue
		}
		_ = d.EachItem(root.Content[i+1], func(_ int, item *yaml.Node) error {
			found = found || holdsRepeated(item)
			return nil
		})
	}
	return found
}

// holdsRepeated reports whether a sequence under n holds the same node
// twice, which no parse gives.
func holdsRepeated(n *yaml.Node) bool {
	if n.Kind == yaml.SequenceNode && len(n.Content) > 1 && n.Content[0] == n.Content[1] {
		return true
	}
	for _, c := range n.Content {
		if holdsRepeated(c) {
			return true
		}
	}
	return false
}

// TestRefusingTooManyCallsParsesNoneOfThem checks issue 39's file with
// 20,000 calls in one response (1.2 MB) is refused without its calls
// becoming YAML nodes: Parse allocates less than twice the file to refuse
// it, where parsing the calls before counting them allocated ~25 times
// it (31 MB) and held it all at once.
func TestRefusingTooManyCallsParsesNoneOfThem(t *testing.T) {
	const n = 20000
	src := []byte(countedHead + "  - response:\n      tool_calls:\n" + repeat(n, "        - {id: c%[1]d, name: echo, arguments: {text: t%[1]d}}\n") + "  - response: {content: done}\n")
	want := fmt.Sprintf("s.yaml:7: tape[0].response.tool_calls: %d calls, more than the %d one response may hold", n, tape.MaxCallsPerResponse)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Parse(src, "s.yaml", "s")
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing %d calls in %d bytes allocated %d bytes in %d allocations", n, len(src), allocated, after.Mallocs-before.Mallocs)
	if allocated > 2*uint64(len(src)) {
		t.Errorf("refusing %d calls in %d bytes allocated %d bytes (%.1f times the text), more than twice the text", n, len(src), allocated, float64(allocated)/float64(len(src)))
	}
}

// TestTooManyCallsRefusedBeforeTheirSyntax pins the one difference counting
// makes: in a file whose tape is read an entry at a time (cutFrom bytes or
// more), a response with more calls than it may hold is refused for that,
// at its tool_calls, before any of its calls is parsed, so a syntax error
// among them is no longer what refuses the file (read with every call
// parsed, it was); fixing the count shows it.
func TestTooManyCallsRefusedBeforeTheirSyntax(t *testing.T) {
	max := tape.MaxCallsPerResponse
	calls := "  - response:\n      tool_calls:\n" + repeat(max, "        - {id: c%[1]d, name: echo}\n")
	for _, c := range []struct{ name, bad, parsed string }{
		{"a brace too many", "        - {id: x, name: echo}}\n", "s.yaml:7: invalid YAML: did not find expected '-' indicator"},
		{"a mapping in a plain text", "        - a: b: c\n", "s.yaml:1007: invalid YAML: mapping values are not allowed in this context"},
		{"an alias to no anchor", "        - {id: x, name: echo, arguments: {text: *nope}}\n", "s.yaml:1007: invalid YAML: unknown anchor 'nope' referenced"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(countedHead + calls + c.bad)
			if _, err := parseCutFrom(src, "s.yaml", "s", 0, byEntry); err == nil || err.Error() != c.parsed {
				t.Errorf("calls parsed: %v, want %s", err, c.parsed)
			}
			want := fmt.Sprintf("s.yaml:7: tape[0].response.tool_calls: %d calls, more than the %d one response may hold", max+1, max)
			if _, err := parseCutFrom(src, "s.yaml", "s", 0, byEntryCounted); err == nil || err.Error() != want {
				t.Errorf("calls counted: %v, want %s", err, want)
			}
			fixed := []byte(countedHead + "  - response:\n      tool_calls:\n" + repeat(max-1, "        - {id: c%[1]d, name: echo}\n") + c.bad)
			if _, err := parseCutFrom(fixed, "s.yaml", "s", 0, byEntryCounted); err == nil || !strings.Contains(err.Error(), "invalid YAML") {
				t.Errorf("with %d calls, counted: %v, want the syntax error", max, err)
			}
		})
	}
}
