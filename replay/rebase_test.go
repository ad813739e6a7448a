package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// Tests of what Model.Rebased writes: which parts of which entries it
// restates, and that it leaves alone what did not change.

// rebased runs a against tp in rebase mode and returns Rebased(opts).
func rebased(t *testing.T, tp *tape.Tape, a agentSetup, opts *RebaseOptions) *Rebase {
	t.Helper()
	m := NewModel(tp, &ModelOptions{Rebase: true})
	if err := a.run(m); err != nil {
		t.Fatalf("the run in rebase mode: %v", err)
	}
	rb, err := m.Rebased(opts)
	if err != nil {
		t.Fatalf("Rebased: %v", err)
	}
	return rb
}

// encoded is t as a tape file holds it.
func encoded(t *testing.T, tp *tape.Tape) string {
	t.Helper()
	var b strings.Builder
	if err := tape.Encode(&b, tp); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// recordWith records a's run of the three responses recordAgent's tape
// holds, with opts.
func recordWith(t *testing.T, a agentSetup, opts RecorderOptions) *tape.Tape {
	t.Helper()
	if opts.Redactor == nil {
		opts.Redactor = redact.New(nil) // no environment's values
	}
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello"}`})},
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path": "notes.txt"}`})},
		&llm.Response{Message: llm.AssistantMessage("Done.")},
	), &opts)
	if err := a.run(rec); err != nil {
		t.Fatal(err)
	}
	return rec.Tape()
}

// An agent that sends what it sent when recorded rebases to the same tape:
// nothing changed, nothing added.
func TestRebaseOfAnUnchangedRunChangesNothing(t *testing.T) {
	full := recordWith(t, baseAgent(), RecorderOptions{RecordMessages: true})
	noRequests := recordAgent(t) // the offered block, but no entry states its request
	for i := range noRequests.Entries {
		noRequests.Entries[i].Request = nil
	}
	for name, tp := range map[string]*tape.Tape{"new": recordAgent(t), "every part": full, "offered only": noRequests} {
		rb := rebased(t, tp, baseAgent(), nil)
		if rb.Changed() || rb.Offered || len(rb.Entries) != 0 {
			t.Errorf("%s: Changed() = %v (offered %v, entries %v), want nothing changed", name, rb.Changed(), rb.Offered, rb.Entries)
		}
		if got, want := encoded(t, rb.Tape), encoded(t, tp); got != want {
			t.Errorf("%s: the rebased tape differs from the recording:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// Rebasing a tape after a change gives what recording the changed agent
// gives, part for part, whatever parts the recording stated.
func TestRebaseRestatesWhatTheRecordingStated(t *testing.T) {
	changed := baseAgent()
	changed.tools = append(changed.tools, llm.ToolDefinition{Name: "list_files", Description: "List the files."})
	changed.result = func(c llm.ToolCall) string { return "done: " + c.Name }
	for _, c := range []struct {
		opts RecorderOptions
		want []int // the entries whose request changed
	}{
		// The first request added nothing new; the tool results changed.
		{RecorderOptions{}, []int{1, 2}},
		// Every request names the tools, and a new one is offered.
		{RecorderOptions{RecordMessages: true}, []int{0, 1, 2}},
	} {
		opts := c.opts
		tp := recordWith(t, baseAgent(), opts)
		rb := rebased(t, tp, changed, nil)
		if !rb.Offered || !slices.Equal(rb.Entries, c.want) {
			t.Errorf("messages %v: offered changed %v, entries %v; want the offered block and entries %v", opts.RecordMessages, rb.Offered, rb.Entries, c.want)
		}
		if got, want := encoded(t, rb.Tape), encoded(t, recordWith(t, changed, opts)); got != want {
			t.Errorf("messages %v: the rebased tape differs from a new recording:\n%s\nwant\n%s", opts.RecordMessages, got, want)
		}
	}
}

// The offered block keeps the line it was read from, so that a divergence
// against the rebased tape still names where it is.
func TestRebaseKeepsTheOfferedBlockLine(t *testing.T) {
	tp := recordAgent(t)
	a := baseAgent()
	a.system = "You keep notes.\nAnswer in full sentences."
	rb := rebased(t, tp, a, nil)
	if !rb.Offered || rb.Tape.Offered.Line == 0 || rb.Tape.Offered.Line != tp.Offered.Line {
		t.Errorf("offered %v, line %d; want the changed block at line %d", rb.Offered, rb.Tape.Offered.Line, tp.Offered.Line)
	}
}

// RebaseOptions.All adds an offered block to a tape that had none, and
// states each entry's request.
func TestRebaseAllPinsATapeThatStatedNothing(t *testing.T) {
	tp := recordAgent(t)
	tp.Offered = nil
	for i := range tp.Entries {
		tp.Entries[i].Request = nil
	}
	rb := rebased(t, tp, baseAgent(), &RebaseOptions{All: true})
	if !rb.Offered || rb.Tape.Offered == nil || len(rb.Tape.Offered.Tools) != 2 || !slices.Equal(rb.Entries, []int{0, 1, 2}) {
		t.Fatalf("offered %v %+v, entries %v; want the block and all three entries added", rb.Offered, rb.Tape.Offered, rb.Entries)
	}
	for i, e := range rb.Tape.Entries {
		if e.Request == nil || e.Request.New == nil || e.Request.Messages != nil {
			t.Errorf("tape[%d].request = %+v, want the new messages stated", i, e.Request)
		}
	}
	a := baseAgent()
	a.tools = a.tools[:1]
	if err := a.run(NewModel(rb.Tape, nil)); err == nil || !strings.Contains(err.Error(), "offered.tools differs") {
		t.Errorf("another tool set against the pinned tape: %v, want the tools to differ", err)
	}
}

// toolsAgent sends one request per element of tools, each offering the
// tools named, and answers the calls with "ok".
func toolsAgent(m llm.Model, tools ...[]string) error {
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}}
	for _, names := range tools {
		req.Tools = nil
		for _, n := range names {
			req.Tools = append(req.Tools, llm.ToolDefinition{Name: n})
		}
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, "ok"))
		}
	}
	return nil
}

