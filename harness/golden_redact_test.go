package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		b := []byte("x\n" + c.chunk + c.rest)
		if got := privateKeyEnd(b, 2, 2+len(c.chunk)); got != 2+len(c.chunk)+c.want {
			t.Errorf("%s: end %d, want %d", c.name, got, 2+len(c.chunk)+c.want)
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
