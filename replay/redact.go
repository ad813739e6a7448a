package replay

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every secret a Recorder finds.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest environment value treated as a secret;
// shorter values (like "1" or "true") would redact ordinary text.
const minSecretLen = 8

// keyShapes matches common API key formats: OpenAI and Anthropic (sk-...,
// sk-proj-..., sk-ant-...), GitHub, AWS access key IDs, Google, Slack and
// Hugging Face tokens.
var keyShapes = regexp.MustCompile(`\b(?:` +
	`sk-[A-Za-z0-9_-]{16,}` +
	`|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}` +
	`|AKIA[0-9A-Z]{16}` +
	`|AIza[0-9A-Za-z_-]{35}` +
	`|xox[abprs]-[A-Za-z0-9-]{10,}` +
	`|hf_[A-Za-z0-9]{30,})`)

// bearer matches an HTTP bearer credential; the token must hold a character
// other than a letter, so that prose like "Bearer authentication" stays.
var bearer = regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`)

// redactor replaces secrets in text.
type redactor struct {
	secrets []string // literal values, longest first
	extra   func(string) string
}

func newRedactor(names []string, getenv func(string) string, extra func(string) string) *redactor {
	r := &redactor{extra: extra}
	for _, name := range names {
		v := getenv(name)
		if len(v) < minSecretLen {
			continue
		}
		r.secrets = append(r.secrets, v)
		// The value as it appears inside a JSON string, e.g. in arguments.
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
				r.secrets = append(r.secrets, esc)
			}
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// redact returns s with secrets replaced by Redacted: the environment
// values first, then bearer tokens and key shapes, then the extra function.
func (r *redactor) redact(s string) string {
	if s == "" {
		return s
	}
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	s = bearer.ReplaceAllStringFunc(s, func(m string) string {
		sub := bearer.FindStringSubmatch(m)
		if strings.IndexFunc(sub[2], func(c rune) bool { return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') }) < 0 {
			return m
		}
		return sub[1] + Redacted
	})
	s = keyShapes.ReplaceAllString(s, Redacted)
	if r.extra != nil {
		s = r.extra(s)
	}
	return s
}