// toolsTape records toolsAgent's requests offering tools, answered by a
// call to tool a each.
func toolsTape(t *testing.T, tools ...[]string) *tape.Tape {
	t.Helper()
	var script []*llm.Response
	for i := range tools {
		script = append(script, &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c" + string(rune('1'+i)), Name: "a", Arguments: "{}"}), FinishReason: llm.FinishToolCalls})
	}
	rec := NewRecorder(scriptedModel(script...), &RecorderOptions{Redactor: redact.New(nil)})
	if err := toolsAgent(rec, tools...); err != nil {
		t.Fatal(err)
	}
	tp := rec.Tape()
	for i := range tp.Entries {
		tp.Entries[i].Line = 10 * (i + 1)
		if o := tp.Entries[i].Request.Offered; o != nil {
			o.Line = 10*(i+1) + 1
		}
	}
	return tp
}

// rebaseTools runs toolsAgent with tools against tp in rebase mode and
// returns the rebase.
func rebaseTools(t *testing.T, tp *tape.Tape, tools ...[]string) *Rebase {
	t.Helper()
	m := NewModel(tp, &ModelOptions{Rebase: true})
	if err := toolsAgent(m, tools...); err != nil {
		t.Fatalf("the run in rebase mode: %v", err)
	}
	rb, err := m.Rebased(nil)
	if err != nil {
		t.Fatalf("Rebased: %v", err)
	}
	return rb
}

// offeredTools names the tools o offers; nil when o is nil.
func offeredTools(o *tape.Offered) []string {
	if o == nil {
		return nil
	}
	names := []string{}
	for _, d := range o.Tools {
		names = append(names, d.Name)
	}
	return names
}

// A request that now changes what is offered mid-run, where the recording
// did not, gets the change on its entry; the agent then replays cleanly.
func TestRebaseRecordsANewMidRunChange(t *testing.T) {
	tp := toolsTape(t, []string{"a"}, []string{"a"})
	rb := rebaseTools(t, tp, []string{"a"}, []string{"a", "b"})
	if rb.Offered || !slices.Equal(rb.Entries, []int{1}) {
		t.Fatalf("offered changed %v, entries %v; want entry 1 only", rb.Offered, rb.Entries)
	}
	if got := offeredTools(rb.Tape.Entries[1].Request.Offered); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("tape[1] offers %v, want [a b]", got)
	}
	if err := toolsAgent(NewModel(rb.Tape, nil), []string{"a"}, []string{"a", "b"}); err != nil {
		t.Errorf("the agent against the rebased tape: %v", err)
	}
	// A tape that states no request for the entry gets one.
	for i := range tp.Entries {
		tp.Entries[i].Request = nil
	}
	rb = rebaseTools(t, tp, []string{"a"}, []string{"a", "b"})
	if !slices.Equal(rb.Entries, []int{1}) || rb.Tape.Entries[0].Request != nil || !slices.Equal(offeredTools(rb.Tape.Entries[1].Request.Offered), []string{"a", "b"}) {
		t.Errorf("no requests stated: entries %v, tape[1].request %+v; want only tape[1] to state the change", rb.Entries, rb.Tape.Entries[1].Request)
	}
}

