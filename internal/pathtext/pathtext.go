// Package pathtext writes a folder's path in a text by another name where
// the text holds that path whole, as goldens write a run's workspace as
// $WORK and the bridge writes it as its fixed placeholder.
package pathtext

import "strings"

// Replace returns s with path replaced by name wherever it is a whole
// path: not preceded by a byte that continues a name, and not continued
// by one (so /tmp/ab and /tmp/a.txt are not /tmp/a, nor is /srv/tmp/a),
// dots that end a sentence aside ("in /tmp/a." is /tmp/a). s itself when
// path is not in it.
func Replace(s, path, name string) string {
	if path == "" || !strings.Contains(s, path) {
		return s
	}
	var b strings.Builder
	done, at := 0, 0 // s[:done] is written; the next match is looked for from at
	for {
		i := strings.Index(s[at:], path)
		if i < 0 {
			break
		}
		i += at
		end := i + len(path)
		if i > 0 && continuesName(s[i-1]) || continues(s[end:]) {
			at = i + 1
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(name)
		done, at = end, end
	}
	b.WriteString(s[done:])
	return b.String()
}

// continues reports whether rest, what follows a path in a text,
// continues its last name: it starts with a byte that continues a name,
// other than dots followed by none.
func continues(rest string) bool {
	dots := len(rest) - len(strings.TrimLeft(rest, "."))
	return dots < len(rest) && continuesName(rest[dots])
}

// continuesName reports whether c may continue a file name: a letter, a
// digit, or one of ._-~.
func continuesName(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-~", c) >= 0
}
