package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/llm"
)

// Redacted replaces every secret a Redactor finds.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest known secret; shorter values (like "1" or
// "true") would redact ordinary text.
const minSecretLen = 8

// minSplitPiece is the shortest piece of a known secret redacted at the
// start or end of a text, where a secret split over two texts (two tool
// results, say) leaves its halves.
const minSplitPiece = 6

// DefaultSecretEnv names the environment variables a Redactor treats as
// secrets when RedactorOptions.SecretEnv is nil: the providers' API keys and
// common cloud, GitHub, Hugging Face and Slack tokens.
var DefaultSecretEnv = []string{
	"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"MISTRAL_API_KEY", "GROQ_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "TOGETHER_API_KEY",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"GITHUB_TOKEN", "GH_TOKEN", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "SLACK_TOKEN", "SLACK_BOT_TOKEN",
}

// secretName matches environment variable names that hold secrets.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|_)(API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY(_ID)?|PASSWORD|PASSWD|CREDENTIALS?)$`)
})

// SecretEnvNames returns the names of the variables in environ (as
// os.Environ gives them, NAME=value) whose name says they hold a secret
// (…_API_KEY, …_TOKEN, …_SECRET, …_PASSWORD, …), sorted. A recording passes
// them to RedactorOptions.SecretEnv along with DefaultSecretEnv.
func SecretEnvNames(environ []string) []string {
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if secretName().MatchString(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Secret is a value to redact wherever it appears, in any of its encodings.
type Secret struct {
	// Kind names the secret in Redactor.Counts, like "OPENAI_API_KEY" or
	// "--api-key"; never the value. Empty means "secret".
	Kind string
	// Value is the secret; values shorter than 8 bytes are ignored.
	Value string
}

// RedactorOptions configures a Redactor. A nil *RedactorOptions means all
// defaults.
type RedactorOptions struct {
	// SecretEnv names the environment variables whose values are secrets;
	// nil means DefaultSecretEnv, an empty non-nil slice none.
	SecretEnv []string
	// Getenv reads an environment variable; nil means os.Getenv.
	Getenv func(string) string
	// Secrets are further known values (a key given on the command line);
	// nil means none.
	Secrets []Secret
	// Patterns are regular expressions whose every match is a secret (kind
	// "--redact"); nil means none.
	Patterns []*regexp.Regexp
	// Extra, when set, is applied to every text after the built-in
	// redaction; nil means none.
	Extra func(string) string
}

// Redactor replaces secrets in text with Redacted. It finds:
//
//   - each known secret (RedactorOptions.SecretEnv, Secrets), in any letter
//     case; as hex (either case), base64 and base64url (at any alignment,
//     padded or not, inside a longer encoding); inside JSON strings (\"
//     \\ \/ \uXXXX escapes) and URL-encoded (%XX); split over lines (a line
//     break, written or escaped, with the indentation around it); and a
//     piece of at least 6 characters at the start or end of a text, where a
//     secret split over two texts leaves it;
//   - key shapes: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), AWS access key
//     IDs (AKIA, ASIA), GitHub (ghp_ and kin, github_pat_), Hugging Face
//     (hf_), Google (AIza) and Slack (xox…-) tokens;
//   - credentials in text: bearer tokens and the values of Authorization,
//     x-api-key and api-key headers;
//   - every match of RedactorOptions.Patterns.
//
// Overlapping findings are redacted as one, so the longest wins and no part
// of a longer secret is left. A Redactor is safe for concurrent use.
type Redactor struct {
	known    []knownSecret // longest first
	patterns []*regexp.Regexp
	extra    func(string) string

	mu     sync.Mutex
	counts map[string]int
}

// knownSecret is one known value, folded for matching, with the encodings
// matched as they are (base64) or folded (hex).
type knownSecret struct {
	kind   string
	folded string   // lower case, without white space
	exact  []string // base64 and base64url cores, case-sensitive
	hexed  string   // lower-case hex
}

// NewRedactor returns a Redactor; a nil opts means default options.
func NewRedactor(opts *RedactorOptions) *Redactor {
	var o RedactorOptions
	if opts != nil {
		o = *opts
	}
	if o.SecretEnv == nil {
		o.SecretEnv = DefaultSecretEnv
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	r := &Redactor{patterns: o.Patterns, extra: o.Extra, counts: map[string]int{}}
	secrets := slices.Clone(o.Secrets)
	for _, name := range o.SecretEnv {
		secrets = append(secrets, Secret{Kind: name, Value: o.Getenv(name)})
	}
	seen := map[string]bool{}
	for _, s := range secrets {
		folded := fold(s.Value)
		if len(s.Value) < minSecretLen || len(folded) < minSecretLen || seen[folded] {
			continue
		}
		seen[folded] = true
		k := knownSecret{kind: cmpOr(s.Kind, "secret"), folded: folded, hexed: hex.EncodeToString([]byte(s.Value))}
		for _, core := range base64Cores(s.Value) {
			if !slices.Contains(k.exact, core) {
				k.exact = append(k.exact, core)
			}
		}
		r.known = append(r.known, k)
	}
	slices.SortStableFunc(r.known, func(a, b knownSecret) int { return len(b.folded) - len(a.folded) })
	return r
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fold returns s in ASCII lower case without white space, as the view
// compares it.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// base64Cores returns the parts of v's base64 and base64url encodings that
// do not depend on what comes before or after v, for each of the three
// alignments v can have inside a longer encoded text.
func base64Cores(v string) []string {
	var cores []string
	for k := range 3 {
		data := append(make([]byte, k), v...)
		enc := base64.RawStdEncoding.EncodeToString(data)
		start := (8*k + 5) / 6     // the first character made only of v's bits
		end := (8 * len(data)) / 6 // past the last such character
		if end-start < minSecretLen {
			continue
		}
		core := enc[start:end]
		cores = append(cores, core, strings.NewReplacer("+", "-", "/", "_").Replace(core))
	}
	return cores
}

// The key shapes, each with the kind it is counted as.
// They and the patterns below are compiled on first use, not at start-up.
var keyShapes = sync.OnceValue(func() []keyShape {
	return []keyShape{
		{"anthropic key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`)},
		{"openai key", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
		{"github token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)},
		{"aws key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"google key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{"slack token", regexp.MustCompile(`\bxox[abeoprs]-[A-Za-z0-9-]{10,}`)},
		{"hugging face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	}
})

type keyShape struct {
	kind string
	re   *regexp.Regexp
}

// bearer matches an HTTP bearer credential; the token must hold a character
// other than a letter, so that prose like "Bearer authentication" stays.
var bearer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)`)
})

// header matches the value of a credential header or field.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:proxy-)?(?:authorization|x-api-key|api-key|x-goog-api-key)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?([^\s"',;)\]}>]{8,})`)
})

// Redact returns s with every secret replaced by Redacted.
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	v := newView(s)
	var found []finding
	for _, k := range r.known {
		found = k.find(v, found)
	}
	text := string(v.text)
	for _, ks := range keyShapes() {
		for _, m := range ks.re.FindAllStringIndex(text, -1) {
			found = append(found, finding{m[0], m[1], ks.kind, false})
		}
	}
	for _, m := range bearer().FindAllStringSubmatchIndex(text, -1) {
		if strings.IndexFunc(text[m[2]:m[3]], func(c rune) bool { return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') }) >= 0 {
			found = append(found, finding{m[2], m[3], "bearer token", false})
		}
	}
	for _, m := range header().FindAllStringSubmatchIndex(text, -1) {
		found = append(found, finding{m[2], m[3], "credential header", false})
	}
	for _, re := range r.patterns {
		for _, m := range re.FindAllStringIndex(text, -1) {
			if m[1] > m[0] {
				found = append(found, finding{m[0], m[1], "--redact", false})
			}
		}
	}
	out := v.replace(found, r.count)
	if r.extra != nil {
		out = r.extra(out)
	}
	return out
}

// Counts returns how many redactions of each kind the Redactor has made so
// far: the name of a known secret (its variable, or Secret.Kind), a key
// shape ("openai key", "aws key", …), "bearer token", "credential header"
// or "--redact". It never holds a value.
func (r *Redactor) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.counts)
}

func (r *Redactor) count(kind string) {
	r.mu.Lock()
	r.counts[kind]++
	r.mu.Unlock()
}

// RedactEntry redacts every string e holds, in place: the response's content,
// tool-call IDs, names and arguments and finish reason; the user turn; the
// request's
// offered system prompts and tools (names, descriptions, schemas), tool
// names, new messages and messages (content, tool calls, tool_call_id, name); the
// error text. e must own its messages (see Entry.Clone).
func (r *Redactor) RedactEntry(e *Entry) {
	if e.Response != nil {
		r.RedactMessage(&e.Response.Message)
		e.Response.FinishReason = llm.FinishReason(r.Redact(string(e.Response.FinishReason)))
	}
	if e.User != nil {
		r.RedactMessage(e.User)
	}
	if e.Error != "" {
		e.Error = r.Redact(e.Error)
	}
	if s := e.Request; s != nil {
		for i := range s.Tools {
			s.Tools[i] = r.Redact(s.Tools[i])
		}
		if s.LastMessage != nil {
			r.RedactMessage(s.LastMessage)
		}
		for i := range s.Messages {
			r.RedactMessage(&s.Messages[i])
		}
		for i := range s.New {
			r.RedactMessage(&s.New[i])
		}
		redactOffered(r, s.Offered)
	}
}

// RedactMessage redacts every string of m in place: content, tool-call IDs,
// names and arguments, tool_call_id and name. m must own its ToolCalls.
func (r *Redactor) RedactMessage(m *llm.Message) {
	m.Content = r.Redact(m.Content)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		c.ID, c.Name, c.Arguments = r.Redact(c.ID), r.Redact(c.Name), r.Redact(c.Arguments)
	}
	m.ToolCallID = r.Redact(m.ToolCallID)
	m.Name = r.Redact(m.Name)
}

// finding is a secret found at [start, end) of a view's text.
type finding struct {
	start, end int
	kind       string
	// piece marks a piece of a split secret, which a whole secret of the
	// same length outranks.
	piece bool
}

// find appends where k occurs in v.
func (k *knownSecret) find(v *view, found []finding) []finding {
	// add records [start, end) of v.folded, in v.text's coordinates.
	add := func(start, end int, piece bool) {
		found = append(found, finding{v.foldAt[start], v.foldAt[end-1] + 1, k.kind, piece})
	}
	for _, pat := range []string{k.folded, k.hexed} {
		for i := 0; ; {
			j := bytes.Index(v.folded[i:], []byte(pat))
			if j < 0 {
				break
			}
			add(i+j, i+j+len(pat), false)
			i += j + 1
		}
	}
	for _, pat := range k.exact {
		for i := 0; ; {
			j := bytes.Index(v.text[i:], []byte(pat))
			if j < 0 {
				break
			}
			found = append(found, finding{i + j, i + j + len(pat), k.kind, false})
			i += j + 1
		}
	}
	// A piece at either end of the text: the text starts with the end of
	// the secret, or ends with its beginning, or is a middle part of it.
	lo, hi := v.trimmed()
	t := v.folded[lo:hi]
	if len(t) < minSplitPiece {
		return found
	}
	if len(t) < len(k.folded) && strings.Contains(k.folded, string(t)) {
		add(lo, hi, true)
		return found
	}
	for n := min(len(k.folded)-1, len(t)); n >= minSplitPiece; n-- {
		if bytes.HasPrefix(t, []byte(k.folded[len(k.folded)-n:])) {
			add(lo, lo+n, true)
			break
		}
	}
	for n := min(len(k.folded)-1, len(t)); n >= minSplitPiece; n-- {
		if bytes.HasSuffix(t, []byte(k.folded[:n])) {
			add(hi-n, hi, true)
			break
		}
	}
	return found
}

// view is a text decoded for matching: JSON string escapes and %XX
// decoded, line breaks (written or escaped) dropped with the spaces and tabs
// around them. Each byte of text remembers the span of the original it
// came from.
type view struct {
	orig   string
	text   []byte // decoded
	folded []byte // text in ASCII lower case, white space dropped
	// from[i] and to[i] bound the original bytes of text[i]; foldAt maps an
	// index of folded to one of text.
	from, to []int
	foldAt   []int
}

func newView(s string) *view {
	v := &view{orig: s}
	for i := 0; i < len(s); {
		b, n, lineBreak := decodeAt(s, i)
		if lineBreak { // drop it and the blanks around it
			for len(v.text) > 0 && (v.text[len(v.text)-1] == ' ' || v.text[len(v.text)-1] == '\t') {
				v.text, v.from, v.to = v.text[:len(v.text)-1], v.from[:len(v.from)-1], v.to[:len(v.to)-1]
			}
			for i += n; i < len(s) && (s[i] == ' ' || s[i] == '\t'); i++ {
			}
			continue
		}
		for _, c := range b {
			v.text = append(v.text, c)
			v.from = append(v.from, i)
			v.to = append(v.to, i+n)
		}
		i += n
	}
	for i, c := range v.text {
		switch {
		case c == ' ' || c == '\t':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		v.folded = append(v.folded, c)
		v.foldAt = append(v.foldAt, i)
	}
	return v
}

// decodeAt decodes the character at s[i]: its bytes, the length it takes
// in s, and whether it is a line break (written, escaped as \n, \r or
// \u000a, or CR LF either way).
func decodeAt(s string, i int) (b []byte, n int, lineBreak bool) {
	rest := s[i:]
	for _, br := range []string{"\r\n", `\r\n`, "\n", "\r", `\n`, `\r`, `\u000a`, `\u000A`, `\u000d`, `\u000D`} {
		if strings.HasPrefix(rest, br) {
			return nil, len(br), true
		}
	}
	c := s[i]
	switch {
	case c == '\\' && len(rest) > 1:
		switch rest[1] {
		case '"', '\\', '/':
			return []byte{rest[1]}, 2, false
		case 't':
			return []byte{'\t'}, 2, false
		case 'u':
			if r, n := decodeUnicodeEscape(rest); n > 0 {
				return utf8.AppendRune(nil, r), n, false
			}
		}
	case c == '%' && len(rest) > 2:
		if b, err := hex.DecodeString(rest[1:3]); err == nil {
			return b, 3, false
		}
	}
	return []byte{c}, 1, false
}

// decodeUnicodeEscape decodes \uXXXX, or a surrogate pair of them, at the
// start of s; n is 0 when there is none.
func decodeUnicodeEscape(s string) (r rune, n int) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		u, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(u), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(s[6:]); ok {
			if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
				return p, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// trimmed returns the bounds of folded's non-punctuation part, for finding
// pieces of a split secret at the ends of a text.
func (v *view) trimmed() (lo, hi int) {
	lo, hi = 0, len(v.folded)
	isEdge := func(c byte) bool { return strings.IndexByte(`"'.,;:()[]{}<>`, c) >= 0 }
	for lo < hi && isEdge(v.folded[lo]) {
		lo++
	}
	for hi > lo && isEdge(v.folded[hi-1]) {
		hi--
	}
	return lo, hi
}

// replace returns the original text with the findings (in text's
// coordinates) replaced by Redacted; overlapping and touching findings
// become one, counted once as the kind of its longest finding.
func (v *view) replace(found []finding, count func(string)) string {
	if len(found) == 0 {
		return v.orig
	}
	slices.SortStableFunc(found, func(a, b finding) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	last := 0
	for i := 0; i < len(found); {
		cur := found[i]
		best := cur
		for i++; i < len(found) && found[i].start <= cur.end; i++ {
			if found[i].end > cur.end {
				cur.end = found[i].end
			}
			if f := found[i]; f.end-f.start > best.end-best.start || f.end-f.start == best.end-best.start && best.piece && !f.piece {
				best = f
			}
		}
		start, end := v.from[cur.start], v.to[cur.end-1]
		if start < last {
			start = last
		}
		b.WriteString(v.orig[last:start])
		b.WriteString(Redacted)
		last = end
		count(best.kind)
	}
	b.WriteString(v.orig[last:])
	return b.String()
}