// A recorded change that the run now makes differently is restated, at
// the change's line; one the run no longer makes (the agent offers the
// same tools from the start) keeps the parts it stated, as they are now.
func TestRebaseRestatesARecordedMidRunChange(t *testing.T) {
	tp := toolsTape(t, []string{"a"}, []string{"a", "b"})
	for _, c := range []struct {
		name  string
		tools [][]string
		want  []string
	}{
		{"made differently", [][]string{{"a"}, {"a", "c"}}, []string{"a", "c"}},
		{"no longer made", [][]string{{"a", "b"}, {"a", "b"}}, []string{"a", "b"}},
	} {
		rb := rebaseTools(t, tp, c.tools...)
		o := rb.Tape.Entries[1].Request.Offered
		if o == nil {
			t.Errorf("%s: tape[1] states no offered change, want %v", c.name, c.want)
		} else if got := offeredTools(o); !slices.Equal(got, c.want) || o.Line != 21 {
			t.Errorf("%s: tape[1] offers %v at line %d, want %v at 21", c.name, got, o.Line, c.want)
		}
		if err := toolsAgent(NewModel(rb.Tape, nil), c.tools...); err != nil {
			t.Errorf("%s: the agent against the rebased tape: %v", c.name, err)
		}
	}
}

// Only the parts the offered block states are followed mid-run: with a
// block that states the tools alone, a new system prompt is not recorded;
// with one that states the system prompt, it is.
func TestRebaseFollowsOnlyTheStatedParts(t *testing.T) {
	run := func(m llm.Model, second string) error {
		req := &llm.Request{Messages: []llm.Message{llm.SystemMessage("one"), llm.UserMessage("go")}, Tools: []llm.ToolDefinition{{Name: "a"}}}
		if _, err := m.Generate(context.Background(), req); err != nil {
			return err
		}
		req.Messages = append(req.Messages, llm.AssistantMessage("ok"), llm.UserMessage("more"))
		req.Messages[0] = llm.SystemMessage(second)
		_, err := m.Generate(context.Background(), req)
		return err
	}
	for _, c := range []struct {
		name   string
		stated *tape.Offered
		want   []string
	}{
		{"tools only", &tape.Offered{Tools: []llm.ToolDefinition{{Name: "a"}}}, nil},
		{"system only", &tape.Offered{System: []string{"one"}}, []string{"two"}},
		{"both", &tape.Offered{System: []string{"one"}, Tools: []llm.ToolDefinition{{Name: "a"}}}, []string{"two"}},
	} {
		tp := &tape.Tape{Offered: c.stated, Entries: []tape.Entry{
			{Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
			{Response: &llm.Response{Message: llm.AssistantMessage("done")}},
		}}
		m := NewModel(tp, &ModelOptions{Rebase: true})
		if err := run(m, "two"); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rb, err := m.Rebased(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		if r := rb.Tape.Entries[1].Request; r != nil && r.Offered != nil {
			got = r.Offered.System
			if r.Offered.Tools != nil {
				t.Errorf("%s: tape[1] states the unchanged tools %v", c.name, offeredTools(r.Offered))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: tape[1] records the system prompt %q, want %q", c.name, got, c.want)
		}
	}
}

// The offered block's response schema is restated when the block states
// one, and left out when it does not.
func TestRebaseRestatesTheResponseSchemaOnlyWhereStated(t *testing.T) {
	const was, now = `{"type":"object"}`, `{"type":"array"}`
	for _, c := range []struct {
		name   string
		block  *tape.Offered
		want   string // the rebased block's response schema
		change bool
	}{
		{"stated", &tape.Offered{Tools: []llm.ToolDefinition{{Name: "a"}}, ResponseSchema: []byte(was)}, now, true},
		{"not stated", &tape.Offered{Tools: []llm.ToolDefinition{{Name: "a"}}}, "", false},
	} {
		tp := &tape.Tape{Offered: c.block, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage(`[]`)}}}}
		m := NewModel(tp, &ModelOptions{Rebase: true})
		req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}, Tools: []llm.ToolDefinition{{Name: "a"}}, ResponseSchema: []byte(now)}
		if _, err := m.Generate(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rb, err := m.Rebased(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := string(rb.Tape.Offered.ResponseSchema); got != c.want || rb.Offered != c.change {
			t.Errorf("%s: block's response schema %q (changed %v), want %q (changed %v)", c.name, got, rb.Offered, c.want, c.change)
		}
	}
}

