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
	} {
		if got := Hidden(tc.rec, tc.act); !slices.Equal(got, tc.want) {
			t.Errorf("Hidden(%q, %q) = %q, want %q", tc.rec, tc.act, got, tc.want)
		}
	}
}
