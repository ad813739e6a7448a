package redact

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// What the redactor finds without being told: key shapes (with the hints
// that let a text skip the shapes it cannot hold), bearer tokens,
// credential headers, URL passwords and PEM private keys.

// findFixed appends to found what the fixed rules find in v: the key
// shapes, bearer tokens, credential headers, URL passwords and PEM private
// keys.
func findFixed(v *view, found []finding) []finding {
	text := v.text
	// A match of a shape or pattern ends at a line break the view dropped:
	// the next line is not part of the key.
	hinted := hintedShapes(text)
	for i, ks := range keyShapes() {
		if hinted&(1<<i) == 0 {
			continue
		}
		for _, m := range ks.re.FindAllIndex(text, -1) {
			if end := v.lineEnd(m[0], m[1]); end < m[1] {
				cut := ks.re.FindIndex(text[m[0]:end])
				if cut == nil || cut[0] != 0 {
					continue
				}
				m[1] = m[0] + cut[1]
			}
			found = append(found, finding{m[0], m[1], ks.kind, false})
		}
	}
	// Each expression runs only on a text holding a literal its matches
	// hold (the folded text has no blanks and is in lower case).
	folded := v.folded
	if bytes.Contains(folded, []byte("bearer")) {
		for _, m := range bearer().FindAllSubmatchIndex(text, -1) {
			end := v.lineEnd(m[2], m[3])
			if end-m[2] >= 8 && bytes.IndexFunc(text[m[2]:end], func(c rune) bool { return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') }) >= 0 {
				found = append(found, finding{m[2], end, "bearer token", false})
			}
		}
	}
	if containsAny(folded, "authorization", "api-key") {
		for _, m := range header().FindAllSubmatchIndex(text, -1) {
			// A value already Redacted (a tape's text, redacted again
			// for a golden) is no secret: its "]" ends the match, which
			// would leave "[REDACTED]]".
			if bytes.HasPrefix(text[m[2]:], []byte(Redacted)) {
				continue
			}
			if end := v.lineEnd(m[2], m[3]); end-m[2] >= 8 {
				found = append(found, finding{m[2], end, "credential header", false})
			}
		}
	}
	if bytes.Contains(text, []byte("://")) {
		for _, m := range urlPassword().FindAllSubmatchIndex(text, -1) {
			if v.lineEnd(m[0], m[3]) == m[3] {
				found = append(found, finding{m[2], m[3], "url password", false})
			}
		}
	}
	if strings.Contains(v.orig, "://") && strings.Contains(v.orig, "%") {
		// A URL-encoded password holding %40 ("@") or %2F ("/") ends at
		// that character in the decoded view, leaving the rest of it
		// unredacted: in the original text it is whole.
		for _, m := range urlPassword().FindAllStringSubmatchIndex(v.orig, -1) {
			if !strings.Contains(v.orig[m[2]:m[3]], "%") {
				continue
			}
			if start, end := v.textSpan(m[2], m[3]); end > start && v.lineEnd(start, end) == end {
				found = append(found, finding{start, end, "url password", false})
			}
		}
	}
	if strings.Contains(v.orig, "PRIVATE KEY-----") {
		for _, m := range pemPrivateKey().FindAllStringIndex(v.orig, -1) {
			if start, end := v.textSpan(m[0], m[1]); end > start {
				found = append(found, finding{start, end, "private key", false})
			}
		}
	}
	return found
}

// The key shapes, each with the kind it is counted as.
// They and the patterns below are compiled on first use, not at start-up.
var keyShapes = sync.OnceValue(func() []keyShape {
	return []keyShape{
		{"anthropic key", []string{"sk-ant-"}, regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`)},
		{"openai key", []string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
		{"github token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)},
		{"aws key", []string{"AKIA", "ASIA"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"google key", []string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{"google access token", []string{"ya29."}, regexp.MustCompile(`\bya29\.[0-9A-Za-z_.-]{20,}`)},
		{"slack token", []string{"xox"}, regexp.MustCompile(`\bxox[abeoprs]-[A-Za-z0-9-]{10,}`)},
		{"hugging face token", []string{"hf_"}, regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
		{"jwt", []string{"eyJ"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*`)},
	}
})

// keyShape is a key's shape: a regular expression, and the literals one of
// which every match holds (a text without any is not searched).
type keyShape struct {
	kind  string
	hints []string
	re    *regexp.Regexp
}

// shapeHint is one hint of the key shape at index shape of keyShapes.
type shapeHint struct {
	lit   string
	shape int
}

// hintIndex holds the key shapes' hints by their first byte, so that one
// pass over a text finds the shapes worth searching (hintedShapes) where a
// search for each hint would pass over it fifteen times.
type hintIndex struct {
	starts [256]bool // whether a hint starts with the byte
	hints  [256][]shapeHint
}

var shapeHints = sync.OnceValue(func() *hintIndex {
	idx := new(hintIndex)
	for i, ks := range keyShapes() {
		for _, h := range ks.hints {
			idx.starts[h[0]] = true
			idx.hints[h[0]] = append(idx.hints[h[0]], shapeHint{h, i})
		}
	}
	return idx
})

// hintedShapes returns the key shapes one of whose hints text holds, as
// bits by their index in keyShapes: the shapes containsAny(text,
// shape.hints...) picks. Every hint is at least two bytes long.
func hintedShapes(text []byte) (found uint64) {
	idx := shapeHints()
	for i, c := range text {
		if !idx.starts[c] {
			continue
		}
		for _, h := range idx.hints[c] {
			if found&(1<<h.shape) == 0 && len(text)-i >= len(h.lit) && text[i+1] == h.lit[1] && string(text[i:i+len(h.lit)]) == h.lit {
				found |= 1 << h.shape
			}
		}
	}
	return found
}

// containsAny reports whether s holds one of subs.
func containsAny(s []byte, subs ...string) bool {
	for _, sub := range subs {
		if bytes.Contains(s, []byte(sub)) {
			return true
		}
	}
	return false
}

// bearer matches an HTTP bearer credential; the token must hold a character
// other than a letter, so that prose like "Bearer authentication" stays.
var bearer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)`)
})

// header matches the value of a credential header or field. The value
// ends at white space and at the characters that give a text its
// structure (quotes, "," ";" "&" "?" "#" "\", brackets of every kind), so
// that a query's next parameter or a tag after a key stays.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:proxy-)?(?:authorization|x-api-key|api-key|x-goog-api-key)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?([^\s"',;&?#\\()\[\]{}<>]{8,})`)
})

// urlPassword matches the password of a URL's user info
// (scheme://user:password@host).
var urlPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:"']+:([^\s/?#@"']+)@`)
})

// pemPrivateKey matches a PEM private key block, in the original text (its
// line breaks written or escaped), to its END line or the end of the text.
var pemPrivateKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)`)
})
