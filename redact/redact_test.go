package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// knownKey is a secret without a recognisable shape, so that only the
// known-value redaction can find it; it holds '/' and '+' so that its JSON,
// URL and base64 forms differ from it.
const knownKey = "Zq7+xW/9kLmN-pRsT_uv42Hd"

// secretForms returns knownKey written in each way a tape might hold it,
// with the strings that must not appear in the saved file.
func secretForms() []struct {
	name, text string
	probes     []string
} {
	jsonU := ""
	for _, c := range knownKey {
		jsonU += fmt.Sprintf(`\u%04x`, c)
	}
	pct := ""
	for _, c := range []byte(knownKey) {
		pct += fmt.Sprintf("%%%02X", c)
	}
	mid := func(s string) string { return s[len(s)/2-5 : len(s)/2+5] }
	b64 := base64.StdEncoding.EncodeToString([]byte(knownKey))
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + knownKey))
	b64url := base64.RawURLEncoding.EncodeToString([]byte("x" + knownKey))
	hexed := hex.EncodeToString([]byte(knownKey))
	upper := strings.ToUpper(knownKey)
	slashed := strings.ReplaceAll(knownKey, "/", `\/`)
	query := url.QueryEscape(knownKey)
	return []struct {
		name, text string
		probes     []string
	}{
		{"raw", knownKey, []string{knownKey, mid(knownKey)}},
		{"upper case", upper, []string{upper, mid(upper)}},
		{"base64", b64, []string{b64, mid(b64)}},
		{"base64 after a prefix", basic, []string{basic, mid(basic)}},
		{"base64url unpadded", b64url, []string{b64url, mid(b64url)}},
		{"hex", hexed, []string{hexed, mid(hexed)}},
		{"upper-case hex", strings.ToUpper(hexed), []string{strings.ToUpper(hexed), mid(strings.ToUpper(hexed))}},
		{"JSON \\u escapes", jsonU, []string{jsonU, mid(jsonU)}},
		{"JSON \\/", slashed, []string{slashed, knownKey[:6], knownKey[len(knownKey)-6:]}},
		{"URL query", query, []string{query, knownKey[:6], knownKey[len(knownKey)-6:]}},
		{"URL %XX", pct, []string{pct, mid(pct)}},
		{"split over a line", knownKey[:10] + "\n      " + knownKey[10:], []string{knownKey[:10], knownKey[10:]}},
		{"split over an escaped line", knownKey[:14] + `\n` + knownKey[14:], []string{knownKey[:14], knownKey[14:]}},
		{"base64 wrapped over lines", b64[:12] + "\n" + b64[12:], []string{b64[:12], b64[12:]}},
	}
}

// fields returns a setter for each string a tape entry can hold.
func fields() []struct {
	name string
	set  func(e *tape.Entry, s string)
} {
	msg := func(e *tape.Entry) *llm.Message { return e.Request.LastMessage }
	return []struct {
		name string
		set  func(e *tape.Entry, s string)
	}{
		{"response content", func(e *tape.Entry, s string) { e.Response.Message.Content = s }},
		{"response tool-call id", func(e *tape.Entry, s string) { e.Response.Message.ToolCalls[0].ID = s }},
		{"response tool-call name", func(e *tape.Entry, s string) { e.Response.Message.ToolCalls[0].Name = s }},
		{"response tool-call arguments", func(e *tape.Entry, s string) { e.Response.Message.ToolCalls[0].Arguments = `{"q": "` + s + `"}` }},
		{"finish_reason", func(e *tape.Entry, s string) { e.Response.FinishReason = llm.FinishReason(s) }},
		{"offered tool", func(e *tape.Entry, s string) { e.Request.Tools[0] = s }},
		{"last message content", func(e *tape.Entry, s string) { msg(e).Content = s }},
		{"last message tool_call_id", func(e *tape.Entry, s string) { msg(e).ToolCallID = s }},
		{"last message name", func(e *tape.Entry, s string) { msg(e).Name = s }},
		{"request message tool-call id", func(e *tape.Entry, s string) { e.Request.Messages[0].ToolCalls[0].ID = s }},
		{"request message tool-call name", func(e *tape.Entry, s string) { e.Request.Messages[0].ToolCalls[0].Name = s }},
		{"request message tool-call arguments", func(e *tape.Entry, s string) { e.Request.Messages[0].ToolCalls[0].Arguments = s }},
		{"request message content", func(e *tape.Entry, s string) { e.Request.Messages[1].Content = s }},
		{"error", func(e *tape.Entry, s string) { e.Response, e.Error = nil, s }},
		{"user turn", func(e *tape.Entry, s string) {
			e.Response, e.Request, e.User = nil, nil, &llm.Message{Role: llm.RoleUser, Content: s}
		}},
	}
}