// A rebase redacts what it restates: a secret in a tool's description or
// parameter schema, or in the response schema, is not written to the tape.
func TestRebaseRedactsTheOfferedBlock(t *testing.T) {
	const key = "sk-test-Qx7mP2vLw9"
	red := redact.New(&redact.Options{Secrets: []redact.Secret{{Kind: "TEST_KEY", Value: key}}, SecretEnv: []string{}})
	tp := &tape.Tape{Offered: &tape.Offered{Tools: []llm.ToolDefinition{{Name: "a"}}, ResponseSchema: []byte(`{"type":"object"}`)},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage(`{}`)}}}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}, Tools: []llm.ToolDefinition{{
		Name: "a", Description: "Uses " + key + ".", Parameters: []byte(`{"type":"object","properties":{"key":{"const":"` + key + `"}}}`),
	}}, ResponseSchema: []byte(`{"type":"object","description":"` + key + `"}`)}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(&RebaseOptions{Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	text := encoded(t, rb.Tape)
	if strings.Contains(text, key) || strings.Count(text, redact.Redacted) != 3 {
		t.Errorf("the rebased tape holds the key, or not 3 redactions:\n%s", text)
	}
	if got := red.Counts()["TEST_KEY"]; got != 3 {
		t.Errorf("counted %d redactions of TEST_KEY, want 3", got)
	}
}

// In rebase mode a recorded call to the first tool of the recording's
// offered block, which the agent no longer offers, makes the response stale.
func TestRebaseRefusesACallToTheFirstToolRemoved(t *testing.T) {
	tp := recordAgent(t)
	if len(tp.Offered.Tools) < 2 || tp.Offered.Tools[0].Name != "write_file" {
		t.Fatalf("recorded tools %+v, want write_file first", tp.Offered.Tools)
	}
	a := baseAgent()
	a.tools = a.tools[1:]
	err := a.run(NewModel(tp, &ModelOptions{Rebase: true}))
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "calls write_file, which the agent no longer offers") {
		t.Errorf("run error = %v, want ErrStale naming write_file", err)
	}
}

// In rebase mode a recorded call to a tool the recording did not offer
// either (the model made the name up) is not stale: nothing changed.
func TestRebaseKeepsACallToAToolNeverOffered(t *testing.T) {
	tp := &tape.Tape{
		Offered: &tape.Offered{Tools: []llm.ToolDefinition{{Name: "write_file"}}},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "ghost", Arguments: "{}"}), FinishReason: llm.FinishToolCalls}}},
	}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Tools: []llm.ToolDefinition{{Name: "read_file"}}})
	if err != nil || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "ghost" {
		t.Errorf("Generate = %+v, %v; want the recorded call to ghost", resp, err)
	}
}

// midRunTape offers read_file, then its second entry adds write_file and
// calls it: the tools that entry expects are the ones it added.
func midRunTape() *tape.Tape {
	read := []llm.ToolDefinition{{Name: "read_file"}}
	both := []llm.ToolDefinition{{Name: "read_file"}, {Name: "write_file"}}
	call := llm.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"path":"b.txt"}`}
	return &tape.Tape{Offered: &tape.Offered{Tools: read}, Entries: []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("one")}, Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("Read a.txt.")}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("", call)}, Request: &tape.RequestSummary{Offered: &tape.Offered{Tools: both}, New: []llm.Message{llm.UserMessage("Write b.txt.")}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("done")}, Request: &tape.RequestSummary{New: []llm.Message{llm.ToolMessage("c1", "write_file", "ok")}}},
	}}
}

// midRunTurns are the three requests midRunTape recorded, the second one
// offering tools and the last one sending result.
func midRunTurns(tools []llm.ToolDefinition, result string) []*llm.Request {
	read := []llm.ToolDefinition{{Name: "read_file"}}
	both := []llm.ToolDefinition{{Name: "read_file"}, {Name: "write_file"}}
	m0 := []llm.Message{llm.UserMessage("Read a.txt.")}
	m1 := append(slices.Clone(m0), llm.AssistantMessage("one"), llm.UserMessage("Write b.txt."))
	m2 := append(slices.Clone(m1), llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"path":"b.txt"}`}), llm.ToolMessage("c1", "write_file", result))
	return []*llm.Request{{Messages: m0, Tools: read}, {Messages: m1, Tools: tools}, {Messages: m2, Tools: both}}
}

