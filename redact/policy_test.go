package redact

import (
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

// TestRedactShapeEndsAtLineBreak: a key shape stops at white space, so the
// line after a key stays as it was (issue 21, item 6).
func TestRedactShapeEndsAtLineBreak(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}})
	key := "sk-proj-" + strings.Repeat("Ab3_", 6)
	for _, tc := range []struct{ in, want string }{
		{"key " + key + "\nnext line stays", "key [REDACTED]\nnext line stays"},
		{"key " + key + "\r\nnext line stays", "key [REDACTED]\r\nnext line stays"},
		{`{"a":"key ` + key + `\nnext line stays"}`, `{"a":"key [REDACTED]\nnext line stays"}`},
		{"Authorization: Bearer abc.def-123456\nnext", "Authorization: Bearer [REDACTED]\nnext"},
		// Every line break counts, not only the first.
		{"first line\nkey " + key + "\nnext line stays", "first line\nkey [REDACTED]\nnext line stays"},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactJWTPEMAndURLPasswords: JWTs, PEM private key blocks and the
// password of a URL's user info are secrets whatever their value.
func TestRedactJWTPEMAndURLPasswords(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}})
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END RSA PRIVATE KEY-----"
	for _, tc := range []struct{ name, in, want string }{
		{"jwt", "token=" + jwt + " ok", "token=[REDACTED] ok"},
		{"pem", "key:\n" + pem + "\nafter", "key:\n[REDACTED]\nafter"},
		{"pem escaped in JSON", `{"k":"` + strings.ReplaceAll(pem, "\n", `\n`) + `\nafter"}`, `{"k":"[REDACTED]\nafter"}`},
		{"pem without its end", "x " + pem[:60], "x [REDACTED]"},
		{"url password", "clone https://bob:hunter2@git.example.com/r.git now", "clone https://bob:[REDACTED]@git.example.com/r.git now"},
		{"url password in postgres", "postgres://app:s3cr3t-pw@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"a url without a password stays", "https://bob@example.com/x and https://example.com:8080/a@b", "https://bob@example.com/x and https://example.com:8080/a@b"},
		{"a public key stays", "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----"},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestRedactEightCharacterSecret: 8 characters is the shortest known value
// redacted, raw, as hex and in upper case.
func TestRedactEightCharacterSecret(t *testing.T) {
	const v = "q7Wm2pZx"
	r := New(&Options{SecretEnv: []string{"DB_PASSWORD"}, Getenv: func(string) string { return v }})
	for _, in := range []string{v, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))), strings.ToUpper(v), "pw=" + v + ";"} {
		if got := r.Redact(in); strings.Contains(strings.ToLower(got), strings.ToLower(v)) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q: the 8-character secret is left", in, got)
		}
	}
	short := New(&Options{SecretEnv: []string{"DB_PASSWORD"}, Getenv: func(string) string { return "q7Wm2pZ" }})
	if got := short.Redact("q7Wm2pZ"); got != "q7Wm2pZ" {
		t.Errorf("a 7-character value is redacted: %q", got)
	}
}

