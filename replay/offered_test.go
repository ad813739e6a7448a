package replay

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// agentSetup is what a tiny agent sends: its system prompt, its tools and
// how its tools answer.
type agentSetup struct {
	system string
	tools  []llm.ToolDefinition
	result func(call llm.ToolCall) string
}

func baseAgent() agentSetup {
	return agentSetup{
		system: "You keep notes.\nAnswer briefly.",
		tools: []llm.ToolDefinition{
			{Name: "write_file", Description: "Write a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
			{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		},
		result: func(c llm.ToolCall) string { return "ran " + c.Name },
	}
}

// run drives m as an agent loop would: system prompt and user message,
// then each response's calls answered by the agent's tools, until a final
// text. It returns the first error.
func (a agentSetup) run(m llm.Model) error {
	req := &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage("Write hello to notes.txt.")}, Tools: a.tools}
	for range 10 {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return nil
		}
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, a.result(c)))
		}
	}
	return errors.New("the loop did not finish")
}

// recordAgent records baseAgent's run against a scripted model and reads
// the tape back from its encoding, as a file would give it.
func recordAgent(t *testing.T) *tape.Tape {
	t.Helper()
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello"}`})},
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path": "notes.txt"}`})},
		&llm.Response{Message: llm.AssistantMessage("Done.")},
	), &RecorderOptions{Redactor: redact.New(nil)})
	if err := baseAgent().run(rec); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tape.Encode(&b, rec.Tape()); err != nil {
		t.Fatal(err)
	}
	tp, err := tape.Decode(strings.NewReader(b.String()), "notes.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return tp
}