// A rebase refuses a recorded call to a tool that an entry's own offered
// change added, when the run no longer offers it at that turn.
func TestRebaseRefusesACallToAToolAddedMidRunAndRemoved(t *testing.T) {
	m := NewModel(midRunTape(), &ModelOptions{Rebase: true})
	turns := midRunTurns([]llm.ToolDefinition{{Name: "read_file"}}, "ok")
	if _, err := m.Generate(context.Background(), turns[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), turns[1]); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "calls write_file, which the agent no longer offers") {
		t.Errorf("turn 1: %v, want ErrStale naming write_file", err)
	}
}

// A rebase after a mid-run change of the tools, whose later turn sends
// another tool result, restates that turn alone: the offered block is
// unchanged.
func TestRebaseAfterAMidRunChangeKeepsTheBlock(t *testing.T) {
	tp := midRunTape()
	m := NewModel(tp, &ModelOptions{Rebase: true})
	for i, req := range midRunTurns([]llm.ToolDefinition{{Name: "read_file"}, {Name: "write_file"}}, "wrote 5 bytes") {
		if _, err := m.Generate(context.Background(), req); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	rb, err := m.Rebased(&RebaseOptions{Redactor: redact.New(&redact.Options{SecretEnv: []string{}})})
	if err != nil {
		t.Fatal(err)
	}
	if rb.Offered || !slices.Equal(rb.Entries, []int{2}) {
		t.Errorf("rebase changed offered %v, entries %v; want only entry 2", rb.Offered, rb.Entries)
	}
	if got := encoded(t, rb.Tape); !strings.Contains(got, "offered:\n  tools:\n    - name: read_file\ntape:\n") || !strings.Contains(got, "content: wrote 5 bytes") {
		t.Errorf("rebased tape:\n%s", got)
	}
}

// A rebase never un-redacts: where the recording redacted a value in a
// message the request added, in a whole message list or in a last message,
// the rebased entry redacts it again in the changed message the run sent,
// though the rebase's own redactor knows no secret.
func TestRebaseRedactsAgainWhatMessagesRecordedRedacted(t *testing.T) {
	secrets := []string{"hunter2-Alpha", "hunter2-Bravo", "hunter2-Charlie"}
	said := func(i int, v string) llm.Message {
		return llm.UserMessage(fmt.Sprintf("Log in %d with %s please.", i, v))
	}
	sent := func(i int, v string) llm.Message {
		return llm.UserMessage(fmt.Sprintf("Log in %d with %s please, now.", i, v))
	}
	last := said(2, redact.Redacted)
	tp := &tape.Tape{Offered: &tape.Offered{Tools: []llm.ToolDefinition{{Name: "read_file"}}}, Entries: []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("one")}, Request: &tape.RequestSummary{New: []llm.Message{said(0, redact.Redacted)}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("two")}, Request: &tape.RequestSummary{Messages: []llm.Message{sent(0, redact.Redacted), llm.AssistantMessage("one"), said(1, redact.Redacted)}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("three")}, Request: &tape.RequestSummary{LastMessage: &last}},
	}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	msgs := []llm.Message{sent(0, secrets[0])}
	for i, answer := range []string{"one", "two", "three"} {
		if i > 0 {
			msgs = append(msgs, llm.AssistantMessage([]string{"one", "two"}[i-1]), sent(i, secrets[i]))
		}
		resp, err := m.Generate(context.Background(), &llm.Request{Messages: slices.Clone(msgs), Tools: []llm.ToolDefinition{{Name: "read_file"}}})
		if err != nil || resp.Message.Content != answer {
			t.Fatalf("turn %d: %+v, %v", i, resp, err)
		}
	}
	rb, err := m.Rebased(&RebaseOptions{Redactor: redact.New(&redact.Options{SecretEnv: []string{}})})
	if err != nil {
		t.Fatal(err)
	}
	text := encoded(t, rb.Tape)
	if !slices.Equal(rb.Entries, []int{0, 1, 2}) || !strings.Contains(text, "please, now.") {
		t.Errorf("rebased entries %v, want all three restated:\n%s", rb.Entries, text)
	}
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("the rebased tape holds %s:\n%s", s, text)
		}
	}
}

