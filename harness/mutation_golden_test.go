package harness

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// TestGoldenOfLongTexts: a golden holds long texts whole wherever they
// stand: a final text with no turns, the path of an untouched or of a
// changed file, a file's content.
func TestGoldenOfLongTexts(t *testing.T) {
	long := strings.Repeat("x", 2000)
	for _, o := range []*Outcome{
		{Name: "final", Termination: "final_text", Final: long},
		{Name: "untouched path", Termination: "final_text", Workspace: []FileState{{Path: long, Untouched: true, Size: 1, Hash: "0123456789abcdef"}}},
		{Name: "path", Termination: "final_text", Workspace: []FileState{{Path: long, Content: "x"}}},
		{Name: "content", Termination: "final_text", Workspace: []FileState{{Path: "a.txt", Content: long}}},
	} {
		checkGolden(t, o)
	}
}

// TestGoldenKeyOf1000BytesIsPlain: a key of up to 1000 bytes is written
// as a plain key (YAML's limit for one is 1024 characters); a longer one
// as an explicit "? key".
func TestGoldenKeyOf1000BytesIsPlain(t *testing.T) {
	for _, n := range []int{1000, 1001} {
		path := strings.Repeat("p", n)
		o := &Outcome{Name: "keys", Termination: "final_text", Workspace: []FileState{{Path: path, Content: "x"}}}
		checkGolden(t, o)
		got, _ := o.writeGolden()
		plain := strings.Contains(string(got), "\n  "+path+": x\n")
		explicit := strings.Contains(string(got), "\n  ? \""+path+"\"\n  : x\n")
		if plain != (n <= 1000) || explicit != (n > 1000) {
			t.Errorf("a %d-byte key: plain %v, explicit %v\n%s", n, plain, explicit, got)
		}
	}
}

// TestGoldenQuotesTheStartOfADate: text of four digits and "-" is quoted,
// as a date would be; other text starting with a digit is plain.
func TestGoldenQuotesTheStartOfADate(t *testing.T) {
	for s, want := range map[string]string{
		"2024-":      "'2024-'",
		"2024-01-01": "'2024-01-01'",
		"2024-x":     "'2024-x'",
		"1234x":      "1234x",
		"202-4":      "202-4",
	} {
		w := &goldenWriter{}
		w.text(s, false, 2)
		if string(w.buf) != want {
			t.Errorf("%q is written %s, want %s", s, w.buf, want)
		}
	}
}

// TestWithUserTurnsRedactsAndKeepsFailedCalls: a live run's tape has each
// user turn before its model call, redacted when a Redactor is given and
// as spoken when not; a last user turn whose model call failed keeps the
// failed attempts after it.
func TestWithUserTurnsRedactsAndKeepsFailedCalls(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	first := llm.UserMessage("my key is " + key)
	last := llm.UserMessage("and now?")
	o := &Outcome{Turns: []TurnOutcome{
		{Index: 1, User: &first, Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Index: 2, User: &last},
	}}
	recorded := []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Error: "503 unavailable"},
	}
	for _, red := range []*redact.Redactor{nil, redact.Default()} {
		got := o.WithUserTurns(recorded, red)
		if len(got) != 4 || got[0].User == nil || got[1].Response == nil || got[2].User == nil || got[2].User.Content != "and now?" || got[3].Error != "503 unavailable" {
			t.Fatalf("redactor %v: entries %+v; want user, response, user, error", red != nil, got)
		}
		if redacted := !strings.Contains(got[0].User.Content, key); redacted != (red != nil) {
			t.Errorf("redactor %v: the first user turn is %q", red != nil, got[0].User.Content)
		}
	}
	if first.Content != "my key is "+key {
		t.Errorf("the outcome's user turn was changed: %q", first.Content)
	}
}