func entryTemplate() tape.Entry {
	return tape.Entry{
		Response: &llm.Response{Message: llm.AssistantMessage("ok", llm.ToolCall{ID: "c1", Name: "read_file", Arguments: "{}"}), FinishReason: llm.FinishToolCalls},
		Request: &tape.RequestSummary{
			Tools:       []string{"read_file", "write_file"},
			LastMessage: &llm.Message{Role: llm.RoleTool, Content: "x", ToolCallID: "c0", Name: "read_file"},
			Messages: []llm.Message{
				llm.AssistantMessage("", llm.ToolCall{ID: "c0", Name: "read_file", Arguments: "{}"}),
				llm.ToolMessage("c0", "read_file", "x"),
			},
		},
	}
}

// TestRedactorEveryFormInEveryField records each form of a known secret in
// each field of an entry, saves the tape and greps the file's bytes.
func TestRedactorEveryFormInEveryField(t *testing.T) {
	dir := t.TempDir()
	for _, form := range secretForms() {
		for _, field := range fields() {
			t.Run(form.name+" in "+field.name, func(t *testing.T) {
				r := New(&Options{SecretEnv: []string{"SERVICE_TOKEN"}, Getenv: func(k string) string {
					if k == "SERVICE_TOKEN" {
						return knownKey
					}
					return ""
				}})
				e := entryTemplate()
				field.set(&e, "before "+form.text+" after")
				r.RedactEntry(&e)
				path := filepath.Join(dir, "tape.yaml")
				if err := tape.Save(path, &tape.Tape{Entries: []tape.Entry{e}}); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range form.probes {
					if strings.Contains(string(data), p) {
						t.Errorf("the saved tape holds %q:\n%s", p, data)
					}
				}
				if !strings.Contains(string(data), "before "+Redacted) && !strings.Contains(string(data), Redacted) {
					t.Errorf("nothing was redacted:\n%s", data)
				}
				if got := r.Counts(); got["SERVICE_TOKEN"] != 1 || len(got) != 1 {
					t.Errorf("Counts = %v, want one SERVICE_TOKEN", got)
				}
			})
		}
	}
}

// TestRedactorKeySplitOverTwoToolResults: the two halves of a key, in two
// consecutive tool results, are both redacted.
func TestRedactorKeySplitOverTwoToolResults(t *testing.T) {
	r := New(&Options{Secrets: []Secret{{Kind: "--api-key", Value: knownKey}}, SecretEnv: []string{}})
	for _, cut := range []int{6, 12, len(knownKey) - 6} {
		e := entryTemplate()
		e.Request.Messages = append(e.Request.Messages,
			llm.ToolMessage("c1", "read_file", "the key file starts: "+knownKey[:cut]),
			llm.ToolMessage("c2", "read_file", knownKey[cut:]+"\n(end of file)"))
		r.RedactEntry(&e)
		got := []string{e.Request.Messages[2].Content, e.Request.Messages[3].Content}
		want := []string{"the key file starts: " + Redacted, Redacted + "\n(end of file)"}
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("cut at %d: got %q, want %q", cut, got, want)
		}
	}
	// Three results: the middle one is a piece from inside the key.
	e := entryTemplate()
	e.Request.Messages = append(e.Request.Messages,
		llm.ToolMessage("c1", "read_file", "key: "+knownKey[:7]),
		llm.ToolMessage("c2", "read_file", knownKey[7:16]),
		llm.ToolMessage("c3", "read_file", knownKey[16:]+"."))
	r.RedactEntry(&e)
	for i, want := range []string{"key: " + Redacted, Redacted, Redacted + "."} {
		if got := e.Request.Messages[2+i].Content; got != want {
			t.Errorf("three pieces: result %d = %q, want %q", i+1, got, want)
		}
	}
	if got := r.Counts()["--api-key"]; got != 9 {
		t.Errorf("Counts[--api-key] = %d, want 9", got)
	}
}

