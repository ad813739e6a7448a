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
	"github.com/tapeloop/tapeloop/tape"
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
	// PASSWORD and PASSWD end a name with or without a separator
	// (PGPASSWORD); PWD only after one (MYSQL_PWD), since PWD and OLDPWD are
	// the working directory.
	return regexp.MustCompile(`(?i)((^|_)(API_?KEY|KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY(_ID)?|CREDENTIALS?)|PASSWORD|PASSWD|_PWD)$`)
})

// SecretEnvNames returns the names of the variables in environ (as
// os.Environ gives them, NAME=value) whose name says they hold a secret
// (…_API_KEY, …_KEY, …_TOKEN, …_SECRET, …PASSWORD, …_PWD, …), sorted. A recording passes
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
//
// The zero options are tapeloop's one redaction policy, which every writer
// (record, eval's reports and saved trials, goldens, what the commands
// print) uses: the values of DefaultSecretEnv and of every variable whose
// name says it holds a secret (see SecretEnvNames), the key shapes, JWTs,
// PEM private key blocks, passwords in URLs and credential headers.
type RedactorOptions struct {
	// SecretEnv names the environment variables whose values are secrets;
	// nil means DefaultSecretEnv and the secret-named variables of Environ
	// (SecretEnvNames), an empty non-nil slice none.
	SecretEnv []string
	// Environ is the environment, NAME=value, searched for secret-named
	// variables when SecretEnv is nil; nil means os.Environ().
	Environ []string
	// ExtraEnv names further variables whose values are secrets
	// (--redact-env), beside SecretEnv or its default; nil means none.
	ExtraEnv []string
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
//   - JWTs, PEM private key blocks (BEGIN to END, or to the end of the
//     text), and the password of a URL (scheme://user:password@host);
//   - credentials in text: bearer tokens and the values of Authorization,
//     x-api-key and api-key headers;
//   - every match of RedactorOptions.Patterns.
//
// A shape or pattern ends at white space: it goes on over a line break only
// onto a line that holds nothing but the rest of the key (at least 16
// characters), so the line after a key is kept.
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
		if o.Environ == nil {
			o.Environ = os.Environ()
		}
		o.SecretEnv = slices.Concat(DefaultSecretEnv, SecretEnvNames(o.Environ))
	}
	o.SecretEnv = slices.Concat(o.SecretEnv, o.ExtraEnv)
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
		{"anthropic key", []string{"sk-ant-"}, regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`)},
		{"openai key", []string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
		{"github token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)},
		{"aws key", []string{"AKIA", "ASIA"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"google key", []string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
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
// search for each hint would pass over it fourteen times.
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

// header matches the value of a credential header or field.
var header = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:proxy-)?(?:authorization|x-api-key|api-key|x-goog-api-key)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?([^\s"',;)\]}>]{8,})`)
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

// Redact returns s with every secret replaced by Redacted, counted in
// Counts.
func (r *Redactor) Redact(s string) string { return r.redact(s, r.count) }

// Quiet returns s with every secret replaced by Redacted, not counted: for
// what a command prints about what it wrote.
func (r *Redactor) Quiet(s string) string { return r.redact(s, func(string) {}) }

