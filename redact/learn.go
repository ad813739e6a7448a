package redact

import (
	"slices"
	"strings"
	"unicode"
)

// A rebase restates a tape's requests from what the agent sends now, where
// the redaction may know less than the recording's did (record was given
// --redact-env, rebase was not): the new text holds the value the tape has
// as Redacted. So that a rebase never un-redacts, the values the tape's
// Redacted stood for are found in the new text, by the recorded text around
// each (which a reworded prompt usually keeps), and redacted as known
// secrets.

// redactedContext is how much recorded text before and after a Redacted
// locates it in a new text.
const redactedContext = 16

// Hidden returns what each Redacted of recorded stands for in
// actual, where actual holds some of the recorded text next to it: the
// token (no space, at most 4096 bytes) between the text before the
// Redacted and the text after it, cut to the one secret Matches lets a
// Redacted stand for (its characters, %XX, then = padding), so that a
// structure character after a key ("&admin=1") stays the text's. The longest context found is used, up
// to 16 bytes a side, not crossing a line break or another Redacted, and
// at least 4 bytes in all unless the whole recorded text around it is
// that short. Values shorter than 8 bytes, and Redacted itself, are left
// out, as a Redactor ignores them; nil when none is found.
func Hidden(recorded, actual string) []string { return hidden(recorded, actual, nil) }

// hidden is Hidden, where environ (longest first; nil means none) are
// values the token may be extended to (see Redactor.Hidden).
func hidden(recorded, actual string, environ []string) []string {
	if !strings.Contains(recorded, Redacted) || actual == "" {
		return nil
	}
	parts := strings.Split(recorded, Redacted)
	var found []string
	for k := range len(parts) - 1 {
		before, after := parts[k], parts[k+1]
		if i := strings.LastIndexByte(before, '\n'); i >= 0 {
			before = before[i+1:]
		}
		if i := strings.IndexByte(after, '\n'); i >= 0 {
			after = after[:i+1]
		}
		before = before[len(before)-min(len(before), redactedContext):]
		after = after[:min(len(after), redactedContext)]
		atStart, atEnd := k == 0 && len(before) == len(parts[k]), k == len(parts)-2 && len(after) == len(parts[k+1])
		whole := len(parts[k])+len(parts[k+1]) < 4
	search:
		for lb := len(before); lb >= 0; lb-- {
			for la := len(after); la >= 0; la-- {
				if lb+la < 4 && !whole {
					break
				}
				vs := valuesBetween(actual, before[len(before)-lb:], after[:la], atStart && lb == len(before), atEnd && la == len(after), environ)
				if len(vs) > 0 {
					found = append(found, vs...)
					break search
				}
			}
		}
	}
	return found
}

// valuesBetween returns the tokens of actual that follow before (or start
// actual, when before is "" and atStart) and that after follows (or that
// end actual or its line, when after is "" and atEnd), long enough to be
// secrets: each cut to the secret one Redacted stands for (secretPrefix),
// unless the text there starts with a longer value of environ, which is
// taken whole.
func valuesBetween(actual, before, after string, atStart, atEnd bool, environ []string) []string {
	var out []string
	for p := 0; p <= len(actual); {
		start := p
		if before != "" {
			i := strings.Index(actual[p:], before)
			if i < 0 {
				break
			}
			start = p + i + len(before)
		} else if !atStart {
			break
		}
		if after != "" || atEnd {
			full := tokenUntil(actual[start:], after, atEnd)
			if v := environPrefix(full, secretPrefix(full), environ); len(v) >= minSecretLen && v != Redacted {
				out = append(out, v)
			}
		}
		if before == "" {
			break
		}
		p = start
	}
	return out
}

// tokenUntil returns the token s starts with that after follows (or that
// ends s or its line, when atEnd), or "".
func tokenUntil(s, after string, atEnd bool) string {
	end := strings.IndexFunc(s, unicode.IsSpace)
	if end < 0 {
		end = len(s)
	}
	end = min(end, maxRedactedLen)
	if after == "" {
		if atEnd {
			return s[:end]
		}
		return ""
	}
	for n := 1; n <= end; n++ {
		if strings.HasPrefix(s[n:], after) {
			return s[:n]
		}
	}
	return ""
}

// secretPrefix returns the longest prefix of v that one Redacted stands
// for as a token in Matches (matchSecrets): the characters secrets are
// written in and %XX, then "=" padding; "" when v starts with neither.
func secretPrefix(v string) string {
	n := 0
	for n < len(v) && n < maxRedactedLen {
		switch c := v[n]; {
		case secretByte(c):
			n++
		case c == '%' && n+2 < len(v) && isHex(v[n+1]) && isHex(v[n+2]):
			n += 3
		default:
			goto padding
		}
	}
padding:
	for n < len(v) && v[n] == '=' && n < maxRedactedLen {
		n++
	}
	return v[:n]
}

// environPrefix returns the longest value of environ (longest first)
// that token starts with and that is longer than v, else v.
func environPrefix(token, v string, environ []string) string {
	for _, e := range environ {
		if len(e) <= len(v) {
			break
		}
		if strings.HasPrefix(token, e) {
			return e
		}
	}
	return v
}

// Hidden is the package's Hidden of actual with every value r knows and
// every match of its patterns redacted first, as Matches compares: a value
// r knows, whatever characters it holds (a password with "!" or "&"), is
// r's to redact and is never learned, whole or in part. Where a learned
// token is followed by more of one value of r's environment (Options.
// Environ, any variable), that whole value is learned: a password with
// "!" or "&" that record was told to redact (--redact-env) and the rebase
// was not is still never written in part. A nil r is the package's Hidden.
func (r *Redactor) Hidden(recorded, actual string) []string {
	if r == nil {
		return Hidden(recorded, actual)
	}
	if strings.Contains(recorded, Redacted) && (len(r.known) > 0 || len(r.patterns) > 0) {
		actual = r.redactWith(actual, func(string) {}, false)
	}
	return hidden(recorded, actual, r.environ)
}

// environValues returns the values of environ (NAME=value entries) of at
// least minSecretLen bytes, once each, longest first.
func environValues(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if _, v, ok := strings.Cut(kv, "="); ok && len(v) >= minSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