// TestRedactorShapeSplitOverLines: a shaped key broken over lines (with
// indentation, or an escaped line break in JSON) is redacted whole.
func TestRedactorShapeSplitOverLines(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab1_", 8)
	r := New(&Options{SecretEnv: []string{}})
	for _, in := range []string{
		`key:\n` + key[:12] + `\n    ` + key[12:] + `\nnext`,
		"key:\n" + key[:12] + "\n    " + key[12:] + "\n",
		"key: " + key[:20] + "  \r\n\t" + key[20:],
	} {
		out := r.Redact(in)
		if strings.Contains(out, key[:12]) || strings.Contains(out, key[12:]) || strings.Contains(out, key[20:]) || !strings.HasPrefix(out, "key:") {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
}

// TestRedactorShapeWrappedBeforeMoreText: a shaped key wrapped onto a
// line of its own is redacted whole where more text follows on the next
// line, which is kept.
func TestRedactorShapeWrappedBeforeMoreText(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab1_", 8)
	r := New(&Options{SecretEnv: []string{}})
	in := "key:\n" + key[:12] + "\n    " + key[12:] + "\nnext line"
	if got, want := r.Redact(in), "key:\n"+Redacted+"\nnext line"; got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
}

// TestRedactorPassphrase: a known value holding spaces (a passphrase) is
// found as it is written, and written without its blanks or with other
// ones, as every known value is compared without white space.
func TestRedactorPassphrase(t *testing.T) {
	const phrase = "correct horse battery staple"
	r := New(&Options{SecretEnv: []string{"APP_PASSPHRASE"}, Getenv: func(string) string { return phrase }})
	for _, in := range []string{
		"unlock with " + phrase + ".",
		"unlock with correct\thorse  battery staple.",
		"unlock with correcthorsebatterystaple.",
	} {
		if got, want := r.Redact(in), "unlock with "+Redacted+"."; got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	if got := r.Counts()["APP_PASSPHRASE"]; got != 3 {
		t.Errorf("Counts = %v, want APP_PASSPHRASE 3 times", r.Counts())
	}
}

// TestRedactorCountsAnUnnamedSecret: a Secret without a Kind is counted
// as "secret".
func TestRedactorCountsAnUnnamedSecret(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Value: "Qx7mP2vLw9-Zt4"}}})
	if got, want := r.Redact("id Qx7mP2vLw9-Zt4 end"), "id "+Redacted+" end"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if got := r.Counts(); len(got) != 1 || got["secret"] != 1 {
		t.Errorf("Counts = %v, want map[secret:1]", got)
	}
}

// TestRedactorKeyShapes: every shape is found with no known value, in the
// text around it, and counted under its kind.
func TestRedactorKeyShapes(t *testing.T) {
	cases := []struct{ kind, key string }{
		{"openai key", "sk-proj-" + strings.Repeat("Ab1_", 8)},
		{"openai key", "sk-" + strings.Repeat("x9Y", 16)},
		{"anthropic key", "sk-ant-api03-" + strings.Repeat("Qw-3", 20)},
		{"aws key", "AKIA" + "IOSFODNN7EXAMPLE"},
		{"aws key", "ASIA" + "QWERTYUIOP123456"},
		{"github token", "ghp_" + strings.Repeat("aB3", 12)},
		{"github token", "gho_" + strings.Repeat("zz9", 12)},
		{"github token", "github_pat_" + strings.Repeat("11AB_cd", 8)},
		{"hugging face token", "hf_" + strings.Repeat("AbCd3", 7)},
		{"google key", "AIza" + strings.Repeat("Sy-_9", 7)},
		{"google access token", "ya29." + strings.Repeat("a0Af-H6_.", 5)},
		{"slack token", "xoxb-1234567890-" + strings.Repeat("a1", 10)},
		{"slack token", "xoxp-" + strings.Repeat("9f", 10)},
		{"bearer token", "Bearer eyJhbGciOi.JIUzI1NiJ9.sig"},
		{"credential header", "x-api-key: 0123abcd4567efgh"},
		{"credential header", `"Authorization": "Basic dXNlcjpwYXNzd29yZA=="`},
	}
	for _, c := range cases {
		r := New(&Options{SecretEnv: []string{}})
		in := "use " + c.key + " now"
		out := r.Redact(in)
		if strings.Contains(out, c.key) || !strings.Contains(out, Redacted) || !strings.HasPrefix(out, "use ") || !strings.HasSuffix(out, " now") && !strings.HasSuffix(out, "now") {
			t.Errorf("%s: Redact(%q) = %q", c.kind, in, out)
		}
		// The part a header or bearer scheme names stays, the value goes.
		if strings.Contains(out, "dXNlcjpwYXNzd29yZA") || strings.Contains(out, "0123abcd") || strings.Contains(out, "eyJhbGci") {
			t.Errorf("%s: the credential survived: %q", c.kind, out)
		}
		if got := r.Counts(); got[c.kind] != 1 || len(got) != 1 {
			t.Errorf("%s: Counts = %v", c.kind, got)
		}
	}
}