// A rebase of a run that used fewer entries than the tape holds (an error
// entry among them) keeps the entries not served as they are, and the
// recorded error still replays.
func TestRebaseKeepsTheEntriesNotServed(t *testing.T) {
	tp := &tape.Tape{Offered: &tape.Offered{Tools: []llm.ToolDefinition{{Name: "read_file"}}}, Entries: []tape.Entry{
		{Error: "503 overloaded", Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("Go.")}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("one")}, Request: &tape.RequestSummary{New: []llm.Message{}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("two")}, Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("More.")}}},
	}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("Go.")}, Tools: []llm.ToolDefinition{{Name: "read_file"}}}
	if _, err := m.Generate(context.Background(), req); !errors.Is(err, ErrRecordedError) {
		t.Fatalf("the recorded error: %v", err)
	}
	if resp, err := m.Generate(context.Background(), req); err != nil || resp.Message.Content != "one" {
		t.Fatalf("the retry: %+v, %v", resp, err)
	}
	rb, err := m.Rebased(nil)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Changed() || encoded(t, rb.Tape) != encoded(t, tp) {
		t.Errorf("rebase changed offered %v, entries %v:\n%s", rb.Offered, rb.Entries, encoded(t, rb.Tape))
	}
}

// A request recorded with its whole message list, an empty one, rebases to
// the same: nothing changed.
func TestRebaseKeepsAnEmptyMessageList(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("one")}, Request: &tape.RequestSummary{Messages: []llm.Message{}}}}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	if _, err := m.Generate(context.Background(), &llm.Request{}); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || rb.Changed() {
		t.Errorf("rebase: %+v, %v; want nothing changed", rb, err)
	}
}

// A tape whose block states only the system prompt rebases to a block that
// still states only it, though the run offers tools.
func TestRebaseBlockStatesWhatItStated(t *testing.T) {
	tp := &tape.Tape{Offered: &tape.Offered{System: []string{"Be brief."}}, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("one")}}}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	req := &llm.Request{Messages: []llm.Message{llm.SystemMessage("Be brief."), llm.UserMessage("Go.")}, Tools: []llm.ToolDefinition{{Name: "read_file"}}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || rb.Changed() || rb.Tape.Offered.Tools != nil {
		t.Errorf("rebase: %+v, %v; want the block unchanged, stating no tools", rb, err)
	}
}

// TestRebaseRefusesAResultThatChangedKind: the answers a tape recorded
// after a tool result were the model's answer to a success or to a
// failure; a rebase whose run now gets the other kind refuses, naming the
// call, whatever the recorded answer says. A tape written before results
// carried is_error states a failure by its text ("error (kind): ...").
// A result whose kind is the same, or whose text did not change, rebases.
func TestRebaseRefusesAResultThatChangedKind(t *testing.T) {
	long120 := "error (not_found): " + strings.Repeat("n", 101)
	call := llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path": "notes.txt"}`}
	result := func(content string, failed bool) llm.Message {
		m := llm.ToolMessage("call_1", "read_file", content)
		m.IsError = failed
		return m
	}
	requests := func(r llm.Message) []*llm.Request {
		user := llm.UserMessage("What do my notes say?")
		return []*llm.Request{
			{Messages: []llm.Message{user}},
			{Messages: []llm.Message{user, llm.AssistantMessage("", call), r}},
		}
	}
	for _, tc := range []struct {
		name          string
		recorded, now llm.Message
		refused       string // in the error; "" when the rebase goes through
	}{
		{"success to failure", result("hello", false), result("error (not_found): no notes.txt", true), "turned from a success into a failure"},
		{"failure to success", result("error (not_found): no notes.txt", true), result("hello", false), "turned from a failure into a success"},
		{"a failure by its text, from before is_error", result("error (not_found): no notes.txt", false), result("hello", false), "turned from a failure into a success"},
		{"an empty kind is no failure's text", result("error (): no notes.txt", false), result("hello", false), ""},
		{"a blank in the kind is no failure's text", result("error (not found): no notes.txt", false), result("hello", false), ""},
		{"another success", result("hello", false), result("hello again", false), ""},
		{"the same text", result("error (not_found): no notes.txt", false), result("error (not_found): no notes.txt", true), ""},
		// The result is quoted whole up to 120 bytes.
		{"a failure of 120 bytes", result("hello", false), result(long120, true), fmt.Sprintf("turned from a success into a failure (now %q)", long120)},
		{"a failure of 121 bytes", result("hello", false), result(long120+"!", true), fmt.Sprintf("turned from a success into a failure (now %q)", long120+"...")},
	} {
		rec := NewRecorder(scriptedModel(
			&llm.Response{Message: llm.AssistantMessage("", call)},
			&llm.Response{Message: llm.AssistantMessage("Your notes say hello.")},
		), &RecorderOptions{Redactor: redact.New(nil)})
		for _, req := range requests(tc.recorded) {
			if _, err := rec.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		m := NewModel(rec.Tape(), &ModelOptions{Rebase: true})
		var err error
		for _, req := range requests(tc.now) {
			if _, err = m.Generate(context.Background(), req); err != nil {
				break
			}
		}
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: %v; want the rebase to go through", tc.name, err)
		case tc.refused != "" && (!errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "the result of call_1 (read_file) "+tc.refused)):
			t.Errorf("%s: %v; want ErrStale saying the result of call_1 (read_file) %s", tc.name, err, tc.refused)
		}
	}
}

