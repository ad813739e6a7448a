package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
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
// secrets when Options.SecretEnv is nil: the providers' API keys and
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
// them to Options.SecretEnv along with DefaultSecretEnv.
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

// Options are the inputs of tapeloop's one redaction policy, which every
// writer (record, eval's reports and saved trials, goldens, what the
// commands print) uses: the values of DefaultSecretEnv and of every
// variable whose name says it holds a secret (see SecretEnvNames), the key
// shapes, JWTs, PEM private key blocks, passwords in URLs and credential
// headers. New reads nothing but them (no environment): Default gives the
// policy for the process's environment. A nil *Options is the zero value:
// the fixed rules (shapes, JWTs, PEM keys, URL passwords, credential
// headers) and no known value.
type Options struct {
	// SecretEnv names the environment variables whose values are secrets;
	// nil means DefaultSecretEnv and the secret-named variables of Environ
	// (SecretEnvNames), an empty non-nil slice none.
	SecretEnv []string
	// Environ is the environment, NAME=value (as os.Environ gives it),
	// searched for secret-named variables when SecretEnv is nil and for
	// the variables' values when Getenv is nil; nil means none.
	Environ []string
	// ExtraEnv names further variables whose values are secrets
	// (--redact-env), beside SecretEnv or its default; nil means none.
	ExtraEnv []string
	// Getenv reads an environment variable's value; nil means looking it
	// up in Environ (the first entry of the name).
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
//   - each known secret (Options.SecretEnv, Secrets), in any letter
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
//   - every match of Options.Patterns.
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

	// environ is every value of Options.Environ of at least minSecretLen
	// bytes, longest first: what Hidden may extend a learned token to.
	environ []string

	mu     sync.Mutex
	counts map[string]int
	from   *Redactor // the Redactor WithSecrets made this one from; nil for New's
}

// knownSecret is one known value, folded for matching, with the encodings
// matched as they are (base64) or folded (hex).
type knownSecret struct {
	kind   string
	folded string   // lower case, without white space
	exact  []string // base64 and base64url cores, case-sensitive
	hexed  string   // lower-case hex
}

// New returns a Redactor of the policy with the inputs opts gives; a nil
// opts means the zero Options.
func New(opts *Options) *Redactor {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.SecretEnv == nil {
		o.SecretEnv = slices.Concat(DefaultSecretEnv, SecretEnvNames(o.Environ))
	}
	o.SecretEnv = slices.Concat(o.SecretEnv, o.ExtraEnv)
	if o.Getenv == nil {
		o.Getenv = lookup(o.Environ)
	}
	r := &Redactor{patterns: o.Patterns, extra: o.Extra, counts: map[string]int{}, environ: environValues(o.Environ)}
	secrets := slices.Clone(o.Secrets)
	for _, name := range o.SecretEnv {
		secrets = append(secrets, Secret{Kind: name, Value: o.Getenv(name)})
	}
	r.know(secrets)
	return r
}

// WithSecrets returns a Redactor of r's policy that also knows secrets:
// every value r finds, and these, found in one pass, so that a known value
// holding a key's shape is redacted whole. Its counts start at zero, and
// what it counts is counted in r too; r's policy is not changed. Nil or
// empty secrets give a copy of r's policy.
func (r *Redactor) WithSecrets(secrets []Secret) *Redactor {
	w := &Redactor{known: slices.Clone(r.known), patterns: r.patterns, extra: r.extra, environ: r.environ, counts: map[string]int{}, from: r}
	w.know(secrets)
	return w
}

// know adds secrets to the values r knows, longest first; a value shorter
// than minSecretLen, or one r knows already, is left out. Values are told
// apart as they are written, not folded: two that differ only in case are
// found alike in plain text (by the first, whose kind is counted), but
// each has its own base64 and hex.
func (r *Redactor) know(secrets []Secret) {
	seen := map[string]bool{} // by hexed, which is one-to-one with the value
	for _, k := range r.known {
		seen[k.hexed] = true
	}
	for _, s := range secrets {
		folded, hexed := fold(s.Value), hex.EncodeToString([]byte(s.Value))
		if len(s.Value) < minSecretLen || len(folded) < minSecretLen || seen[hexed] {
			continue
		}
		seen[hexed] = true
		k := knownSecret{kind: cmpOr(s.Kind, "secret"), folded: folded, hexed: hexed}
		for _, core := range base64Cores(s.Value) {
			if !slices.Contains(k.exact, core) {
				k.exact = append(k.exact, core)
			}
		}
		r.known = append(r.known, k)
	}
	slices.SortStableFunc(r.known, func(a, b knownSecret) int { return len(b.folded) - len(a.folded) })
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

// Redact returns s with every secret replaced by Redacted, counted in
// Counts.
func (r *Redactor) Redact(s string) string { return r.redact(s, r.count) }

// Quiet returns s with every secret replaced by Redacted, not counted: for
// what a command prints about what it wrote.
func (r *Redactor) Quiet(s string) string { return r.redact(s, func(string) {}) }

func (r *Redactor) redact(s string, count func(kind string)) string {
	return r.redactWith(s, count, true)
}

// redactWith returns s with what r finds replaced by Redacted: its known
// values and the matches of its patterns; and when fixed, also what the
// fixed rules find (findFixed), with r.extra applied after.
func (r *Redactor) redactWith(s string, count func(kind string), fixed bool) string {
	if s == "" {
		return s
	}
	v := newView(s)
	defer v.release()
	var found []finding
	for _, k := range r.known {
		found = k.find(v, found)
	}
	if fixed {
		found = findFixed(v, found)
	}
	text := v.text
	for _, re := range r.patterns {
		for _, m := range re.FindAllIndex(text, -1) {
			if end := v.lineEnd(m[0], m[1]); end > m[0] {
				found = append(found, finding{m[0], end, "--redact", false})
			}
		}
	}
	out := v.replace(found, count)
	if fixed && r.extra != nil {
		out = r.extra(out)
	}
	return out
}

// Counts returns how many redactions of each kind the Redactor has made so
// far: the name of a known secret (its variable, or Secret.Kind), a key
// shape ("openai key", "aws key", …), "bearer token", "credential header",
// "mcp authorization token" (a Messages MCP server's credential, see
// Members) or "--redact". It never holds a value.
func (r *Redactor) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.counts)
}

func (r *Redactor) count(kind string) { r.add(kind, 1) }

// add counts n redactions of kind, in r and in the Redactor r was made
// from by WithSecrets.
func (r *Redactor) add(kind string, n int) {
	r.mu.Lock()
	r.counts[kind] += n
	r.mu.Unlock()
	if r.from != nil {
		r.from.add(kind, n)
	}
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