func (r *Redactor) redact(s string, count func(kind string)) string {
	if s == "" {
		return s
	}
	v := newView(s)
	defer v.release()
	var found []finding
	for _, k := range r.known {
		found = k.find(v, found)
	}
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
	if strings.Contains(v.orig, "PRIVATE KEY-----") {
		for _, m := range pemPrivateKey().FindAllStringIndex(v.orig, -1) {
			if start, end := v.textSpan(m[0], m[1]); end > start {
				found = append(found, finding{start, end, "private key", false})
			}
		}
	}
	for _, re := range r.patterns {
		for _, m := range re.FindAllIndex(text, -1) {
			if end := v.lineEnd(m[0], m[1]); end > m[0] {
				found = append(found, finding{m[0], end, "--redact", false})
			}
		}
	}
	out := v.replace(found, count)
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
func (r *Redactor) RedactEntry(e *tape.Entry) {
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
// names, arguments and signatures, tool_call_id, name and reasoning. m must
// own its ToolCalls and Reasoning.
func (r *Redactor) RedactMessage(m *llm.Message) {
	m.Content = r.Redact(m.Content)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		c.ID, c.Name, c.Arguments = r.Redact(c.ID), r.Redact(c.Name), r.Redact(c.Arguments)
	}
	m.ToolCallID = r.Redact(m.ToolCallID)
	m.Name = r.Redact(m.Name)
	redactReasoning(r, m)
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
		v.index()
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
// came from; that map is built only when something is found (index), since
// most texts hold no secret and matching needs only text and folded.
type view struct {
	orig   string
	text   []byte // decoded
	folded []byte // text in ASCII lower case, white space dropped
	// from[i] and to[i] bound the original bytes of text[i]; foldAt maps an
	// index of folded to one of text. Nil until index builds them.
	from, to []int
	foldAt   []int
	// breaks holds, in order, the indexes of text before which a line
	// break was dropped.
	breaks []int
	// mem holds text, folded and breaks's memory, from viewBufs; text may
	// outgrow it only if decoding lengthened s, which it never does.
	mem *viewMem
}

// viewMem is the memory a view decodes into: text and folded share buf.
type viewMem struct {
	buf    []byte
	breaks []int
}

// viewBufs holds the memory of released views' text, folded and breaks, so
// that redacting a text allocates nothing for them.
var viewBufs = sync.Pool{New: func() any { return new(viewMem) }}

// maxPooledView is the largest buffer a released view gives back; a
// larger one (a huge text) is left to the garbage collector.
const maxPooledView = 1 << 20

// minWrappedLine is the shortest line a key wrapped over lines may go on
// to: a line holding nothing else, of at least this many characters.
const minWrappedLine = 16

// lineEnd returns where a match of text[start:end] ends: at end, or at the
// first dropped line break inside it, since a key ends at white space. A
// match goes on over a line break only when the next line is wholly inside
// it and at least minWrappedLine long: a key wrapped over lines, not the
// next line's words.
func (v *view) lineEnd(start, end int) int {
	i, _ := slices.BinarySearch(v.breaks, start+1)
	for ; i < len(v.breaks) && v.breaks[i] < end; i++ {
		next := len(v.text)
		if i+1 < len(v.breaks) {
			next = v.breaks[i+1]
		}
		if next > end || next-v.breaks[i] < minWrappedLine {
			return v.breaks[i]
		}
	}
	return end
}

// textSpan returns the span of text decoded from orig[start:end].
func (v *view) textSpan(start, end int) (int, int) {
	v.index()
	i, _ := slices.BinarySearch(v.from, start)
	j, _ := slices.BinarySearch(v.from, end)
	return i, j
}

// newView returns s decoded for matching, without the map to the original
// (see index). Release it when done with it.
func newView(s string) *view {
	m := viewBufs.Get().(*viewMem)
	m.buf = slices.Grow(m.buf[:0], 2*len(s))
	v := &view{orig: s, mem: m, breaks: m.breaks}
	// text and folded share buf: neither is longer than s.
	v.decode(m.buf[:0:len(s)], m.buf[len(s):len(s)], false)
	return v
}

// release gives the view's memory back; v must not be used after it.
func (v *view) release() {
	if v.mem == nil {
		return
	}
	if cap(v.mem.buf) <= maxPooledView {
		// breaks has one index a line at most: no larger than buf.
		v.mem.breaks = v.breaks
		viewBufs.Put(v.mem)
	}
	v.mem, v.text, v.folded, v.breaks = nil, nil, nil, nil
}

// index builds from, to and foldAt, decoding orig again: the same pass as
// newView, which yields the same text and folded.
func (v *view) index() {
	if v.foldAt != nil || len(v.orig) == 0 {
		return
	}
	w := &view{orig: v.orig}
	w.decode(make([]byte, 0, len(v.orig)), make([]byte, 0, len(v.orig)), true)
	v.from, v.to, v.foldAt = w.from, w.to, w.foldAt
}

// decode fills text (into the memory of text) and folded (of folded), and
// with maps also from, to and foldAt.
func (v *view) decode(text, folded []byte, maps bool) {
	s := v.orig
	v.text, v.breaks = text, v.breaks[:0] // breaks: newView's memory, or none
	if maps {
		v.from, v.to = make([]int, 0, len(s)), make([]int, 0, len(s))
	}
	for i := 0; i < len(s); {
		if !special[s[i]] { // the common case: a run of bytes that are themselves
			j := i + 1
			for j < len(s) && !special[s[j]] {
				j++
			}
			v.text = append(v.text, s[i:j]...)
			if maps {
				for k := i; k < j; k++ {
					v.from = append(v.from, k)
					v.to = append(v.to, k+1)
				}
			}
			i = j
			continue
		}
		b, nb, n, lineBreak := decodeAt(s, i)
		if lineBreak { // drop it and the blanks around it
			for len(v.text) > 0 && (v.text[len(v.text)-1] == ' ' || v.text[len(v.text)-1] == '\t') {
				v.text = v.text[:len(v.text)-1]
				if maps {
					v.from, v.to = v.from[:len(v.from)-1], v.to[:len(v.to)-1]
				}
			}
			for i += n; i < len(s) && (s[i] == ' ' || s[i] == '\t'); i++ {
			}
			if len(v.breaks) == 0 || v.breaks[len(v.breaks)-1] != len(v.text) {
				v.breaks = append(v.breaks, len(v.text))
			}
			continue
		}
		for _, c := range b[:nb] {
			v.text = append(v.text, c)
			if maps {
				v.from = append(v.from, i)
				v.to = append(v.to, i+n)
			}
		}
		i += n
	}
	if cap(folded) < len(v.text) {
		folded = make([]byte, 0, len(v.text))
	}
	f, n := folded[:len(v.text)], 0
	if maps {
		v.foldAt = make([]int, len(v.text))
		for i, c := range v.text {
			f[n], v.foldAt[n] = foldByte[c], i
			n += int(foldKeeps[c])
		}
		v.foldAt = v.foldAt[:n]
	} else {
		for _, c := range v.text {
			f[n] = foldByte[c]
			n += int(foldKeeps[c])
		}
	}
	v.folded = f[:n]
}

// foldByte is each byte in ASCII lower case; foldKeeps is 1 for the bytes
// folded text keeps, 0 for the blanks it drops (space and tab).
var foldByte, foldKeeps = func() (lower, keeps [256]byte) {
	for c := range 256 {
		lower[c], keeps[c] = byte(c), 1
		if 'A' <= c && c <= 'Z' {
			lower[c] += 'a' - 'A'
		}
	}
	keeps[' '], keeps['\t'] = 0, 0
	return lower, keeps
}()

// special marks the bytes that may start something decodeAt decodes: a
// line break, an escape or a %XX; every other byte stands for itself.
var special = [256]bool{'\r': true, '\n': true, '\\': true, '%': true}

// lineBreaks are the line breaks decodeAt knows, written and escaped.
var lineBreaks = []string{"\r\n", `\r\n`, "\n", "\r", `\n`, `\r`, `\u000a`, `\u000A`, `\u000d`, `\u000D`}

// decodeAt decodes the character at s[i]: its bytes (b[:nb]), the length
// it takes in s, and whether it is a line break (written, escaped as \n,
// \r or \u000a, or CR LF either way).
func decodeAt(s string, i int) (b [utf8.UTFMax]byte, nb, n int, lineBreak bool) {
	if s[i] == '\n' { // the commonest, and no other line break starts with it
		return b, 0, 1, true
	}
	rest := s[i:]
	for _, br := range lineBreaks {
		if strings.HasPrefix(rest, br) {
			return b, 0, len(br), true
		}
	}
	c := s[i]
	switch {
	case c == '\\' && len(rest) > 1:
		switch rest[1] {
		case '"', '\\', '/':
			b[0] = rest[1]
			return b, 1, 2, false
		case 't':
			b[0] = '\t'
			return b, 1, 2, false
		case 'u':
			if r, n := decodeUnicodeEscape(rest); n > 0 {
				return b, utf8.EncodeRune(b[:], r), n, false
			}
		}
	case c == '%' && len(rest) > 2:
		if h, ok := unhex(rest[1]); ok {
			if l, ok := unhex(rest[2]); ok {
				b[0] = h<<4 | l
				return b, 1, 3, false
			}
		}
	}
	b[0] = c
	return b, 1, 1, false
}

// unhex returns the value of the hex digit c.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
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
	v.index()
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