// A secret the rebase's redactor knows is redacted whole in the rebased
// tape, also where it holds a key's shape (x-AKIA...-y, an AWS key id inside
// a password): whether or not the recording redacted other values, which the
// rebase learns and redacts too, no piece of it is left.
func TestRebaseRedactsAKnownSecretWhole(t *testing.T) {
	const password = "x-AKIAABCDEFGHIJKLMNOP-y"
	for _, learns := range []bool{false, true} {
		// The run's first message differs from the recording's, so that
		// the rebase restates it (and learns what a Redacted in it stood
		// for).
		recorded, first := llm.UserMessage("Log in."), llm.UserMessage("Log in, please.")
		if learns {
			recorded, first = llm.UserMessage("Log in with "+redact.Redacted+" please."), llm.UserMessage("Log in with hunter2-Alpha please, now.")
		}
		tp := &tape.Tape{Entries: []tape.Entry{
			{Response: &llm.Response{Message: llm.AssistantMessage("Which password?")}, Request: &tape.RequestSummary{New: []llm.Message{recorded}}},
			{Response: &llm.Response{Message: llm.AssistantMessage("Logged in.")}, Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("It is the old one.")}}},
		}}
		m := NewModel(tp, &ModelOptions{Rebase: true})
		msgs := []llm.Message{first}
		for i, answer := range []string{"Which password?", "Logged in."} {
			if i > 0 {
				msgs = append(msgs, llm.AssistantMessage("Which password?"), llm.UserMessage("It is "+password+", now."))
			}
			resp, err := m.Generate(context.Background(), &llm.Request{Messages: slices.Clone(msgs)})
			if err != nil || resp.Message.Content != answer {
				t.Fatalf("learns %v: turn %d: %+v, %v", learns, i, resp, err)
			}
		}
		red := redact.New(&redact.Options{SecretEnv: []string{}, Secrets: []redact.Secret{{Kind: "PASSWORD", Value: password}}})
		rb, err := m.Rebased(&RebaseOptions{Redactor: red})
		if err != nil {
			t.Fatal(err)
		}
		text := encoded(t, rb.Tape)
		if !strings.Contains(text, "It is "+redact.Redacted+", now.") {
			t.Errorf("learns %v: the rebased tape does not redact the password whole:\n%s", learns, text)
		}
		if learns && (strings.Contains(text, "hunter2") || !strings.Contains(text, "Log in with "+redact.Redacted+" please, now.")) {
			t.Errorf("the rebased tape does not redact what the recording redacted:\n%s", text)
		}
	}
}

// A rebase of a changed system prompt restates the block's other parts as
// the block stated them: where the recording put its cache breakpoints
// (and no breakpoints where it stated none), and the "answered by" comment
// beside a pinned model, whose answers the tape keeps.
func TestRebaseKeepsTheBlocksCacheAndAnsweredBy(t *testing.T) {
	for _, stated := range []bool{true, false} {
		block := &tape.Offered{System: []string{"You keep notes."}, Params: map[string]json.RawMessage{"model": json.RawMessage(`"gpt-4.1"`)}, AnsweredBy: "gpt-4.1-mini"}
		if stated {
			block.Cache = []string{"system"}
		}
		tp := &tape.Tape{Offered: block, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("Noted.")}}}}
		m := NewModel(tp, &ModelOptions{Rebase: true})
		req := &llm.Request{
			Messages: []llm.Message{llm.SystemMessage("You keep notes, briefly."), llm.UserMessage("Note milk.")},
			Params:   map[string]json.RawMessage{"model": json.RawMessage(`"gpt-4.1"`)},
			Cache:    []llm.CacheMark{{Index: 0}},
		}
		if _, err := m.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		rb, err := m.Rebased(nil)
		if err != nil {
			t.Fatal(err)
		}
		text := encoded(t, rb.Tape)
		if !strings.Contains(text, "You keep notes, briefly.") || !strings.Contains(text, `"gpt-4.1" # answered by gpt-4.1-mini`) {
			t.Errorf("cache stated %v: the rebased block lost the answered-by comment or kept the old prompt:\n%s", stated, text)
		}
		if got := strings.Contains(text, "cache: [system]"); got != stated {
			t.Errorf("cache stated %v: the rebased block states cache: %v:\n%s", stated, got, text)
		}
	}
}

