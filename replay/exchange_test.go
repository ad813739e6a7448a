package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// sortedKeysAgent is a loop on an SDK that parses each call's arguments
// and encodes them again when it sends the answer back, as
// google.golang.org/genai does (its keys come back sorted); change, when
// set, alters the answer it sends back after that. It returns the final
// text or the first error.
func sortedKeysAgent(m llm.Model, change func(*llm.Message)) (string, error) {
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("Append a line.")}, Tools: []llm.ToolDefinition{{Name: "append_file"}}}
	for range 5 {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			return "", err
		}
		back := resp.Message.Clone()
		for i, c := range back.ToolCalls {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
				return "", err
			}
			sorted, _ := json.Marshal(args)
			back.ToolCalls[i].Arguments = string(sorted)
		}
		if change != nil {
			change(&back)
		}
		if len(back.ToolCalls) == 0 {
			return back.Content, nil
		}
		req.Messages = append(req.Messages, back)
		for _, c := range back.ToolCalls {
			req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, "appended"))
		}
	}
	return "", errors.New("loop did not finish")
}

// TestEchoedArgumentsCompareAsJSONValues: an answer sent back with its
// calls' arguments in other bytes but the same JSON values (keys sorted)
// is the answer sent back, so the recording leaves it out of what the next
// request added, as it does an answer sent back byte for byte; replay
// accepts it the same way, and a tape that recorded it (as tapes did
// before) still replays. An answer sent back with a value changed, or its
// call signature changed, diverges, with a diff saying so.
func TestEchoedArgumentsCompareAsJSONValues(t *testing.T) {
	answer := llm.AssistantMessage("Appending.", llm.ToolCall{ID: "c1", Name: "append_file",
		Arguments: `{"path":"log.txt","content":"line 1\n"}`, Signature: "c2ln"})
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: answer, FinishReason: llm.FinishToolCalls},
		&llm.Response{Message: llm.AssistantMessage("Done."), FinishReason: llm.FinishStop},
	), &RecorderOptions{Redactor: redact.New(nil)})
	if final, err := sortedKeysAgent(rec, nil); err != nil || final != "Done." {
		t.Fatalf("recording: %q, %v", final, err)
	}
	tp := rec.Tape()
	tp.File = "t.yaml"
	if nw := tp.Entries[1].Request.New; len(nw) != 1 || nw[0].Role != llm.RoleTool {
		t.Fatalf("the second request recorded as new %+v, want the tool result alone", nw)
	}
	// As tapes recorded it before: the answer as it was sent back first.
	old := tp.Clone()
	sentBack := answer.Clone()
	sentBack.ToolCalls[0].Arguments = `{"content":"line 1\n","path":"log.txt"}`
	old.Entries[1].Request.New = append([]llm.Message{sentBack}, old.Entries[1].Request.New...)

	changeContent := func(m *llm.Message) {
		if len(m.ToolCalls) > 0 {
			m.ToolCalls[0].Arguments = strings.Replace(m.ToolCalls[0].Arguments, "line 1", "line 2", 1)
		}
	}
	changeSignature := func(m *llm.Message) {
		if len(m.ToolCalls) > 0 {
			m.ToolCalls[0].Signature = "c2lH"
		}
	}
	for _, tc := range []struct {
		name   string
		tape   *tape.Tape
		change func(*llm.Message)
		wants  []string // empty: passes
	}{
		{"sent back with sorted keys", tp, nil, nil},
		{"recorded with the answer sent back", old, nil, nil},
		{"a value changed", tp, changeContent, []string{"t.yaml:", "new: the messages added since the previous request changed",
			"+  - role: assistant", `+        arguments: '{"content":"line 2\n","path":"log.txt"}'`}},
		{"a value changed, recorded with the answer sent back", old, changeContent, []string{"new: the messages added",
			`-        arguments: '{"content":"line 1\n","path":"log.txt"}'`, `+        arguments: '{"content":"line 2\n","path":"log.txt"}'`}},
		{"signature changed", tp, changeSignature, []string{"the answer served was sent back with its reasoning or call signatures changed",
			"-        signature: c2ln", "+        signature: c2lH"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tape.Encode(&buf, tc.tape); err != nil {
				t.Fatal(err)
			}
			loaded, err := tape.Decode(&buf, "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			m := NewModel(loaded, nil)
			final, err := sortedKeysAgent(m, tc.change)
			if len(tc.wants) == 0 {
				if err != nil || final != "Done." || m.Unused() != nil {
					t.Errorf("replay: %q, %v, unused: %v", final, err, m.Unused())
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

// TestSameArguments: arguments are the same when they are the same JSON
// value, whatever the key order or spacing; any difference of value, a
// number written otherwise, or text that is not JSON differing in a byte,
// makes them differ.
func TestSameArguments(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"path":"a.txt"}`, `{"path":"a.txt"}`, true},
		{`{"path":"a.txt","content":"x\n"}`, `{"content":"x\n","path":"a.txt"}`, true},
		{`{"q": {"b": [1, {"y": 2, "x": 1}], "a": null}}`, `{"q":{"a":null,"b":[1,{"x":1,"y":2}]}}`, true},
		{`{"s":"\u0041\/"}`, `{"s":"A/"}`, true},
		{`{"path":"a.txt","content":"x\n"}`, `{"content":"y\n","path":"a.txt"}`, false},
		{`{"path":"a.txt"}`, `{"path":"a.txt","mode":"w"}`, false},
		{`{"n":1}`, `{"n":1.0}`, false},
		{`{"n":1}`, `{"n":"1"}`, false},
		{`{"xs":[1,2]}`, `{"xs":[2,1]}`, false},
		{`{"path": "a.txt",}`, `{"path": "a.txt",}`, true},
		{`{"path": "a.txt",}`, `{"path":"a.txt",}`, false},
		{`{"path":"a.txt"}`, `{"path":"a.txt"} {}`, false},
		{``, `{}`, false},
	} {
		if got := sameArguments(tc.a, tc.b); got != tc.same {
			t.Errorf("sameArguments(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := sameArguments(tc.b, tc.a); got != tc.same {
			t.Errorf("sameArguments(%s, %s) = %v, want %v", tc.b, tc.a, got, tc.same)
		}
	}
}