// TestRedactGoldenByChunksIsRedactingTheWhole: a golden of several chunks
// is redacted as the whole text would be, wherever its keys stand: in the
// first chunk only, in a later one only, at the very end of a line longer
// than a chunk, or nowhere.
func TestRedactGoldenByChunksIsRedactingTheWhole(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	line := "  - a line of the golden that holds nothing secret\n"
	lines := func(n int) string { return strings.Repeat(line, n) }
	perChunk := goldenChunk / len(line)
	// In this order: a chunking that loses or moves bytes fails on a
	// case before the long line, where it could loop.
	cases := []struct{ name, golden string }{
		{"key in the first chunk", "k: " + key + "\n" + lines(3*perChunk)},
		{"key in the third chunk", lines(2*perChunk+10) + "k: " + key + "\n" + lines(10)},
		{"keys in every chunk", strings.Repeat(lines(perChunk-1)+"k: "+key+"\n", 3)},
		{"key ends a long line", lines(3) + strings.Repeat("x", goldenChunk+100) + " " + key + "\n" + lines(perChunk)},
		{"no key", lines(3 * perChunk)},
	}
	r := redact.Default()
	for _, c := range cases {
		got := string(redactGolden([]byte(c.golden), r))
		want := r.Quiet(c.golden)
		if got != want {
			t.Fatalf("%s: the chunked redaction differs from the whole one at %s", c.name, udiff.FirstHunk(want, got))
		}
		if strings.Contains(want, key) || strings.Contains(c.golden, key) != strings.Contains(want, redact.Redacted) {
			t.Errorf("%s: the whole text is not redacted as expected", c.name)
		}
	}
}

// TestRedactGoldenOfLessThanAChunkIsOneText: a golden shorter than a chunk
// is redacted as one text, also when it does not end with a line break:
// its last line is not cut off into a text of its own, where it would
// start a text (and a line beginning with the end of a known secret would
// be taken for the second half of a secret split across chunks).
func TestRedactGoldenOfLessThanAChunkIsOneText(t *testing.T) {
	const key = "Zq7+xW/9kLmN-pRsT_uv42Hd"
	r := redact.New(&redact.Options{Secrets: []redact.Secret{{Kind: "KEY", Value: key}}, SecretEnv: []string{}})
	for _, golden := range []string{
		"name: ends\nnote: T_uv42Hd is how the key ends",
		"name: ends\nT_uv42Hd is how the key ends",
		"name: ends\nkey: " + key,
	} {
		if got, want := string(redactGolden([]byte(golden), r)), r.Quiet(golden); got != want {
			t.Errorf("redactGolden(%q) = %q, want it redacted as one text: %q", golden, got, want)
		}
	}
}

// TestRedactGoldenWorksInChunks: redacting a large golden needs working
// memory of about a chunk, not of the golden, also when a line is longer
// than a chunk (it is a chunk of its own, and the lines after it are
// chunks again).
func TestRedactGoldenWorksInChunks(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool, which holds the chunks' working memory, drops what it is given at random")
	}
	r := redact.New(&redact.Options{SecretEnv: []string{}, Environ: []string{}})
	line := "  - a line of the golden that holds nothing secret\n"
	rest := strings.Repeat(line, (8<<20)/len(line))
	for name, golden := range map[string][]byte{
		"a line of exactly a chunk first":  []byte(strings.Repeat("x", goldenChunk) + "\n" + rest),
		"a line longer than a chunk first": []byte(strings.Repeat("x", goldenChunk+100) + "\n" + rest),
	} {
		// The least of a few runs: the counter is the process's.
		allocated := uint64(math.MaxUint64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := redactGolden(golden, r)
			runtime.ReadMemStats(&after)
			if len(got) != len(golden) {
				t.Fatalf("%s: a golden without secrets changed", name)
			}
			allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
		}
		t.Logf("%s: %d bytes allocated for %d", name, allocated, len(golden))
		if allocated >= uint64(len(golden)) {
			t.Errorf("%s: redacting a golden of %d bytes allocated %d bytes, want working memory of about a chunk (%d)", name, len(golden), allocated, goldenChunk)
		}
	}
}
