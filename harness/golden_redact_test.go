package harness

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
)

// TestGoldenIsRedacted: a golden never holds a secret a tool read from
// the workspace (issue 21, item 5); one written where a known secret was
// redacted still passes, and is not rewritten, where the redaction does
// not know it.
func TestGoldenIsRedacted(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	o := &Outcome{Name: "g", Termination: "final_text", Final: "the key is " + key + "\nnext line"}
	got, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), key) || !strings.Contains(string(got), "the key is [REDACTED]\n") || !strings.Contains(string(got), "next line") {
		t.Fatalf("golden:\n%s", got)
	}
	// Written with a known value redacted; compared without it.
	path := filepath.Join(t.TempDir(), "g.golden.yaml")
	want := "final: pw [REDACTED] ok\n"
	os.WriteFile(path, []byte(want), 0o644)
	if err := CompareGolden(path, []byte("final: pw hunter2-pw ok\n")); err != nil {
		t.Errorf("a golden with a redacted value does not match the value: %v", err)
	}
	if err := CompareGolden(path, []byte("final: pw hunter2-pw ko\n")); err == nil {
		t.Error("a golden matched a different text")
	}
	if err := CompareGolden(path, []byte("final: pw x\nextra [REDACTED] ok\n")); err == nil {
		t.Error("a redaction stood for a line break")
	}
	if updated, err := updateGolden(path, []byte("final: pw hunter2-pw ok\n")); err != nil || updated {
		t.Errorf("updateGolden rewrote a redacted golden: %v %v", updated, err)
	}
	// Long goldens are redacted chunk by chunk, in whole lines: a key on a
	// line longer than a chunk, or across the chunk size, is found whole.
	for _, long := range []string{
		strings.Repeat("x", goldenChunk-10) + " " + key + " y\n",
		strings.Repeat("x\n", goldenChunk/2-8) + "ab " + key + "\nz\n",
	} {
		if red := redactGolden([]byte(long), redact.Default()); strings.Contains(string(red), key[10:]) || strings.Contains(string(red), key[:12]) || !strings.Contains(string(red), redact.Redacted) {
			t.Errorf("a key across a chunk's end was left: %q", red[len(red)-60:])
		}
	}
}

// TestGoldenRedactsAPrivateKeyAcrossChunks: a private key in a golden
// longer than a chunk is redacted whole wherever it stands, its END line
// and every line of its body included, even when a chunk's end falls
// inside it.
func TestGoldenRedactsAPrivateKeyAcrossChunks(t *testing.T) {
	const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat(body+"\n", 30) + "-----END RSA PRIVATE KEY-----\n"
	line := "a line of a file that holds nothing secret\n"
	lines := goldenChunk / (len(line) + 4) // as indented in the golden
	for _, n := range []int{lines - 60, lines - 20, lines - 5, lines} {
		o := &Outcome{Name: "pem", Termination: "final_text", Workspace: []FileState{
			{Path: "a.txt", Content: strings.Repeat(line, n)},
			{Path: "id_rsa", Content: key},
			{Path: "z.txt", Content: strings.Repeat(line, 10)},
		}}
		got, err := o.Golden(redact.Default())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), body) || strings.Contains(string(got), "END RSA PRIVATE KEY") || !strings.Contains(string(got), "  id_rsa: |\n    "+redact.Redacted+"\n  z.txt: |\n") {
			i := max(strings.Index(string(got), "id_rsa"), 0)
			t.Errorf("a key after %d lines is not redacted whole:\n%s", n, got[i:min(i+400, len(got))])
		}
	}
}

// TestPrivateKeyEnd: a chunk is extended past a private key block it
// opens, to the end of the END marker's line, or of the text when there
// is none; a chunk that opens none, or closes the one it opens, is kept.
func TestPrivateKeyEnd(t *testing.T) {
	const begin, end = "-----BEGIN EC PRIVATE KEY-----\n", "-----END EC PRIVATE KEY-----\n"
	for _, c := range []struct {
		name, chunk, rest string
		want              int // bytes of rest taken into the chunk
	}{
		{"no key", "a\n", "b\n", 0},
		{"a closed key", "a\n" + begin + "k\n" + end, "b\n", 0},
		{"an open key", "a\n" + begin + "k\n", "k\n" + end + "b\n", len("k\n" + end)},
		{"two open keys", begin + "k\n", begin + "k\n" + end + "b\n", len(begin + "k\n" + end)},
		{"an END marker with no line break", begin, "k\n" + strings.TrimSuffix(end, "\n"), len("k\n"+end) - 1},
		{"no END marker", begin, "k\nk\n", len("k\nk\n")},
		{"a marker with no BEGIN", "a PRIVATE KEY-----\n", "b\n", 0},
		{"an open key, a bare marker after it", begin, "PRIVATE KEY-----\n" + end + "b\n", len("PRIVATE KEY-----\n" + end)},
		{"an END marker with text after it", begin, "k\n-----END EC PRIVATE KEY----- x\nb\n", len("k\n-----END EC PRIVATE KEY----- x\n")},
	} {
		b := []byte(c.chunk + c.rest)
		if got, ok := privateKeyEnd(b, len(c.chunk), true); got != len(c.chunk)+c.want || !ok {
			t.Errorf("%s: end %d (%v), want %d", c.name, got, ok, len(c.chunk)+c.want)
		}
		// Streamed, with more text to come, the end is known only where
		// the END marker's line break is in b.
		got, ok := privateKeyEnd(b, len(c.chunk), false)
		if open := c.name == "no END marker" || c.name == "an END marker with no line break"; ok == open || ok && got != len(c.chunk)+c.want {
			t.Errorf("%s, more to come: end %d (%v), want %d (%v)", c.name, got, ok, len(c.chunk)+c.want, !open)
		}
	}
}

// TestUpdateGoldenNeverUnredacts: an update of a golden that redacted a
// value (written with --redact-env, say) made where the redaction does not
// know it keeps [REDACTED] on every line that still holds the value, while
// it takes the lines that changed (issue 39, items 2 and 3).
func TestUpdateGoldenNeverUnredacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.golden.yaml")
	os.WriteFile(path, []byte("turns:\n  - result: value [REDACTED]\nfinal: It holds [REDACTED].\n"), 0o644)
	got := "turns:\n  - result: value plainvalue-9QmZ\n  - result: a new turn\nfinal: It says plainvalue-9QmZ now.\n"
	updated, err := updateGolden(path, []byte(got))
	if err != nil || !updated {
		t.Fatalf("updateGolden: %v %v", updated, err)
	}
	data, _ := os.ReadFile(path)
	want := "turns:\n  - result: value [REDACTED]\n  - result: a new turn\nfinal: It says plainvalue-9QmZ now.\n"
	if string(data) != want {
		t.Errorf("golden:\n%s\nwant:\n%s", data, want)
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
