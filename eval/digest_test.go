package eval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestDigestFollowsTheSeedTreesNames: a setup.workspace.from tree whose
// file is renamed, or whose bytes move from one file to another, is a new
// scenario content, so --resume runs its trials again instead of reusing
// the old verdicts.
func TestDigestFollowsTheSeedTreesNames(t *testing.T) {
	dir := t.TempDir()
	const text = "format: tapeloop/v1\nsetup:\n  workspace: {from: seed}\n  tools: [read_file]\ninput: [{role: user, content: read}]\ntape: []\nexpect:\n  termination: final_text\n"
	if err := os.WriteFile(filepath.Join(dir, "d.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	digest := func(files map[string]string) string {
		t.Helper()
		seed := filepath.Join(dir, "seed")
		if err := os.RemoveAll(seed); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(seed, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(seed, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := scenario.Load(filepath.Join(dir, "d.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		d := scenarioDigest(s)
		if d == "" {
			t.Fatalf("no digest for %v", files)
		}
		return d
	}
	base := digest(map[string]string{"notes.txt": "hello"})
	if again := digest(map[string]string{"notes.txt": "hello"}); again != base {
		t.Errorf("the same tree: digest %s, then %s", base, again)
	}
	for _, files := range []map[string]string{
		{"todo.txt": "hello"},
		{"notes.txt": "hel", "other.txt": "lo"},
		{"notes.txt": "hello", "other.txt": ""},
	} {
		if d := digest(files); d == base {
			t.Errorf("tree %q has the digest of {notes.txt: hello}", files)
		}
	}
}
