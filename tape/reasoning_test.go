package tape_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/llm"
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
	sentBack.Reasoning = slices.DeleteFunc(sentBack.Reasoning, func(r llm.Reasoning) bool { return r.Signature == "" && r.Redacted == "" }) // a request records the opaque blocks
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

// TestOpaqueValuesRandom: opaque values drawn from an alphabet of what
// trips YAML (spaces and tabs, quotes, colons, hashes, dashes, non-ASCII,
// line breaks) read back as written, whatever their length.
func TestOpaqueValuesRandom(t *testing.T) {
	alphabet := []rune("AZaz09+/=_- \t\"':#{}[],&*!|>%@`é€\n\\")
	rng := rand.New(rand.NewPCG(36, 1))
	wrapped := 0
	for k := range 500 {
		rs := make([]rune, rng.IntN(300))
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
			if k%2 == 0 && rs[i] == '\n' {
				rs[i] = 'n' // half the values on one line, long ones written as blocks
			}
		}
		if _, ok := tape.WrapOpaque(string(rs)); ok {
			wrapped++
		}
		s := string(rs)
		tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
			Reasoning: []llm.Reasoning{{Signature: s + "x"}}, ToolCalls: []llm.ToolCall{{Name: "f", Signature: s}}}}}}}
		var buf bytes.Buffer
		if err := tape.Encode(&buf, tp); err != nil {
			t.Fatal(err)
		}
		out := buf.Bytes()
		got, err := tape.Decode(bytes.NewReader(out), "t.yaml")
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, out)
		}
		m := got.Entries[0].Response.Message
		if m.ToolCalls[0].Signature != s || m.Reasoning[0].Signature != s+"x" {
			t.Fatalf("%q read back as %q and %q\n%s", s, m.ToolCalls[0].Signature, m.Reasoning[0].Signature, out)
		}
	}
	if wrapped < 100 {
		t.Errorf("only %d of 500 values were written as blocks; the test no longer exercises them", wrapped)
	}
}