// TestRedactorOverlapping: overlapping secrets are redacted as one, with
// nothing of the longer left, whatever order they are given in.
func TestRedactorOverlapping(t *testing.T) {
	long := "abcdefgh12345678XYZW-longer"
	short := "abcdefgh12345678"
	shaped := "sk-" + long // a shape around a known value
	for _, order := range [][]string{{"SHORT", "LONG"}, {"LONG", "SHORT"}} {
		env := map[string]string{"SHORT": short, "LONG": long}
		r := New(&Options{SecretEnv: order, Getenv: func(k string) string { return env[k] },
			Patterns: []*regexp.Regexp{regexp.MustCompile(`12345678XYZW`)}})
		for in, want := range map[string]string{
			"k=" + long + ";":   "k=" + Redacted + ";",
			"k=" + short + ";":  "k=" + Redacted + ";",
			"k=" + shaped + ";": "k=" + Redacted + ";",
			short + long:        Redacted,
		} {
			if got := r.Redact(in); got != want {
				t.Errorf("order %v: Redact(%q) = %q, want %q", order, in, got, want)
			}
		}
		want := map[string]int{"LONG": 2, "SHORT": 1, "openai key": 1}
		if got := r.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("order %v: Counts = %v, want %v", order, got, want)
		}
	}
}

