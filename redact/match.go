package redact

import (
	"strings"
	"unicode"
)

// maxRedactedLen bounds the text one Redacted stands for when matched.
const maxRedactedLen = 4096

// Matches reports whether actual is recorded with each Redacted of
// recorded standing for one secret (or none): what a text redacted when it
// was written (a tape, a golden) may hold when it is made again where the
// redaction knows less (an environment without the key). A secret is one
// token (no space, no line break) of at most 4096 bytes, or a PEM private
// key block; every byte around a Redacted is compared, so text added after
// a redacted key (a line of prompt, an insult in an answer) does not match.
func Matches(recorded, actual string) bool {
	if !strings.Contains(recorded, Redacted) {
		return recorded == actual
	}
	parts := strings.Split(recorded, Redacted)
	if !strings.HasPrefix(actual, parts[0]) {
		return false
	}
	return matchSecrets(parts[1:], actual[len(parts[0]):])
}

// matchSecrets reports whether rest is a secret followed by parts[0], a
// secret followed by parts[1], and so on to the end of rest.
func matchSecrets(parts []string, rest string) bool {
	if len(parts) == 0 {
		return rest == ""
	}
	try := func(n int) bool {
		return strings.HasPrefix(rest[n:], parts[0]) && matchSecrets(parts[1:], rest[n+len(parts[0]):])
	}
	token := strings.IndexFunc(rest, unicode.IsSpace)
	if token < 0 {
		token = len(rest)
	}
	for n := range min(token, maxRedactedLen) + 1 {
		if try(n) {
			return true
		}
	}
	if strings.HasPrefix(rest, "-----BEGIN ") {
		if loc := pemPrivateKey().FindStringIndex(rest); loc != nil && loc[0] == 0 && try(loc[1]) {
			return true
		}
	}
	return false
}