// changes are the changes teams make to an agent most often, each with
// what its divergence must say.
var agentChanges = []struct {
	name   string
	change func(*agentSetup)
	want   []string
}{
	{"system prompt", func(a *agentSetup) { a.system = "You keep notes.\nAnswer in full sentences." },
		[]string{"tape[0] at notes.yaml:", "offered.system differs", "offered.system (recorded at notes.yaml:3): the system prompt changed:",
			"--- recorded\n+++ actual\n@@ -1,2 +1,2 @@\n You keep notes.\n-Answer briefly.\n+Answer in full sentences."}},
	{"tool description", func(a *agentSetup) { a.tools[1].Description = "Read a text file." },
		[]string{"offered.tools differs", "  tool read_file: description changed:\n    --- recorded\n    +++ actual\n    @@ -1 +1 @@\n    -Read a file.\n    +Read a text file."}},
	{"first tool's description", func(a *agentSetup) { a.tools[0].Description = "Write a text file." },
		[]string{"offered.tools differs", "  tool write_file: description changed:\n    --- recorded\n    +++ actual\n    @@ -1 +1 @@\n    -Write a file.\n    +Write a text file."}},
	{"tool schema", func(a *agentSetup) {
		a.tools[1].Parameters = []byte(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`)
	}, []string{"offered.tools differs", "  tool read_file: parameters (schema) changed, as JSON:\n",
		"    +    \"limit\": {\n    +      \"type\": \"integer\"\n    +    },\n"}},
	{"tool result", func(a *agentSetup) {
		a.result = func(c llm.ToolCall) string { return "wrote notes.txt (5 bytes)" }
	}, []string{"tape[1] at notes.yaml:", "new differs", "new: the messages added since the previous request changed:",
		"-    content: ran write_file\n+    content: wrote notes.txt (5 bytes)\n"}},
}

func TestChangedRequestsFailWithTheirDiff(t *testing.T) {
	tp := recordAgent(t)
	if err := baseAgent().run(NewModel(tp, nil)); err != nil {
		t.Fatalf("the unchanged agent: %v", err)
	}
	for _, c := range agentChanges {
		t.Run(c.name, func(t *testing.T) {
			a := baseAgent()
			c.change(&a)
			err := a.run(NewModel(tp, nil))
			if !errors.Is(err, ErrDiverged) {
				t.Fatalf("err = %v, want a divergence", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the divergence lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestRenamedToolDiverges: a tool offered under another name, with the
// same description and parameters, is reported as renamed, not as one tool
// removed and another added; rebase refuses it, since the recorded
// responses call the old name.
func TestRenamedToolDiverges(t *testing.T) {
	tp := recordAgent(t)
	for _, i := range []int{0, 1} {
		a := baseAgent()
		old := a.tools[i].Name
		a.tools[i].Name = "new_" + old
		err := a.run(NewModel(tp, nil))
		if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "  tool "+old+": name changed to new_"+old) ||
			strings.Contains(err.Error(), "removed") || strings.Contains(err.Error(), "added") {
			t.Errorf("%s renamed: err = %v, want it named a rename", old, err)
		}
		var stale *StaleError
		if err := a.run(NewModel(tp, &ModelOptions{Rebase: true})); !errors.As(err, &stale) || !strings.Contains(err.Error(), "calls "+old+", which the agent no longer offers") {
			t.Errorf("%s renamed, in rebase mode: err = %v, want the tape stale", old, err)
		}
	}
}

func TestRebaseAcceptsChangedRequests(t *testing.T) {
	tp := recordAgent(t)
	for _, c := range agentChanges {
		t.Run(c.name, func(t *testing.T) {
			a := baseAgent()
			c.change(&a)
			m := NewModel(tp, &ModelOptions{Rebase: true})
			if err := a.run(m); err != nil {
				t.Fatalf("the run in rebase mode: %v", err)
			}
			rb, err := m.Rebased(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !rb.Changed() {
				t.Fatal("the rebase changed nothing")
			}
			if err := a.run(NewModel(rb.Tape, nil)); err != nil {
				t.Errorf("the changed agent against the rebased tape: %v", err)
			}
			if err := baseAgent().run(NewModel(rb.Tape, nil)); !errors.Is(err, ErrDiverged) {
				t.Errorf("the old agent against the rebased tape: err = %v, want a divergence", err)
			}
			// The responses are the recorded ones, untouched.
			for i, e := range rb.Tape.Entries {
				if e.Response.Message.Content != tp.Entries[i].Response.Message.Content || len(e.Response.Message.ToolCalls) != len(tp.Entries[i].Response.Message.ToolCalls) {
					t.Errorf("tape[%d].response changed: %+v", i, e.Response)
				}
			}
		})
	}
}

func TestRebaseRefusesAResponseThatNoLongerApplies(t *testing.T) {
	tp := recordAgent(t)
	cases := []struct {
		name   string
		change func(*agentSetup)
		want   string
	}{
		{"a removed tool", func(a *agentSetup) { a.tools = a.tools[:1] },
			"replay: tape[1] at notes.yaml:38: the recorded response no longer applies; record the scenario again: response.tool_calls[0] calls read_file, which the agent no longer offers"},
		{"arguments the new schema refuses", func(a *agentSetup) {
			a.tools[0].Parameters = []byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"string"}},"required":["path","content","mode"]}`)
		}, `replay: tape[0] at notes.yaml:29: the recorded response no longer applies; record the scenario again: response.tool_calls[0]: the arguments of write_file {"path": "notes.txt", "content": "hello"} passed the recorded schema but fail the current one`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := baseAgent()
			c.change(&a)
			m := NewModel(tp, &ModelOptions{Rebase: true})
			err := a.run(m)
			if !errors.Is(err, ErrStale) || err.Error() != c.want {
				t.Errorf("run error:\n got %v\nwant %s", err, c.want)
			}
			if _, err := m.Rebased(nil); !errors.Is(err, ErrStale) {
				t.Errorf("Rebased error = %v, want ErrStale", err)
			}
		})
	}
}

