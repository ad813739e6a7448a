package redact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRedactViewsShareNoState redacts texts of falling length one after the
// other, so that each view reuses the memory of the one before: a secret of
// an earlier text must not be found in a later one, and one written in an
// escaped, wrapped or encoded form must still be found after a longer text.
func TestRedactViewsShareNoState(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "k", Value: knownKey}}})
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
	r := New(&Options{SecretEnv: []string{}})
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

// goldenLike is a text shaped like a golden file: short indented lines of
// YAML, prose, JSON arguments and diffs, about 7 KB, holding no secret.
func goldenLike() string {
	var b strings.Builder
	b.WriteString("name: ten-turns\ntermination: final_text\niterations: 11\nturns:\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "  - turn: %d\n    response:\n      content: 'Turn %d: reading and appending.'\n    calls:\n", i, i)
		fmt.Fprintf(&b, "      - id: r%d\n        name: read_file\n        arguments: '{\"path\": \"log.txt\"}'\n        result: |\n          start\n", i)
		fmt.Fprintf(&b, "      - id: w%d\n        name: append_file\n        arguments: '{\"path\": \"log.txt\", \"content\": \"line %d\\n\"}'\n", i, i)
		fmt.Fprintf(&b, "        result: appended 7 bytes to log.txt (%d bytes)\n    diff: |\n      diff --git a/log.txt b/log.txt\n      --- a/log.txt\n      +++ b/log.txt\n       start\n      +line %d\n", 6+7*i, i)
	}
	b.WriteString("final: Done.\nworkspace:\n  - path: log.txt\n    content: |\n      start\n")
	return b.String()
}

// BenchmarkRedactGolden measures the default policy's redaction of a
// golden-sized text that holds no secret: what every golden pays.
func BenchmarkRedactGolden(b *testing.B) {
	r := New(&Options{Environ: []string{}})
	text := goldenLike()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if r.Quiet(text) != text {
			b.Fatal("a text without secrets was changed")
		}
	}
}

// TestViewDecodesAlikeWithAndWithoutMaps: the text and folded text a view
// matches on are decoded once without the map to the original and again
// with it (index) when something is found; both passes must give the same
// text, folded text and line breaks, and the map must lead each decoded
// byte back to what it came from.
func TestViewDecodesAlikeWithAndWithoutMaps(t *testing.T) {
	pieces := []string{"a", "Z", " ", "\t", "\n", "\r\n", "\r", `\n`, `\r\n`, `\u000a`, `\"`, `\\`, `\/`, `\t`,
		`\u0041`, `\ud83d\ude00`, `\ud83d`, "%41", "%4", "%", `\`, `\u00`, "é", "sk-", "line of text "}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		v := newView(s)
		text, folded, breaks := string(v.text), string(v.folded), slices.Clone(v.breaks)
		v.index()
		w := &view{orig: s}
		w.decode(nil, nil, true)
		if string(w.text) != text || string(w.folded) != folded || !slices.Equal(w.breaks, breaks) {
			t.Fatalf("%q: without maps %q %q %v, with maps %q %q %v", s, text, folded, breaks, w.text, w.folded, w.breaks)
		}
		if len(v.from) != len(text) || len(v.to) != len(text) || len(v.foldAt) != len(folded) {
			t.Fatalf("%q: maps of %d, %d and %d entries for %d bytes of text and %d folded", s, len(v.from), len(v.to), len(v.foldAt), len(text), len(folded))
		}
		for i := range text {
			if v.from[i] >= v.to[i] || v.to[i] > len(s) || i > 0 && v.from[i] < v.from[i-1] {
				t.Fatalf("%q: text[%d] comes from [%d, %d)", s, i, v.from[i], v.to[i])
			}
			if v.to[i]-v.from[i] == 1 && s[v.from[i]] != text[i] {
				t.Fatalf("%q: text[%d] = %q comes from %q", s, i, text[i], s[v.from[i]:v.to[i]])
			}
		}
		v.release()
	}
}

// TestHintedShapesAreThoseHoldingAHint: the one pass that picks the key
// shapes to search picks exactly those one of whose hints the text holds.
func TestHintedShapesAreThoseHoldingAHint(t *testing.T) {
	shapes := keyShapes()
	if len(shapes) > 64 {
		t.Fatalf("%d key shapes do not fit the 64 bits of hintedShapes", len(shapes))
	}
	pieces := []string{"a", " ", "\n", "s", "k", "-", "g", "h", "p", "_", "A", "K", "I", "S", "z", "x", "o", "f", "e", "y", "J",
		"sk", "gh", "github_pa", "AKI", "AS", "AIz", "xo", "hf", "eyJ", "sk-", "ghr_", "github_pat_", "ASIA", "hf_", "xox", "ya", "ya29", "ya29."}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := []byte(b.String())
		got := hintedShapes(text)
		for i, ks := range shapes {
			if want := containsAny(text, ks.hints...); (got&(1<<i) != 0) != want {
				t.Fatalf("%q: %s picked %v, holds one of its hints %v", text, ks.kind, got&(1<<i) != 0, want)
			}
		}
	}
}

// TestReleasedViewMemoryIsReused: redacting a text gives the memory its
// view decoded into back for the next text, up to maxPooledView bytes (a
// text of half that: text and folded share the memory); a larger one is
// left to the garbage collector, so that one huge text does not hold its
// memory for the life of the process. The text with memory to reuse must
// therefore allocate less than half as often (1 against 28 today; the
// counts vary by a few when nothing is reused, so a bare "less" could
// pass by chance).
func TestReleasedViewMemoryIsReused(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops what it is given at random")
	}
	r := New(&Options{SecretEnv: []string{}})
	// The least of a few measures: the count is the process's, and another
	// goroutine (one a test before left finishing) may allocate meanwhile.
	allocs := func(n int) float64 {
		text := strings.Repeat("line of text\n", n/13+1)[:n]
		least := math.Inf(1)
		for range 5 {
			least = min(least, testing.AllocsPerRun(10, func() {
				if r.Quiet(text) != text {
					t.Fatal("a text without secrets was changed")
				}
			}))
		}
		return least
	}
	kept, dropped := allocs(maxPooledView/2), allocs(maxPooledView/2+1)
	t.Logf("allocations a redaction: %v for %d bytes, %v for one byte more", kept, maxPooledView/2, dropped)
	if 2*kept >= dropped {
		t.Errorf("a text of %d bytes allocates %v times, one of a byte more %v: want the first to reuse its memory (less than half as many), the second not", maxPooledView/2, kept, dropped)
	}
}
