package redact

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

func TestRedactVerdict(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
	r := New(&Options{Environ: []string{}})
	v := tape.Verdict{Rubric: "Fail an answer that quotes " + secret, Model: "openai/judge", On: "final",
		Judged: "the key is " + secret, Reason: "it leaked " + secret,
		Request: &tape.RequestSummary{Messages: []llm.Message{llm.UserMessage("text: " + secret)}}}
	r.RedactVerdict(&v)
	for _, s := range []string{v.Rubric, v.Judged, v.Reason, v.Request.Messages[0].Content} {
		if strings.Contains(s, secret) || !strings.Contains(s, Redacted) {
			t.Errorf("redacted text %q still holds the secret or no %s", s, Redacted)
		}
	}
	// What holds no secret is kept, each in its own field.
	if v.Rubric != "Fail an answer that quotes "+Redacted || v.Model != "openai/judge" || v.On != "final" {
		t.Errorf("rubric %q, model %q, on %q: want the rubric redacted, the model and what was judged kept", v.Rubric, v.Model, v.On)
	}
}

// TestRedactMessageReasoning: each part of a reasoning block (its text,
// its signature, its redacted data) is redacted in its own field, without
// the corpus TestRedactorKeepsSignatures reads.
func TestRedactMessageReasoning(t *testing.T) {
	const key = "sk-proj-tEsTkEy0123456789abcdefXYZ"
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "OPENAI_API_KEY", Value: key}}})
	m := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{
		{Text: "The file holds " + key + ".", Signature: "EqQBCkgIARABGAIiQL4+sig"},
		{Redacted: "opaque-" + key},
	}}
	r.RedactMessage(&m)
	want := []llm.Reasoning{{Text: "The file holds " + Redacted + ".", Signature: "EqQBCkgIARABGAIiQL4+sig"}, {Redacted: "opaque-" + Redacted}}
	if !slices.Equal(m.Reasoning, want) {
		t.Errorf("reasoning redacted as %+v, want %+v", m.Reasoning, want)
	}
}

// TestRedactMessageCallSignature: a tool call's signature (opaque base64
// the provider wants back) holding a known secret's base64 is redacted as
// a reasoning block's is; the rest of the call is kept.
func TestRedactMessageCallSignature(t *testing.T) {
	const key = "sk-proj-tEsTkEy0123456789abcdefXYZ"
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "OPENAI_API_KEY", Value: key}}})
	sig := base64.StdEncoding.EncodeToString([]byte(`{"ctx":"` + key + `","n":7}`))
	m := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "lookup", Arguments: `{"q":"x"}`, Signature: sig}}}
	r.RedactMessage(&m)
	c := m.ToolCalls[0]
	if c.Signature == sig || !strings.Contains(c.Signature, Redacted) {
		t.Errorf("signature %q: want the key's base64 redacted", c.Signature)
	}
	if c.ID != "call_1" || c.Name != "lookup" || c.Arguments != `{"q":"x"}` {
		t.Errorf("call %+v: want its ID, name and arguments kept", c)
	}
	if got := r.Counts()["OPENAI_API_KEY"]; got != 1 {
		t.Errorf("counts %v, want the key redacted once", r.Counts())
	}
}

// corpusOpaque collects the signatures and encrypted reasoning of the real
// recorded traffic in ../shared/corpora/wire: Gemini thoughtSignature,
// Responses encrypted_content, Anthropic and Bedrock signatures.
func corpusOpaque(t *testing.T) []string {
	t.Helper()
	// $TAPELOOP_CORPORA, or shared/corpora beside the repository or beside
	// the folder of its worktree.
	dir := filepath.Join(os.Getenv("TAPELOOP_CORPORA"), "wire")
	if os.Getenv("TAPELOOP_CORPORA") == "" {
		for _, up := range []string{"../..", "../../.."} {
			if dir = filepath.Join(up, "shared", "corpora", "wire"); exists(dir) {
				break
			}
		}
	}
	if !exists(dir) {
		t.Skipf("the wire corpus (../shared/corpora/wire, or $TAPELOOP_CORPORA/wire) is absent: the real signatures are not checked")
	}
	re := regexp.MustCompile(`\\*"(thoughtSignature|encrypted_content|signature)\\*"\s*:\s*\\*"([A-Za-z0-9+/=_-]{16,})`)
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[2])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRedactorKeepsSignatures: the redaction every recording goes through
// leaves the signatures and encrypted reasoning of real traffic unchanged
// (they are random base64, which the base64 search for known secrets and
// the key shapes must not take for a secret), in a tape and through the
// tape's encoding; a known secret in reasoning text, or quoted in a
// Responses item's summary, is redacted.
func TestRedactorKeepsSignatures(t *testing.T) {
	const key = "sk-proj-tEsTkEy0123456789abcdefXYZ"
	red := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "OPENAI_API_KEY", Value: key}}})
	blobs := corpusOpaque(t)
	if len(blobs) < 10 {
		t.Fatalf("found %d signatures in the corpus; the pattern no longer finds them", len(blobs))
	}
	for _, b := range blobs {
		m := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "t", Signature: b}, {Redacted: b}},
			ToolCalls: []llm.ToolCall{{Name: "f", Signature: b}}}
		red.RedactMessage(&m)
		if m.Reasoning[0].Signature != b || m.Reasoning[1].Redacted != b || m.ToolCalls[0].Signature != b {
			t.Errorf("the redactor changed a real signature:\n%s\nto\n%s", b, m.Reasoning[0].Signature)
		}
	}
	t.Logf("%d real signatures passed the redactor unchanged", len(blobs))

	item := `{"id":"rs_1","summary":[{"text":"The key is ` + key + `","type":"summary_text"}],"type":"reasoning"}`
	m := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "I saw " + key + " in the file.", Signature: item}}}
	red.RedactMessage(&m)
	if strings.Contains(m.Reasoning[0].Text, key) || strings.Contains(m.Reasoning[0].Signature, key) ||
		!strings.Contains(m.Reasoning[0].Signature, `"text":"The key is `+Redacted+`"`) {
		t.Errorf("a known secret in reasoning survived: %+v", m.Reasoning)
	}
	if red.Counts()["OPENAI_API_KEY"] != 2 {
		t.Errorf("counts %v, want the key redacted twice", red.Counts())
	}
}

// exists reports whether path names a file or folder.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