// TestUnstatedPartsAreNotCompared: a hand-written tape that states no
// offered block and no new messages replays whatever the agent offers.
func TestUnstatedPartsAreNotCompared(t *testing.T) {
	tp := recordAgent(t)
	tp.Offered = nil
	for i := range tp.Entries {
		tp.Entries[i].Request = nil
	}
	for _, c := range agentChanges {
		a := baseAgent()
		c.change(&a)
		if err := a.run(NewModel(tp, nil)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// A block stating only the tools does not compare the system prompt.
	tp = recordAgent(t)
	tp.Offered.System = nil
	a := baseAgent()
	agentChanges[0].change(&a)
	if err := a.run(NewModel(tp, nil)); err != nil {
		t.Errorf("system prompt changed, not stated: %v", err)
	}
	// RebaseOptions.All pins the unstated parts.
	m := NewModel(tp, &ModelOptions{Rebase: true})
	if err := a.run(m); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(&RebaseOptions{All: true})
	if err != nil || !rb.Offered || rb.Tape.Offered.System == nil || rb.Tape.Offered.System[0] != a.system {
		t.Fatalf("Rebased(All) = %+v, %v; want the system prompt pinned", rb, err)
	}
	if err := baseAgent().run(NewModel(rb.Tape, nil)); !errors.Is(err, ErrDiverged) {
		t.Errorf("after pinning, the old system prompt: err = %v, want a divergence", err)
	}
}

// TestOfferedChangedMidRun: a request that offers other tools than the one
// before is recorded on its entry, and replay checks the later requests
// against the change.
func TestOfferedChangedMidRun(t *testing.T) {
	withTools := func(tools ...string) *llm.Request {
		req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}
		for _, n := range tools {
			req.Tools = append(req.Tools, llm.ToolDefinition{Name: n})
		}
		return req
	}
	rec := NewRecorder(scriptedModel(&llm.Response{Message: llm.AssistantMessage("a")}, &llm.Response{Message: llm.AssistantMessage("b")}), &RecorderOptions{Redactor: redact.New(nil)})
	for _, req := range []*llm.Request{withTools("a"), withTools("a", "b")} {
		if _, err := rec.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	if tp.Entries[0].Request.Offered != nil || tp.Entries[1].Request.Offered == nil || len(tp.Entries[1].Request.Offered.Tools) != 2 || tp.Entries[1].Request.Offered.System != nil {
		t.Fatalf("entries' offered = %+v, %+v; want the tools change on the second only", tp.Entries[0].Request.Offered, tp.Entries[1].Request.Offered)
	}
	m := NewModel(tp, nil)
	if _, err := m.Generate(context.Background(), withTools("a")); err != nil {
		t.Fatal(err)
	}
	_, err := m.Generate(context.Background(), withTools("a"))
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "  tool b: removed (recorded, no longer offered)") {
		t.Errorf("err = %v, want tool b removed", err)
	}
}

// TestRewrittenConversationDiverges: a request that does not extend the
// previous request's messages (the agent rewrote the conversation, e.g. to
// summarise it) diverges with a diff saying so and showing what it holds;
// one that extends them with other messages shows only those.
func TestRewrittenConversationDiverges(t *testing.T) {
	tp := recordAgent(t)
	a := baseAgent()
	second := func(user, result string) error {
		m := NewModel(tp, nil)
		req := &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage("Write hello to notes.txt.")}, Tools: a.tools}
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			return err
		}
		c := resp.Message.ToolCalls[0]
		req = &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage(user), resp.Message, llm.ToolMessage(c.ID, c.Name, result)}, Tools: a.tools}
		_, err = m.Generate(context.Background(), req)
		return err
	}
	const rewrote = "+# the request does not extend the previous request's conversation; it holds:\n"
	err := second("Summary: the user wants hello in notes.txt.", "ran write_file")
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "new differs") || !strings.Contains(err.Error(), rewrote) ||
		!strings.Contains(err.Error(), "+    content: 'Summary: the user wants hello in notes.txt.'") {
		t.Errorf("a rewritten conversation: err = %v, want a divergence in new saying so", err)
	}
	err = second("Write hello to notes.txt.", "failed")
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "new differs") || strings.Contains(err.Error(), rewrote) {
		t.Errorf("an extended conversation: err = %v, want a divergence in new, not a rewrite", err)
	}
}

// offered.system is one text or a list of them (each system message);
// system: [] records that the run had none.
// An offered change replaces only the parts it records: a new system prompt
// keeps the tools offered before, and new tools keep the system prompt.
func TestOfferedChangeKeepsUnrecordedParts(t *testing.T) {
	base := &tape.Offered{System: []string{"old"}, Tools: []llm.ToolDefinition{{Name: "read_file"}}}
	if got := with(base, &tape.Offered{System: []string{"new"}}); !slices.Equal(got.System, []string{"new"}) || len(got.Tools) != 1 || got.Tools[0].Name != "read_file" {
		t.Errorf("a new system prompt: %+v, want system [new] and the tools kept", got)
	}
	if got := with(base, &tape.Offered{Tools: []llm.ToolDefinition{{Name: "write_file"}}}); !slices.Equal(got.System, []string{"old"}) || len(got.Tools) != 1 || got.Tools[0].Name != "write_file" {
		t.Errorf("new tools: %+v, want system [old] kept and the tools [write_file]", got)
	}
	if got := with(base, &tape.Offered{ResponseSchema: []byte(`{"type":"object"}`)}); string(got.ResponseSchema) != `{"type":"object"}` || !slices.Equal(got.System, []string{"old"}) {
		t.Errorf("a new response schema alone: %+v, want it recorded and system [old] kept", got)
	}
}

