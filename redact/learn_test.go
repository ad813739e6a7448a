package redact

import (
	"slices"
	"testing"
)

func TestHidden(t *testing.T) {
	for _, tc := range []struct {
		rec, act string
		want     []string
	}{
		{"You are terse. Key: [REDACTED]. Be kind.", "You are brief. Key: plainvalue-9QmZ. Be kind.", []string{"plainvalue-9QmZ"}},
		{"[REDACTED] is the key", "sk-live-12345678 is the key, now", []string{"sk-live-12345678"}},
		{"the key is [REDACTED]", "so: the key is abcdefgh12345", []string{"abcdefgh12345"}},
		{"a=[REDACTED] b=[REDACTED]\n", "a=first-value-1 b=second-value-2\n", []string{"first-value-1", "second-value-2"}},
		{"Key: [REDACTED].", "Key: short.", nil},                     // shorter than a secret
		{"Key: [REDACTED].", "Key: two words here.", nil},            // not one token
		{"Key: [REDACTED].", "Key: [REDACTED].", nil},                // still redacted
		{"no redaction", "no redaction at all", nil},                 //
		{"Key: [REDACTED].", "The prompt was rewritten whole.", nil}, // no context left
		// A Redacted stands for one secret's token, as Matches reads it:
		// structure after the token is the text's, not the secret's.
		{"?key=[REDACTED] and go.", "?key=plainvalue-9QmZ&admin=1 and go.", []string{"plainvalue-9QmZ"}},
		{"?key=[REDACTED] and go.", "?key=plainvalue-9QmZ%2Fx&y and go.", []string{"plainvalue-9QmZ%2Fx"}},
		{"k: [REDACTED]\n", "k: dGhpcyBpcyBhIGtleQ==#frag\n", []string{"dGhpcyBpcyBhIGtleQ=="}},
		{"?key=[REDACTED] and go.", "?key=abc&admin=1 and go.", nil}, // the token is too short
		{"?key=[REDACTED] and go.", "?key=&admin=1234 and go.", nil}, // no token at all
		// The recorded text is located by its start or its end where
		// the Redacted is at one of them: here only the start ...
		{"[REDACTED] is the key for every order", "sk-live-12345678 is the key for all orders", []string{"sk-live-12345678"}},
		// ... here only the end ...
		{"Please always use the key [REDACTED]", "Please use the key abcdefgh1234", []string{"abcdefgh1234"}},
		// ... and a word starting the new text is no secret where the
		// recorded one followed other text.
		{"Sign with [REDACTED] before sending.", "Approved-by-ops before sending, signed.", nil},
		// Every place the context (up to 16 bytes a side, on the
		// Redacted's line) fits gives a value: a key now written twice
		// is learned twice, though a longer context fits once.
		{"API_KEY=[REDACTED]\nREGION=eu\n", "API_KEY=k-first-1234\nREGION=eu\nAPI_KEY=k-second-5678\n", []string{"k-first-1234", "k-second-5678"}},
		{"Use the deploy key [REDACTED] now.", "Use the deploy key dk-first-12345 now. Or the deploy key dk-second-6789 now.", []string{"dk-first-12345", "dk-second-6789"}},
		{"key [REDACTED] is the deploy key for now", "key dk-first-12345 is the deploy key for now; key dk-second-6789 is the deploy key for later", []string{"dk-first-12345", "dk-second-6789"}},
	} {
		if got := Hidden(tc.rec, tc.act); !slices.Equal(got, tc.want) {
			t.Errorf("Hidden(%q, %q) = %q, want %q", tc.rec, tc.act, got, tc.want)
		}
	}
}

// TestRedactorHidden: a value the policy knows, whatever characters it
// holds, is the policy's to redact and is never learned, whole or in part;
// what it does not know is learned as the package's Hidden learns it.
func TestRedactorHidden(t *testing.T) {
	const pw = "hunter22!&x#pw(1)"
	r := New(&Options{SecretEnv: []string{"APP_PW"}, Environ: []string{"APP_PW=" + pw}})
	rec := "Connect with [REDACTED] and [REDACTED] now."
	act := "Connect with " + pw + " and plainvalue-9QmZ&admin=1 now."
	if got, want := r.Hidden(rec, act), []string{"plainvalue-9QmZ"}; !slices.Equal(got, want) {
		t.Errorf("Hidden = %q, want %q", got, want)
	}
	if got, want := (*Redactor)(nil).Hidden(rec, act), []string{"hunter22", "plainvalue-9QmZ"}; !slices.Equal(got, want) {
		t.Errorf("nil Hidden = %q, want %q (the package's, which knows no value)", got, want)
	}
}

// TestRedactorHiddenTakesAnEnvironmentValueWhole: where the token a
// Redacted stands for ends at a structure character and a value of the
// environment (any variable) goes on from there, the whole value is
// learned; where none does, the token is, as the package's Hidden learns
// it.
func TestRedactorHiddenTakesAnEnvironmentValueWhole(t *testing.T) {
	const pw = "hunter22!&x#pw(1)"
	rec := "Connect with [REDACTED] and [REDACTED] now."
	act := "Connect with " + pw + " and plainvalue-9QmZ&admin=1 now."
	// The longest value wins, whatever order the environment lists them
	// in: "hunter22!" is the start of pw, which is learned whole.
	for _, environ := range [][]string{
		{"APP_DB_LOGIN=" + pw, "SHORT=abc", "OTHER=hunter22!"},
		{"OTHER=hunter22!", "SHORT=abc", "APP_DB_LOGIN=" + pw},
	} {
		r := New(&Options{SecretEnv: []string{}, Environ: environ})
		if got, want := r.Hidden(rec, act), []string{pw, "plainvalue-9QmZ"}; !slices.Equal(got, want) {
			t.Errorf("environment %q: Hidden = %q, want %q", environ, got, want)
		}
	}
	if got, want := Hidden(rec, act), []string{"hunter22", "plainvalue-9QmZ"}; !slices.Equal(got, want) {
		t.Errorf("package Hidden = %q, want %q (it knows no environment)", got, want)
	}
}