func TestRedactorLeavesOrdinaryText(t *testing.T) {
	r := New(&Options{Secrets: []Secret{{Value: knownKey}}, SecretEnv: []string{}})
	for _, s := range []string{
		"Bearer authentication is described in RFC 6750.",
		"the task-skeleton is ready",
		"ask-me-anything",
		"commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
		`{"path": "notes.txt", "content": "hello\nworld\n"}`,
		"100% done, 50%% off, %zz",
		`C:\\Users\\me \u00e9t\u00e9`,
		"Zq7", // shorter than a piece of the key
		"",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
	if got := r.Counts(); len(got) != 0 {
		t.Errorf("Counts = %v, want none", got)
	}
}

func TestSecretEnvNames(t *testing.T) {
	got := SecretEnvNames([]string{"HOME=/root", "MY_API_KEY=x", "DB_PASSWORD=y", "GITHUB_TOKEN=z", "MONKEY=1", "TOKENIZER=2", "APP_SECRET=3", "MY_API_KEY=x"})
	want := []string{"APP_SECRET", "DB_PASSWORD", "GITHUB_TOKEN", "MY_API_KEY"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SecretEnvNames = %v, want %v", got, want)
	}
}

// TestRedactorShortestSecret: a known value of exactly minSecretLen (8)
// characters is redacted; one character shorter is ordinary text.
func TestRedactorShortestSecret(t *testing.T) {
	const eight, seven = "Qx7mP2vL", "Wd4nR8k"
	r := New(&Options{Secrets: []Secret{{Value: eight}, {Value: seven}}, SecretEnv: []string{}})
	if got, want := r.Redact("key "+eight+" end"), "key "+Redacted+" end"; got != want {
		t.Errorf("Redact(8-character secret) = %q, want %q", got, want)
	}
	if got, want := r.Redact("key "+seven+" end"), "key "+seven+" end"; got != want {
		t.Errorf("Redact(7-character value) = %q, want it unchanged", got)
	}
}

// TestRedactorCountsASharedPieceAsTheLongerSecret: a text that is a piece
// of two known secrets is redacted once and counted as the longer one,
// whatever order the secrets are given in.
func TestRedactorCountsASharedPieceAsTheLongerSecret(t *testing.T) {
	const piece = "defgh123"
	short := Secret{Kind: "SHORT_KEY", Value: "x7" + piece}
	long := Secret{Kind: "LONG_KEY", Value: "Kp4" + piece + "Zq9w"}
	for _, secrets := range [][]Secret{{short, long}, {long, short}} {
		r := New(&Options{Secrets: secrets, SecretEnv: []string{}})
		if got := r.Redact(piece); got != Redacted {
			t.Errorf("Redact(%q) = %q, want it redacted", piece, got)
		}
		if got := r.Counts(); len(got) != 1 || got["LONG_KEY"] != 1 {
			t.Errorf("secrets %s, %s: Counts = %v, want LONG_KEY once", secrets[0].Kind, secrets[1].Kind, got)
		}
	}
}

// TestRedactorCountsOverlappingSecretsAsTheLongest: two known secrets that
// overlap in a text (the end of one is the start of the other) are
// redacted as one and counted once, as the longer, also when the longer
// one starts later and not at the text's start.
func TestRedactorCountsOverlappingSecretsAsTheLongest(t *testing.T) {
	short := Secret{Kind: "SHORT_KEY", Value: "Ab3dEf7hJk"}
	long := Secret{Kind: "LONG_KEY", Value: "7hJkMn2pQr5tUv"}
	for _, secrets := range [][]Secret{{short, long}, {long, short}} {
		r := New(&Options{Secrets: secrets, SecretEnv: []string{}})
		in := "key: Ab3dEf7hJkMn2pQr5tUv end"
		if got, want := r.Redact(in), "key: "+Redacted+" end"; got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
		if got := r.Counts(); len(got) != 1 || got["LONG_KEY"] != 1 {
			t.Errorf("secrets %s, %s: Counts = %v, want LONG_KEY once", secrets[0].Kind, secrets[1].Kind, got)
		}
	}
}

// TestRedactorSecretOutsideTheBMPInJSON: a known secret holding a
// character outside the Basic Multilingual Plane, written in JSON as a
// \u surrogate pair, is found; a lone high surrogate does not swallow the
// \u escape after it, so a secret starting there is found too.
func TestRedactorSecretOutsideTheBMPInJSON(t *testing.T) {
	const emoji = "tok\U0001F600en-Qx7mP2vL"
	const after = "Ab3dEf7hJkMn2p"
	r := New(&Options{Secrets: []Secret{{Kind: "EMOJI", Value: emoji}, {Kind: "AFTER", Value: after}}, SecretEnv: []string{}})
	for in, want := range map[string]string{
		`{"k": "tok\ud83d\ude00en-Qx7mP2vL", "n": 1}`: `{"k": "` + Redacted + `", "n": 1}`,
		`{"k": "\ud83d\u0041b3dEf7hJkMn2p", "n": 1}`:  `{"k": "\ud83d` + Redacted + `", "n": 1}`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestSecretEnvNamesWithoutSeparator: names that say "password" or "key"
// without the separator the first rule wanted (libpq's PGPASSWORD, MySQL's
// MYSQL_PWD, OPENAI_KEY) hold secrets too; PWD and OLDPWD, the working
// directory, do not (issue 39, minor).
func TestSecretEnvNamesWithoutSeparator(t *testing.T) {
	got := SecretEnvNames([]string{"PGPASSWORD=a", "MYSQL_PWD=b", "OPENAI_KEY=c", "PWD=/root", "OLDPWD=/", "KEYBOARD=us", "HOTKEYS=f1", "SSH_AUTH_SOCK=/tmp/s"})
	want := []string{"MYSQL_PWD", "OPENAI_KEY", "PGPASSWORD"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SecretEnvNames = %v, want %v", got, want)
	}
}

// TestRedactorKeepsRedactedText: redacting what was redacted changes
// nothing. A replay's golden is written from a tape's redacted text, which
// is redacted again: a credential header's value that is already Redacted
// must not be taken for a new secret (it became "[REDACTED]]").
func TestRedactorKeepsRedactedText(t *testing.T) {
	for _, in := range []string{
		"You called with Authorization: Bearer sk-" + strings.Repeat("x9Y", 16) + " just now",
		`"Authorization": "Basic dXNlcjpwYXNzd29yZA=="`,
		"x-api-key: 0123abcd4567efgh; api-key=0123abcd4567efgh",
		"Proxy-Authorization: Token 0123abcd4567efgh",
		"Authorization: Bearer ya29." + strings.Repeat("a0Af-H6_", 4),
	} {
		r := New(&Options{SecretEnv: []string{}})
		once := r.Redact(in)
		if !strings.Contains(once, Redacted) {
			t.Errorf("Redact(%q) = %q, nothing redacted", in, once)
		}
		if twice := r.Redact(once); twice != once {
			t.Errorf("redacted again, %q became %q", once, twice)
		}
	}
}

// TestWithSecrets: the Redactor WithSecrets returns finds r's values and
// the added ones in one pass, so a known value holding a key's shape (an
// AWS key id inside a password) is redacted whole, not as the key with the
// password's ends left; r itself does not learn them, and counts what the
// new one counts too.
// TestRedactorKnowsValuesDifferingInCase: two known values that differ
// only in case are two secrets, each found in its own encodings (base64,
// hex), whether given together or the second through WithSecrets; the
// plain text of either is found by the first, counted as its kind.
func TestRedactorKnowsValuesDifferingInCase(t *testing.T) {
	const lower, upper = "9f2c4e7a1b3d5f60", "9F2C4E7A1B3D5F60"
	together := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "LOWER", Value: lower}, {Kind: "UPPER", Value: upper}}})
	added := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "LOWER", Value: lower}}}).WithSecrets([]Secret{{Kind: "UPPER", Value: upper}})
	for name, r := range map[string]*Redactor{"together": together, "WithSecrets": added} {
		for _, v := range []string{lower, upper} {
			for _, enc := range []string{base64.StdEncoding.EncodeToString([]byte(v)), hex.EncodeToString([]byte(v))} {
				mid := enc[len(enc)/2-5 : len(enc)/2+5]
				if got := r.Redact("blob " + enc + " end"); !strings.Contains(got, Redacted) || strings.Contains(got, mid) {
					t.Errorf("%s: %q (an encoding of %q) redacted as %q, want it redacted", name, enc, v, got)
				}
			}
		}
		r.Redact("key " + upper)
		if got := r.Counts(); got["LOWER"] != 1+2 {
			t.Errorf("%s: counts %v, want the plain text counted as LOWER", name, got)
		}
	}
}