// TestRedactorPolicy: with SecretEnv nil, a Redactor redacts the default
// variables, every variable whose name says it is secret, and ExtraEnv.
func TestRedactorPolicy(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY":   "openai-value-1234",
		"MY_DB_PASSWORD":   "password-value-1234",
		"CI_DEPLOY_TOKEN":  "token-value-1234",
		"PLAIN":            "plain-value-1234",
		"SERVICE_CRED_RAW": "extra-value-1234",
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	r := New(&Options{Environ: environ, ExtraEnv: []string{"SERVICE_CRED_RAW"}, Getenv: func(k string) string { return env[k] }})
	got := r.Redact("a openai-value-1234 b password-value-1234 c token-value-1234 d extra-value-1234 e plain-value-1234")
	if want := "a [REDACTED] b [REDACTED] c [REDACTED] d [REDACTED] e plain-value-1234"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestRedactEveryOccurrence: a text holding two secrets of one kind (two
// keys of a shape, two bearer tokens, ...) has both redacted, not only the
// first.
func TestRedactEveryOccurrence(t *testing.T) {
	pem := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkQ9Zr2sX\n-----END EC PRIVATE KEY-----"
	r := New(&Options{SecretEnv: []string{}, Patterns: []*regexp.Regexp{regexp.MustCompile(`pin-[0-9]{4}`)}})
	for _, tc := range []struct{ kind, in, want string }{
		{"openai key", "a sk-" + strings.Repeat("Ab3_", 5) + " b sk-" + strings.Repeat("Zy9-", 5) + " c", "a [REDACTED] b [REDACTED] c"},
		{"bearer token", "Bearer abc.def-123456 then Bearer xyz.uvw-987654", "Bearer [REDACTED] then Bearer [REDACTED]"},
		{"credential header", "x-api-key: 0123abcd4567 and api-key: 9876zyxw5432", "x-api-key: [REDACTED] and api-key: [REDACTED]"},
		{"url password", "https://a:pw-one-1@x.example and https://b:pw-two-2@y.example", "https://a:[REDACTED]@x.example and https://b:[REDACTED]@y.example"},
		{"private key", pem + "\nand\n" + pem, "[REDACTED]\nand\n[REDACTED]"},
		{"--redact", "pin-1234 and pin-5678", "[REDACTED] and [REDACTED]"},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("two of %s: Redact(%q)\n got %q\nwant %q", tc.kind, tc.in, got, tc.want)
		}
	}
}

// TestRedactCredentialCutAtLineBreak: a bearer token or header value ends
// at a line break, and is a credential only when what is left of it is 8
// characters or more, and a bearer token only when it is not one word of
// letters.
func TestRedactCredentialCutAtLineBreak(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}})
	for _, tc := range []struct{ in, want string }{
		{"Bearer abcd1234\nnext line here", "Bearer [REDACTED]\nnext line here"},
		{"Bearer abc1234\nnext line here", "Bearer abc1234\nnext line here"},
		{"x-api-key: abcd1234\nnext line here", "x-api-key: [REDACTED]\nnext line here"},
		{"x-api-key: abc1234\nnext line here", "x-api-key: abc1234\nnext line here"},
		// Words of letters, in either case, after "bearer" are prose.
		{"a bearer authorize token", "a bearer authorize token"},
		{"Bearer Abcdefghij", "Bearer Abcdefghij"},
		{"Bearer abcdefghiZ", "Bearer abcdefghiZ"},
		{"Bearer abcdefghiz", "Bearer abcdefghiz"},
		{"Bearer abcdefghi9", "Bearer [REDACTED]"},
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactCredentialHeaderEndsAtStructure: a credential header's value
// ends where the text's structure goes on (a query's "&", a fragment, a
// tag, brackets), so that what follows the key is kept in the recording,
// and a replay of the same text matches it (issue 39, item 4).
func TestRedactCredentialHeaderEndsAtStructure(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}})
	const key = "k3y_9QmZ2xW7pRs4TuV8"
	for _, tc := range []struct{ in, want string }{
		{"GET /v1/items?api-key=" + key + "&page=2", "GET /v1/items?api-key=[REDACTED]&page=2"},
		{"GET /v1/items?api-key=" + key + "#top", "GET /v1/items?api-key=[REDACTED]#top"},
		{"x-api-key: " + key + "?admin=1", "x-api-key: [REDACTED]?admin=1"},
		{"<p>Authorization: Token " + key + "</p>", "<p>Authorization: Token [REDACTED]</p>"},
		{"x-api-key=" + key + "[0]", "x-api-key=[REDACTED][0]"},
		{"{authorization: " + key + "{x}}", "{authorization: [REDACTED]{x}}"},
		{"api-key=" + key + `
`, "api-key=[REDACTED]\n"},
		// A value made only of token characters is redacted whole, as before.
		{"Authorization: Basic c3ZjOmh1bnRlcjIhIQ==", "Authorization: Basic [REDACTED]"},
		{"x-api-key: " + key + "~.+/=", "x-api-key: [REDACTED]"},
	} {
		got := r.Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if !Matches(got, tc.in) {
			t.Errorf("Matches(%q, %q) = false: a replay of the same text would diverge", got, tc.in)
		}
	}
}

