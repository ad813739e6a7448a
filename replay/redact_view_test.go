package replay

import (
	"strings"
	"testing"
)

// TestRedactViewsShareNoState redacts texts of falling length one after the
// other, so that each view reuses the memory of the one before: a secret of
// an earlier text must not be found in a later one, and one written in an
// escaped, wrapped or encoded form must still be found after a longer text.
func TestRedactViewsShareNoState(t *testing.T) {
	r := NewRedactor(&RedactorOptions{SecretEnv: []string{}, Secrets: []Secret{{Kind: "k", Value: knownKey}}})
	long := strings.Repeat("line of ordinary text\n", 400) + "key: " + knownKey + "\n"
	if got := r.Quiet(long); strings.Contains(got, knownKey) || !strings.Contains(got, Redacted) {
		t.Fatalf("long text: the key is not redacted")
	}
	plain := strings.Repeat("x", 30) + "\nsome words"
	if got := r.Quiet(plain); got != plain {
		t.Errorf("Quiet(%q) = %q after a text holding the key, want it unchanged", plain, got)
	}
	for _, form := range secretForms() {
		r.Quiet(long)
		got := r.Quiet("a " + form.text + " b")
		for _, p := range form.probes {
			if strings.Contains(got, p) {
				t.Errorf("%s after a longer text: %q still holds %q", form.name, got, p)
			}
		}
	}
}

// TestGitHubTokenPrefixes checks each GitHub token prefix the shape's
// hints name is redacted.
func TestGitHubTokenPrefixes(t *testing.T) {
	r := NewRedactor(&RedactorOptions{SecretEnv: []string{}})
	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
		tok := p + strings.Repeat("aB3", 12)
		if got := r.Quiet("token " + tok + " end"); got != "token "+Redacted+" end" {
			t.Errorf("%s: got %q", p, got)
		}
	}
	tok := "github_pat_" + strings.Repeat("aB3_", 12)
	if got := r.Quiet(tok); got != Redacted {
		t.Errorf("github_pat_: got %q", got)
	}
}