func TestWithSecrets(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "PASSWORD", Value: "x-AKIAABCDEFGHIJKLMNOP-y"}}})
	r.Redact("x-AKIAABCDEFGHIJKLMNOP-y")
	w := r.WithSecrets([]Secret{{Kind: "PIN", Value: "pin.AKIAQRSTUVWXYZ012345.end"}, {Value: "short"}})
	for _, tc := range []struct {
		red        *Redactor
		text, want string
	}{
		{w, "pass x-AKIAABCDEFGHIJKLMNOP-y, pin pin.AKIAQRSTUVWXYZ012345.end.", "pass [REDACTED], pin [REDACTED]."},
		{w, "key AKIAABCDEFGHIJKLMNOQ alone; short stays", "key [REDACTED] alone; short stays"},
		{r, "pin pin.AKIAQRSTUVWXYZ012345.end.", "pin pin.[REDACTED].end."},
		{r.WithSecrets(nil), "pass x-AKIAABCDEFGHIJKLMNOP-y.", "pass [REDACTED]."},
	} {
		if got := tc.red.Quiet(tc.text); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
	w.Redact("pin.AKIAQRSTUVWXYZ012345.end")
	if got := w.Counts(); len(got) != 1 || got["PIN"] != 1 {
		t.Errorf("the new Redactor's counts: %v, want PIN 1 only", got)
	}
	if got := r.Counts(); len(got) != 2 || got["PASSWORD"] != 1 || got["PIN"] != 1 {
		t.Errorf("r's counts: %v, want PASSWORD 1 and PIN 1", got)
	}
}