// TestRedactPatternThatMayMatchNothing: a --redact pattern that can match
// the empty string redacts only the text it matches, once per match.
func TestRedactPatternThatMayMatchNothing(t *testing.T) {
	r := New(&Options{SecretEnv: []string{}, Patterns: []*regexp.Regexp{regexp.MustCompile(`[0-9]*`)}})
	if got, want := r.Redact("ab12cd"), "ab[REDACTED]cd"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	if got := r.Counts(); len(got) != 1 || got["--redact"] != 1 {
		t.Errorf("Counts = %v, want one --redact", got)
	}
}

// TestRedactEncodedSecretAtTextStart: a known secret in base64 is found
// where the text begins with it, as anywhere else.
func TestRedactEncodedSecretAtTextStart(t *testing.T) {
	const secret = "Qx7mP2vLw9-Zt4"
	r := New(&Options{Secrets: []Secret{{Value: secret}}, SecretEnv: []string{}})
	enc := base64.StdEncoding.EncodeToString([]byte(secret))
	for _, in := range []string{enc, enc + " tail", "head " + enc} {
		if got := r.Redact(in); strings.Contains(got, enc[:16]) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q, want the encoded secret redacted", in, got)
		}
	}
}

// TestRedactSecretPieceOfTheShortestLength: a text that is a piece of 6
// characters (minSplitPiece) from inside a known secret is redacted; one
// of 5 is ordinary text.
func TestRedactSecretPieceOfTheShortestLength(t *testing.T) {
	const secret = "Qx7mP2vLw9-Zt4"
	r := New(&Options{Secrets: []Secret{{Value: secret}}, SecretEnv: []string{}})
	if got := r.Redact(secret[3:9]); got != Redacted {
		t.Errorf("Redact(6-character piece %q) = %q, want it redacted", secret[3:9], got)
	}
	if got := r.Redact(secret[3:8]); got != secret[3:8] {
		t.Errorf("Redact(5-character piece %q) = %q, want it unchanged", secret[3:8], got)
	}
}

// TestRedactShapeWrappedOntoAShortestLine: a key wrapped onto a line of
// exactly minWrappedLine (16) characters that holds nothing else goes on
// there, and is redacted whole.
func TestRedactShapeWrappedOntoAShortestLine(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3_", 7) // 36 characters
	r := New(&Options{SecretEnv: []string{}})
	in := key[:20] + "\n" + key[20:]
	if len(key[20:]) != 16 {
		t.Fatalf("the wrapped line has %d characters, want 16", len(key[20:]))
	}
	if got := r.Redact(in); got != Redacted {
		t.Errorf("Redact(%q) = %q, want the whole key redacted", in, got)
	}
}

// TestRedactQuotedSecretPiece: a piece of a known secret in quotes or
// brackets, the whole text, is found inside them and redacted there.
func TestRedactQuotedSecretPiece(t *testing.T) {
	const secret = "Qx7mP2vLw9-Zt4"
	r := New(&Options{Secrets: []Secret{{Value: secret}}, SecretEnv: []string{}})
	for in, want := range map[string]string{
		`"` + secret[3:12] + `"`:  `"` + Redacted + `"`,
		`(` + secret[3:12] + `).`: `(` + Redacted + `).`,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactEscapedSecretCharacters: a known secret written with %XX in
// lower-case hex, or with a \uXXXX escape as its last characters, is
// found as the secret.
func TestRedactEscapedSecretCharacters(t *testing.T) {
	const secret = "Qx7mP2vLw9-Zt4"
	r := New(&Options{Secrets: []Secret{{Value: secret}}, SecretEnv: []string{}})
	for _, in := range []string{"k=Qx7mP2vLw9%2dZt4 end", `Qx7mP2vLw9-Zt\u0034`} {
		if got := r.Redact(in); strings.Contains(got, "Qx7mP2") || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q, want the secret redacted", in, got)
		}
	}
}
