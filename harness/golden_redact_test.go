package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/replay"
)

// TestGoldenIsRedacted: a golden never holds a secret a tool read from
// the workspace (issue 21, item 5); one written where a known secret was
// redacted still passes, and is not rewritten, where the redaction does
// not know it.
func TestGoldenIsRedacted(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	o := &Outcome{Name: "g", Termination: "final_text", Final: "the key is " + key + "\nnext line"}
	got, err := o.Golden()
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
		if red := redactGolden([]byte(long), replay.NewRedactor(nil)); strings.Contains(string(red), key[10:]) || strings.Contains(string(red), key[:12]) || !strings.Contains(string(red), replay.Redacted) {
			t.Errorf("a key across a chunk's end was left: %q", red[len(red)-60:])
		}
	}
}
