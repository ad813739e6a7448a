package replay

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

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
	out := encoded(t, tp)
	loaded, err := tape.Decode(strings.NewReader(out), "t.yaml")
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
			[]string{"t.yaml:", "the answer served was sent back", "--- served\n+++ sent back\n@@ -7,4 +7,3 @@\n", "-        signature: Y2FsbA=="}},
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