// TestMovedBreakpointNotPinned: the tape keeps where the recorded requests
// put their cache breakpoints, and a replay whose requests put them
// elsewhere still follows it: a breakpoint changes what a provider caches,
// not the answer.
func TestMovedBreakpointNotPinned(t *testing.T) {
	a := baseAgent()
	run := func(m llm.Model, marks func(*llm.Request) []llm.CacheMark) error {
		req := &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage("Write hello to notes.txt.")}, Tools: a.tools}
		for range 10 {
			req.Cache = marks(req)
			resp, err := m.Generate(context.Background(), req)
			if err != nil {
				return err
			}
			req.Messages = append(slices.Clone(req.Messages), resp.Message)
			if len(resp.Message.ToolCalls) == 0 {
				return nil
			}
			for _, c := range resp.Message.ToolCalls {
				req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, a.result(c)))
			}
		}
		return errors.New("the loop did not finish")
	}
	systemOnly := func(*llm.Request) []llm.CacheMark { return []llm.CacheMark{{Index: 0}} }
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello"}`})},
		&llm.Response{Message: llm.AssistantMessage("Done.")},
	), &RecorderOptions{Redactor: redact.New(nil)})
	if err := run(rec, systemOnly); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tape.Encode(&b, rec.Tape()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  cache: [system]\n") {
		t.Errorf("the tape does not keep the breakpoint:\n%s", b.String())
	}
	tp, err := tape.Decode(strings.NewReader(b.String()), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	moved := func(r *llm.Request) []llm.CacheMark {
		return []llm.CacheMark{{Tools: true, Index: 1}, {Index: len(r.Messages) - 1}}
	}
	if err := run(NewModel(tp, nil), moved); err != nil {
		t.Errorf("breakpoints moved: %v, want the replay to follow the tape", err)
	}
}

// TestToolOfferedTwice: a tape records one tool per name, so a request
// offering two tools of one name is refused where it would be written (a
// recording, a rebase) before anything is sent, naming the tool; a replay
// whose agent now offers a tool twice diverges with a diff that says so;
// and what was offered compares as a multiset, so [a, a] and [a, b] are
// different offers whichever was first.
func TestToolOfferedTwice(t *testing.T) {
	withTools := func(tools ...string) *llm.Request {
		req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}
		for _, n := range tools {
			req.Tools = append(req.Tools, llm.ToolDefinition{Name: n})
		}
		return req
	}
	t.Run("recording", func(t *testing.T) {
		sent := 0
		vendor := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			sent++
			return &llm.Response{Message: llm.AssistantMessage("ok")}, nil
		})
		rec := NewRecorder(vendor, &RecorderOptions{Redactor: redact.New(nil)})
		if _, err := rec.Generate(context.Background(), withTools("a")); err != nil {
			t.Fatal(err)
		}
		_, err := rec.Generate(context.Background(), withTools("a", "b", "a"))
		if !errors.Is(err, ErrDuplicateTool) || !strings.Contains(err.Error(), `tools[0] and tools[2] both named "a"`) {
			t.Errorf("err = %v, want ErrDuplicateTool naming a at tools[0] and tools[2]", err)
		}
		if sent != 1 || len(rec.Tape().Entries) != 1 {
			t.Errorf("the vendor saw %d requests, the tape holds %d entries; want the refused one neither sent nor recorded", sent, len(rec.Tape().Entries))
		}
	})
	rec := NewRecorder(scriptedModel(&llm.Response{Message: llm.AssistantMessage("a")}), &RecorderOptions{Redactor: redact.New(nil)})
	if _, err := rec.Generate(context.Background(), withTools("a", "b")); err != nil {
		t.Fatal(err)
	}
	tp := rec.Tape()
	t.Run("replay", func(t *testing.T) {
		_, err := NewModel(tp, nil).Generate(context.Background(), withTools("a", "a"))
		if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "  tool a: offered 2 times (recorded once)\n") ||
			!strings.Contains(err.Error(), "  tool b: removed (recorded, no longer offered)") {
			t.Errorf("err = %v, want a divergence naming a offered twice and b removed", err)
		}
	})
	t.Run("rebase", func(t *testing.T) {
		_, err := NewModel(tp, &ModelOptions{Rebase: true}).Generate(context.Background(), withTools("a", "a"))
		if !errors.Is(err, ErrDuplicateTool) || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("err = %v, want ErrDuplicateTool naming a", err)
		}
	})
	t.Run("compare", func(t *testing.T) {
		aa, ab := withTools("a", "a").Tools, withTools("a", "b").Tools
		if sameTools(aa, ab) || sameTools(ab, aa) {
			t.Errorf("sameTools([a a], [a b]) = %v, sameTools([a b], [a a]) = %v; want both false", sameTools(aa, ab), sameTools(ab, aa))
		}
		ba := withTools("b", "a").Tools
		if !sameTools(ab, ba) {
			t.Error("sameTools([a b], [b a]) = false, want the same tools in another order")
		}
	})
}
