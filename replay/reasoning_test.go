package replay

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

var updateReasoning = flag.Bool("update", false, "rewrite testdata/reasoning.yaml from the tape reasoningTape builds")

// pseudoBase64 returns n bytes of base64 text that no one wrote by hand:
// the standard encoding of a counter's bytes, so the test data is stable.
func pseudoBase64(seed byte, n int) string {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = seed + byte(i*37) ^ byte(i>>3)
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// reasoningTape holds what each vendor wants back: an Anthropic signed
// thinking block and a redacted one, a Responses reasoning item (its JSON,
// with encrypted_content, as the wire formats keep it), Gemini signatures
// on a call and on text (a block of a signature alone), reasoning text
// with no signature, and a request whose assistant message carries them
// back.
func reasoningTape() *tape.Tape {
	item := `{"encrypted_content":"gAAAAAB` + pseudoBase64(1, 300) + `","id":"rs_0a1b","summary":[{"text":"**Checking the note** I will read it first.","type":"summary_text"}],"type":"reasoning"}`
	answer := llm.Message{Role: llm.RoleAssistant, Content: "Reading it.",
		Reasoning: []llm.Reasoning{
			{Text: "The user wants the note.\nRead it first.", Signature: "Eq" + pseudoBase64(2, 200)},
			{Redacted: "EmwK" + pseudoBase64(3, 90)},
			{Text: "**Checking the note** I will read it first.", Signature: item},
			{Text: "A thought with no signature."},
			{Signature: "Ci" + pseudoBase64(4, 40)},
		},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`, Signature: "CiQB" + pseudoBase64(5, 120)}}}
	sentBack := answer.Clone()
	sentBack.Reasoning = slices.DeleteFunc(sentBack.Reasoning, func(r llm.Reasoning) bool { return !opaque(r) }) // a request records the opaque blocks
	return &tape.Tape{Entries: []tape.Entry{
		{Response: &llm.Response{Message: answer, FinishReason: llm.FinishToolCalls}},
		{Response: &llm.Response{Message: llm.AssistantMessage("It says hi.")}, Request: &tape.RequestSummary{Messages: []llm.Message{
			llm.UserMessage("Read a.txt"), sentBack, llm.ToolMessage("c1", "read_file", "hi")}}},
	}}
}

// TestReasoningRoundTrip: a tape keeping reasoning and signatures encodes
// to testdata/reasoning.yaml (reviewed; -update rewrites it), decodes back
// to the same tape, and encodes again to the same bytes; no line of it is
// longer than 100 bytes, however long the signatures.
func TestReasoningRoundTrip(t *testing.T) {
	want := reasoningTape()
	out := encode(t, want)
	const golden = "testdata/reasoning.yaml"
	if *updateReasoning {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if g, err := os.ReadFile(golden); err != nil || !bytes.Equal(g, out) {
		t.Errorf("the encoding differs from %s (%v); run with -update and review:\n%s", golden, err, out)
	}
	got, err := tape.Decode(bytes.NewReader(out), "reasoning.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(zeroLines(got), want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", zeroLines(got).Entries, want.Entries)
	}
	if again := encode(t, got); !bytes.Equal(again, out) {
		t.Errorf("encoding is not stable:\n%s\nthen\n%s", out, again)
	}
	for i, line := range strings.Split(string(out), "\n") {
		if len(line) > 100 {
			t.Errorf("line %d is %d bytes long: %s", i+1, len(line), line)
		}
	}
}

// TestReasoningTextAloneIsNotRecordedInRequests: a request's message keeps
// only the blocks replay compares.
func TestReasoningTextAloneIsNotRecordedInRequests(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "unsigned"}, {Text: "signed", Signature: "c2ln"}}}
	out := encode(t, &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("x")}, Request: &tape.RequestSummary{New: []llm.Message{m}}}}})
	got, err := tape.Decode(bytes.NewReader(out), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if rs := got.Entries[0].Request.New[0].Reasoning; !reflect.DeepEqual(rs, []llm.Reasoning{{Text: "signed", Signature: "c2ln"}}) {
		t.Errorf("request reasoning %+v\n%s", rs, out)
	}
}

// TestOpaqueValues: an opaque value reads back as written in each style
// the encoder picks: one line, a literal block of lines (whose breaks are
// not part of it), double quotes for one holding a line break.
func TestOpaqueValues(t *testing.T) {
	for _, s := range []string{
		"c2ln",
		strings.Repeat("AbC+/9", 40) + "==",
		`{"id":"rs_1","summary":[{"text":"` + strings.Repeat("a few words ", 20) + `","type":"summary_text"}]}`,
		"two\nlines " + strings.Repeat("x", 80),
		strings.Repeat("é", 60),
		"   " + strings.Repeat("y", 90),
		strings.Repeat("z", 90) + " ",
		strings.Repeat(" ", 100),
		"123",
		"true",
	} {
		tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("",
			llm.ToolCall{Name: "f", Signature: s})}}}}
		out := encode(t, tp)
		got, err := tape.Decode(bytes.NewReader(out), "t.yaml")
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, out)
		}
		if g := got.Entries[0].Response.Message.ToolCalls[0].Signature; g != s {
			t.Errorf("signature %q read back as %q\n%s", s, g, out)
		}
	}
}

func TestReasoningDecodeErrors(t *testing.T) {
	const head = "format: tapeloop/v1\ntape:\n  - response:\n"
	for _, tc := range []struct {
		name, src, want string
		line            int
		key             string
	}{
		{"not a sequence", head + "      reasoning: thinking\n",
			`t.yaml:4: tape[0].response.reasoning: want a sequence, got a string ("thinking")`, 4, "tape[0].response.reasoning"},
		{"block not a mapping", head + "      reasoning:\n        - thinking\n",
			`t.yaml:5: tape[0].response.reasoning[0]: want a mapping, got a string ("thinking")`, 5, "tape[0].response.reasoning[0]"},
		{"unknown key", head + "      reasoning:\n        - {text: a, sig: b}\n",
			`t.yaml:5: tape[0].response.reasoning[0]: unknown key "sig" (want text, signature, redacted)`, 5, "tape[0].response.reasoning[0]"},
		{"empty block", head + "      content: hi\n      reasoning:\n        - {}\n",
			`t.yaml:6: tape[0].response.reasoning[0]: an empty reasoning block (want text, signature or redacted)`, 6, "tape[0].response.reasoning[0]"},
		{"redacted beside text", head + "      reasoning:\n        - text: a\n          redacted: b\n",
			`t.yaml:5: tape[0].response.reasoning[0]: redacted data beside text or a signature (a redacted block holds its data alone)`, 5, "tape[0].response.reasoning[0]"},
		{"signature a number", head + "      reasoning:\n        - signature: 12345\n",
			`t.yaml:5: tape[0].response.reasoning[0].signature: want a string, got an integer (12345); quote it`, 5, "tape[0].response.reasoning[0].signature"},
		{"folded signature", head + "      reasoning:\n        - signature: >-\n            abc\n            def\n",
			`t.yaml:5: tape[0].response.reasoning[0].signature: a folded block (>) joins its lines with spaces; write an opaque value on one line or as a literal block (|-), whose line breaks are dropped`, 5, "tape[0].response.reasoning[0].signature"},
		{"call signature a mapping", head + "      tool_calls:\n        - name: f\n          signature: {a: b}\n",
			`t.yaml:6: tape[0].response.tool_calls[0].signature: want a string, got a mapping`, 6, "tape[0].response.tool_calls[0].signature"},
		{"unknown call key", head + "      tool_calls:\n        - name: f\n          thought_signature: x\n",
			`t.yaml:6: tape[0].response.tool_calls[0]: unknown key "thought_signature" (want id, name, arguments, signature)`, 6, "tape[0].response.tool_calls[0]"},
		{"request message reasoning", "format: tapeloop/v1\ntape:\n  - response: {}\n    request:\n      new:\n        - role: assistant\n          reasoning: [{signature: [x]}]\n",
			`t.yaml:7: tape[0].request.new[0].reasoning[0].signature: want a string, got a sequence`, 7, "tape[0].request.new[0].reasoning[0].signature"},
		{"request text alone", "format: tapeloop/v1\ntape:\n  - response: {}\n    request:\n      new:\n        - role: assistant\n          reasoning:\n            - text: unsigned\n",
			`t.yaml:8: tape[0].request.new[0].reasoning[0]: reasoning text without a signature in a request (replay compares only signed and redacted blocks; leave it out)`, 8, "tape[0].request.new[0].reasoning[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := tape.Decode(strings.NewReader(tc.src), "t.yaml")
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", tp)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got %s\nwant %s", err, tc.want)
			}
			var fe *fileerr.Error
			if !errors.Is(err, tape.ErrFormat) || !errors.As(err, &fe) || fe.Line != tc.line || fe.Key != tc.key {
				t.Errorf("error %#v, want ErrFormat at line %d, key %q", err, tc.line, tc.key)
			}
		})
	}
}

// TestSameReasoning: replay compares the opaque blocks whole, in order,
// and not reasoning text given without a signature.
func TestSameReasoning(t *testing.T) {
	signed := llm.Reasoning{Text: "think", Signature: "c2ln"}
	redacted := llm.Reasoning{Redacted: "ZGF0YQ=="}
	text := llm.Reasoning{Text: "notes"}
	for _, tc := range []struct {
		name string
		a, b []llm.Reasoning
		same bool
	}{
		{"none", nil, nil, true},
		{"equal", []llm.Reasoning{signed, redacted}, []llm.Reasoning{signed, redacted}, true},
		{"unsigned text dropped", []llm.Reasoning{text, signed}, []llm.Reasoning{signed}, true},
		{"unsigned text changed", []llm.Reasoning{text}, []llm.Reasoning{{Text: "other"}}, true},
		{"signature dropped", []llm.Reasoning{signed}, []llm.Reasoning{{Text: "think"}}, false},
		{"signature changed", []llm.Reasoning{signed}, []llm.Reasoning{{Text: "think", Signature: "c2lN"}}, false},
		{"signed text changed", []llm.Reasoning{signed}, []llm.Reasoning{{Text: "thought", Signature: "c2ln"}}, false},
		{"redacted dropped", []llm.Reasoning{signed, redacted}, []llm.Reasoning{signed}, false},
		{"order", []llm.Reasoning{signed, redacted}, []llm.Reasoning{redacted, signed}, false},
	} {
		if got := sameReasoning(tc.a, tc.b); got != tc.same {
			t.Errorf("%s: sameReasoning = %v, want %v", tc.name, got, tc.same)
		}
		if got := sameReasoning(tc.b, tc.a); got != tc.same {
			t.Errorf("%s (swapped): sameReasoning = %v, want %v", tc.name, got, tc.same)
		}
	}
	call := llm.ToolCall{ID: "c1", Name: "f", Arguments: "{}", Signature: "c2ln"}
	a := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}
	b := a.Clone()
	b.ToolCalls[0].Signature = ""
	if equalMessage(a, b) {
		t.Error("a call whose signature was dropped compares equal")
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
	red := redact.New(&redact.Options{SecretEnv: []string{}, Secrets: []redact.Secret{{Kind: "OPENAI_API_KEY", Value: key}}})
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
		!strings.Contains(m.Reasoning[0].Signature, `"text":"The key is `+redact.Redacted+`"`) {
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

// TestReplayComparesWhatComesBack: a Model serves the recorded reasoning
// and signatures, and the next request passes when it sends them back
// (with or without the unsigned text), and diverges, showing the answer
// served against the one sent back, when a signature is altered or
// dropped or a signed block is missing.
func TestReplayComparesWhatComesBack(t *testing.T) {
	answer := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "notes to self"}, {Text: "signed", Signature: "c2lnbmVk"}},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "f", Arguments: "{}", Signature: "Y2FsbA=="}}}
	tp := &tape.Tape{Entries: []tape.Entry{
		{Response: &llm.Response{Message: answer, FinishReason: llm.FinishToolCalls}, Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("go")}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("done")}, Request: &tape.RequestSummary{New: []llm.Message{llm.ToolMessage("c1", "f", "ok")}}},
	}}
	out := encode(t, tp)
	loaded, err := tape.Decode(bytes.NewReader(out), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(m *llm.Message)
		wants  []string // empty: passes
	}{
		{"unchanged", func(*llm.Message) {}, nil},
		{"unsigned text dropped", func(m *llm.Message) { m.Reasoning = m.Reasoning[1:] }, nil},
		{"call signature dropped", func(m *llm.Message) { m.ToolCalls[0].Signature = "" },
			[]string{"t.yaml:", "the answer served was sent back", "--- served\n+++ sent back\n", "-        signature: Y2FsbA=="}},
		{"block signature altered", func(m *llm.Message) { m.Reasoning[1].Signature = "c2lnbmVE" },
			[]string{"-        signature: c2lnbmVk", "+        signature: c2lnbmVE"}},
		{"signed block dropped", func(m *llm.Message) { m.Reasoning = m.Reasoning[:1] },
			[]string{"-    reasoning:", "-      - text: signed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(loaded, nil)
			req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}
			resp, err := m.Generate(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp.Message, answer) {
				t.Fatalf("served %+v, want %+v", resp.Message, answer)
			}
			back := resp.Message.Clone()
			tc.change(&back)
			req.Messages = append(req.Messages, back, llm.ToolMessage("c1", "f", "ok"))
			_, err = m.Generate(t.Context(), req)
			if len(tc.wants) == 0 {
				if err != nil {
					t.Errorf("diverged: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrDiverged) {
				t.Fatalf("error %v, want a divergence", err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the divergence does not say %q:\n%v", w, err)
				}
			}
		})
	}
}