// A rebase never un-redacts the offered block either: where the recording
// redacted a value in the system prompt or in a tool's description, the
// rebased block redacts it again in the changed text the run sent, each
// tool's description against the recorded one of the same name, though the
// rebase's own redactor knows no secret.
func TestRebaseRedactsAgainWhatTheBlockRecordedRedacted(t *testing.T) {
	recorded := &tape.Offered{
		System: []string{"Log in with " + redact.Redacted + " first."},
		Tools: []llm.ToolDefinition{
			{Name: "fetch", Description: "Fetch a page."},
			{Name: "post", Description: "Post with " + redact.Redacted + " as the token."},
		},
	}
	tp := &tape.Tape{Offered: recorded, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("Done.")}}}}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	req := &llm.Request{
		Messages: []llm.Message{llm.SystemMessage("Log in with hunter2-Alpha first, always."), llm.UserMessage("Post it.")},
		Tools: []llm.ToolDefinition{
			{Name: "fetch", Description: "Fetch a page by its URL."},
			{Name: "post", Description: "Post with hunter2-Bravo as the token, once."},
		},
	}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(&RebaseOptions{Redactor: redact.New(&redact.Options{SecretEnv: []string{}})})
	if err != nil {
		t.Fatal(err)
	}
	text := encoded(t, rb.Tape)
	for _, want := range []string{"Log in with " + redact.Redacted + " first, always.", "Post with " + redact.Redacted + " as the token, once.", "Fetch a page by its URL."} {
		if !strings.Contains(text, want) {
			t.Errorf("the rebased block lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hunter2") {
		t.Errorf("the rebased block holds a value the recording redacted:\n%s", text)
	}
}

// A rebase restates a change of the request parameters mid-run where the
// tape pins parameters, so that the rebased tape replays the run; a tape
// that pins none gets none from a rebase (unless told All).
func TestRebaseRestatesAParamChangeWhereParamsArePinned(t *testing.T) {
	temp := func(v string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"temperature": json.RawMessage(v)}
	}
	requests := func(first, second map[string]json.RawMessage) []*llm.Request {
		msgs := []llm.Message{llm.UserMessage("Go.")}
		return []*llm.Request{
			{Messages: msgs, Params: first},
			{Messages: append(slices.Clone(msgs), llm.AssistantMessage("one"), llm.UserMessage("Again.")), Params: second},
		}
	}
	for _, pinned := range []bool{true, false} {
		recorded := requests(nil, nil)
		if pinned {
			recorded = requests(temp("0.2"), temp("0.2"))
		}
		rec := NewRecorder(scriptedModel(&llm.Response{Message: llm.AssistantMessage("one")}, &llm.Response{Message: llm.AssistantMessage("two")}), &RecorderOptions{Redactor: redact.New(nil)})
		for _, req := range recorded {
			if _, err := rec.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		run := requests(temp("0.2"), temp("0.7"))
		m := NewModel(rec.Tape(), &ModelOptions{Rebase: true})
		for _, req := range run {
			if _, err := m.Generate(context.Background(), req); err != nil {
				t.Fatalf("pinned %v: rebase mode: %v", pinned, err)
			}
		}
		rb, err := m.Rebased(nil)
		if err != nil {
			t.Fatal(err)
		}
		text := encoded(t, rb.Tape)
		if got := strings.Contains(text, "temperature"); got != pinned {
			t.Errorf("pinned %v: the rebased tape names temperature: %v\n%s", pinned, got, text)
		}
		if !pinned {
			continue
		}
		again := NewModel(rb.Tape, nil)
		for i, req := range run {
			if _, err := again.Generate(context.Background(), req); err != nil {
				t.Errorf("the run against the rebased tape: request %d: %v\n%s", i+1, err, text)
			}
		}
	}
}
