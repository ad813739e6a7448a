package redact

import (
	"strings"
)

// maxRedactedLen bounds the text one Redacted stands for when matched.
const maxRedactedLen = 4096

// Matches reports whether actual is recorded with each Redacted of
// recorded standing for one secret (or none): what a text redacted when it
// was written (a tape, a golden) may hold when it is made again where the
// redaction knows less (an environment without the key). Every byte around
// a Redacted is compared, and a Redacted stands for one of:
//
//   - Redacted itself (the live text was redacted by a policy that knew
//     the secret);
//   - a token of at most 4096 bytes written in the characters secrets are
//     written in: ASCII letters and digits, "-", ".", "_", "~", "+", "/",
//     "%" followed by two hex digits, and "=" only at its end (base64
//     padding). That covers every key shape the Redactor knows, bearer
//     tokens and JWTs, base64, base64url, hex and URL-encoded values;
//   - a PEM private key block.
//
// So white space, a line break and the characters that give a text its
// structure (& " ' < > , ; : ? # @ ! $ * | \ and brackets) are never part
// of a secret: a query that gained "&admin=1" after a redacted key, a JSON
// string that gained a member after a redacted token, or a prompt that
// gained a sentence does not match. A secret written with other characters
// (a password holding "!" or "&") matches only where the live text was
// redacted by a policy that knows it: see Redactor.Matches.
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

// Matches reports whether actual is recorded with each Redacted of
// recorded standing for one secret: Matches(recorded, actual), or
// Matches(recorded, known), where known is actual with every value r knows
// (Options.SecretEnv, ExtraEnv, Secrets: whatever characters it holds,
// in any of the encodings Redact finds) and every match of its patterns
// Redacted. Only those: the fixed rules (key shapes, bearer tokens,
// credential headers, URL passwords), whose matches may take in structure
// (a header value up to the next quote), never stand for more than
// Matches's token. A nil r is the package's Matches.
func (r *Redactor) Matches(recorded, actual string) bool {
	if Matches(recorded, actual) {
		return true
	}
	if r == nil || !strings.Contains(recorded, Redacted) || len(r.known) == 0 && len(r.patterns) == 0 {
		return false
	}
	known := r.redactWith(actual, func(string) {}, false)
	return known != actual && Matches(recorded, known)
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
	if try(0) {
		return true
	}
	if strings.HasPrefix(rest, Redacted) && try(len(Redacted)) {
		return true
	}
	// Every prefix of the longest token rest starts with that ends on a
	// whole character (not inside a %XX) is a token.
	n := 0
	for n < len(rest) {
		switch c := rest[n]; {
		case secretByte(c):
			n++
		case c == '%' && n+2 < len(rest) && isHex(rest[n+1]) && isHex(rest[n+2]):
			n += 3
		default:
			goto padding
		}
		if n > maxRedactedLen {
			return false
		}
		if try(n) {
			return true
		}
	}
padding:
	for n < len(rest) && rest[n] == '=' && n < maxRedactedLen {
		n++
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

// secretByte reports whether c is one of the characters a secret token is
// written in, "%" and "=" aside: ASCII letters and digits, and "-._~+/".
func secretByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
