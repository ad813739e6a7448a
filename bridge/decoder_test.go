package bridge_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestFailClosedOnEarlierChanges: the handler decodes only what a request
// adds to the previous one when the rest is byte for byte the same; a
// change anywhere else in a later request (an earlier message, a tool's
// schema) must still fail the replay, naming the tape's file and line.
func TestFailClosedOnEarlierChanges(t *testing.T) {
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	if v := verify(t, path, newNotesAgent().agentFunc(), true); !v.Passed() {
		t.Fatalf("the first replay fails: %v", v.Failures)
	}
	t.Run("the user's message, at the third call", func(t *testing.T) {
		a := newNotesAgent()
		a.edit = func(step int, msgs []chatMessage, tools []any) ([]chatMessage, []any) {
			if step == 2 {
				msgs[1].Content = "Append world to notes.txt, twice."
			}
			return msgs, tools
		}
		failsClosed(t, verify(t, path, a.agentFunc(), false), "notes.yaml:", "twice")
	})
	t.Run("the first call's arguments, at the third call", func(t *testing.T) {
		a := newNotesAgent()
		a.edit = func(step int, msgs []chatMessage, tools []any) ([]chatMessage, []any) {
			if step == 2 {
				msgs[2].ToolCalls = slices.Clone(msgs[2].ToolCalls)
				msgs[2].ToolCalls[0].Function.Arguments = `{"path":"other.txt"}`
			}
			return msgs, tools
		}
		failsClosed(t, verify(t, path, a.agentFunc(), false), "notes.yaml:", "other.txt")
	})
	t.Run("a tool's schema, at the second call", func(t *testing.T) {
		a := newNotesAgent()
		a.edit = func(step int, msgs []chatMessage, tools []any) ([]chatMessage, []any) {
			if step == 1 {
				tools[0].(map[string]any)["function"].(map[string]any)["parameters"] = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","maxLength":9}},"required":["path"]}`)
			}
			return msgs, tools
		}
		failsClosed(t, verify(t, path, a.agentFunc(), false), "notes.yaml:", "maxLength")
	})
}
