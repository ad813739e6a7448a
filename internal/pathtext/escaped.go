package pathtext

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ReplaceEscaped is Replace where path may also be written as the inside
// of a JSON string writes it: any of its characters but ASCII letters and
// digits (which no encoder escapes) as an escape (a slash as \/ or
// \u002f, é as \u00e9, a character past U+FFFF as a UTF-16 surrogate
// pair, a quote or backslash as \" or \\), as encoders that escape
// slashes or everything past ASCII write it. A match written
// plainly becomes name, one with any escape escapedName (name as it may
// stand inside a JSON string). Whether the path is whole is judged by the
// characters around it, decoded the same way. s itself when nothing
// matches.
func ReplaceEscaped(s, path, name, escapedName string) string {
	if path == "" {
		return s
	}
	if !strings.Contains(s, `\`) {
		return Replace(s, path, name)
	}
	if a := anchor(path); a != "" && !strings.Contains(s, a) {
		return s // every match holds the anchor as it is
	}
	last, _ := utf8.DecodeLastRuneInString(path)
	var b strings.Builder
	done := 0
	prev := rune(-1) // the character before i; none at the start
	for i := 0; i < len(s); {
		if end, escaped, ok := matchAt(s, i, path); ok && !continuesRune(prev) && !continuesAt(s, end) {
			b.WriteString(s[done:i])
			if escaped {
				b.WriteString(escapedName)
			} else {
				b.WriteString(name)
			}
			done, i, prev = end, end, last
			continue
		}
		r, n := charAt(s, i)
		prev, i = r, i+n
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// matchAt reports whether s holds path at i, each of its characters as
// itself or as a JSON escape; end is where the match ends, escaped whether
// it used an escape.
func matchAt(s string, i int, path string) (end int, escaped, ok bool) {
	for p := 0; p < len(path); {
		r, w := utf8.DecodeRuneInString(path[p:])
		if i < len(s) && s[i] == '\\' && (r != utf8.RuneError || w > 1) && !isAlnum(r) {
			if e, n := unescape(s, i); n > 0 && e == r {
				i, p, escaped = i+n, p+w, true
				continue
			}
		}
		if !strings.HasPrefix(s[i:], path[p:p+w]) {
			return 0, false, false
		}
		i, p = i+w, p+w
	}
	return i, escaped, true
}

// charAt returns the character at s[i] and its length in s: a JSON escape
// decoded, or a UTF-8 character (a byte that is none, as RuneError).
func charAt(s string, i int) (rune, int) {
	if s[i] == '\\' {
		if r, n := unescape(s, i); n > 0 {
			return r, n
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// unescape decodes the JSON escape at s[i] (a backslash): the character
// and the escape's length, 0 when none starts there. A surrogate pair is
// one character.
func unescape(s string, i int) (rune, int) {
	if i+1 >= len(s) {
		return 0, 0
	}
	switch c := s[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			return 0, 0
		}
		if utf16.IsSurrogate(r) && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if lo, ok := hex4(s, i+8); ok {
				if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
					return pair, 12
				}
			}
		}
		return r, 6
	}
	return 0, 0
}

// hex4 reads four hex digits at s[i].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	return rune(v), err == nil
}

// continuesAt reports whether what follows a path at s[end] continues its
// last name, escapes decoded: as continues.
func continuesAt(s string, end int) bool {
	for end < len(s) {
		r, n := charAt(s, end)
		if r != '.' {
			return continuesRune(r)
		}
		end += n
	}
	return false
}

// continuesRune is continuesName for a character; false for none (-1)
// and past ASCII.
func continuesRune(r rune) bool {
	return r >= 0 && r < utf8.RuneSelf && continuesName(byte(r))
}

// anchor returns the longest run of ASCII letters and digits in path's
// last name (in the whole path when that has none): text every match of
// path holds unescaped, and the rarest (a folder's random suffix). ""
// when path has none.
func anchor(path string) string {
	best := longestAlnum(path[strings.LastIndexAny(path, `/\`)+1:])
	if best == "" {
		best = longestAlnum(path)
	}
	return best
}

// longestAlnum returns the longest run of ASCII letters and digits in s,
// the first of the longest.
func longestAlnum(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isAlnum(rune(s[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

// isAlnum reports whether r is an ASCII letter or digit.
func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
