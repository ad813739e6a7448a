package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// conversationScenario is a conversation of two user turns: its tape is
// only the user's script until it is recorded.
const conversationScenario = `format: tapeloop/v1
description: The notes agent appends a line, then another when the user asks again.
setup:
  agent: {go: notes}
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: system, content: "Notes are plain text."}
tape:
  - user: "Append world to notes.txt."
  - user: "Now append again."
expect:
  termination: final_text
  iterations: 5
  said:
    - {contains: "hello and world"}
  final: {equals: "Done: again."}
  files:
    notes.txt: "hello\nworld\nagain\n"
`

// conversationScript is what the live model answers the two user turns.
func conversationScript() llm.Model {
	return script(
		call("call_1", "read_file", `{"path":"notes.txt"}`),
		call("call_2", "write_file", `{"path":"notes.txt","content":"hello\nworld\n"}`),
		text("Done: notes.txt now says hello and world."),
		call("call_3", "write_file", `{"path":"notes.txt","content":"hello\nworld\nagain\n"}`),
		text("Done: again."))
}

// TestConversation records a bridged conversation (the tape's user turns
// drive the live run and are written back where they were spoken),
// replays it with the golden in a native conversation's shape, and fails
// closed when the agent ends before the user's last turn, asks the model
// where the user speaks, or (live) leaves a user turn unspoken.
func TestConversation(t *testing.T) {
	path := record(t, conversationScenario, newNotesAgent().converse(0), conversationScript())
	want := "user Append world to notes.txt.|call read_file|call write_file|text Done: notes.txt now says hello and world.|user Now append again.|call write_file|text Done: again."
	if got := tapeOrder(load(t, path)); got != want {
		t.Fatalf("the recorded tape is\n%s\nwant\n%s", got, want)
	}

	if v := verify(t, path, newNotesAgent().converse(0), true); !v.Passed() {
		t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"iterations: 5\nturns:\n  - turn: 1\n    user: Append world to notes.txt.\n    response:\n      finish_reason: tool_calls\n    calls:\n",
		"  - turn: 3\n    response:\n      content: 'Done: notes.txt now says hello and world.'\n      finish_reason: stop\n  - turn: 4\n    user: Now append again.\n    response:\n      finish_reason: tool_calls\n    calls:\n      - id: call_3\n",
		"final: 'Done: again.'",
	} {
		if !strings.Contains(string(golden), want) {
			t.Errorf("the golden does not hold %q:\n%s", want, golden)
		}
	}
	if strings.Count(string(golden), "user:") != 2 {
		t.Errorf("the golden shows %d user turns, want 2:\n%s", strings.Count(string(golden), "user:"), golden)
	}
	v := verify(t, path, newNotesAgent().converse(0), false)
	if !v.Passed() {
		t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	var roles []string
	for _, m := range v.Outcome.Run.Messages {
		roles = append(roles, string(m.Role))
	}
	if got, want := strings.Join(roles, " "), "system user assistant tool assistant tool assistant user assistant tool assistant"; got != want {
		t.Errorf("the conversation's roles are\n%s\nwant\n%s", got, want)
	}

	t.Run("the agent ends before the user's last turn", func(t *testing.T) {
		v := verify(t, path, newNotesAgent().converse(1), false)
		if v.Passed() {
			t.Fatal("a conversation cut short passed")
		}
		all := fmt.Sprint(v.Failure())
		for _, w := range []string{"notes.yaml", "was never served", "the agent ended before this user turn", "Run.NextUser"} {
			if !strings.Contains(all, w) {
				t.Errorf("the failures do not say %q:\n%s", w, all)
			}
		}
	})
	t.Run("the agent asks the model where the user speaks", func(t *testing.T) {
		again := func(ctx context.Context, r *bridge.Run) error {
			a := newNotesAgent()
			if err := a.converse(1)(ctx, r); err != nil {
				return err
			}
			_, err := a.run(ctx, r.HTTPClient, r.OpenAIBaseURL, r.Dir, "Now append again.")
			return err
		}
		failsClosed(t, verify(t, path, again, false), "notes.yaml:", "is a user turn")
	})
	t.Run("live, the agent leaves a user turn unspoken", func(t *testing.T) {
		o, err := bridge.Runner(newNotesAgent().converse(1), nil)(t.Context(), load(t, path), &harness.RunOptions{Model: conversationScript()})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Unused) != 1 || !strings.Contains(o.Unused[0].Error(), "before every user turn of the tape was spoken") {
			t.Errorf("the live run's unused: %q, want the unspoken user turn", o.Unused)
		}
	})
}

// TestUserModel: RunOptions.User writes the user's messages instead of
// the tape (a simulated user) from the conversation it has seen (the
// user's messages and the agent's answers), RunOptions.Observer sees each
// user message on the turn it follows and each model answer, and a user
// model that fails ends the run with model_error naming it.
func TestUserModel(t *testing.T) {
	path := writeScenario(t, strings.Replace(conversationScenario, `  - {role: system, content: "Notes are plain text."}
tape:
  - user: "Append world to notes.txt."
  - user: "Now append again."
`, `  - {role: system, content: "Notes are plain text."}
  - {role: user, content: "Append world to notes.txt."}
tape: []
`, 1))
	var seen [][]llm.Message
	user := func(ctx context.Context, conversation []llm.Message) (llm.Message, bool, error) {
		seen = append(seen, conversation)
		if len(seen) > 1 {
			return llm.Message{}, false, nil
		}
		return llm.Message{Role: llm.RoleAssistant, Content: "Now append again."}, true, nil
	}
	var events []string
	observe := func(e agent.Event) {
		switch e.Kind {
		case agent.EventUserMessage:
			events = append(events, fmt.Sprintf("%s %s after %d", e.Kind, e.User.Content, e.Turn))
		case agent.EventModelResponse, agent.EventModelRequest:
			events = append(events, string(e.Kind))
		}
	}
	o, err := bridge.Runner(newNotesAgent().converse(0), nil)(t.Context(), load(t, path), &harness.RunOptions{Model: conversationScript(), User: user, Observer: observe})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "Done: again." || len(o.Unused) > 0 {
		t.Fatalf("the run ended with %s, final %q, unused %q", o.Termination, o.Final, o.Unused)
	}
	if len(o.Turns) != 5 || o.Turns[3].User == nil || o.Turns[3].User.Content != "Now append again." || o.Turns[3].User.Role != llm.RoleUser {
		t.Errorf("turn 4 does not start with the simulated user's message: %+v", o.Turns)
	}
	var saw []string
	for _, m := range seen[1] {
		saw = append(saw, string(m.Role)+": "+m.Content)
	}
	if got, want := strings.Join(saw, " | "), "user: Append world to notes.txt. | assistant: Done: notes.txt now says hello and world. | user: Now append again. | assistant: Done: again."; got != want {
		t.Errorf("the user model saw\n%s\nwant\n%s", got, want)
	}
	got := strings.Join(events, "|")
	want := strings.Repeat("model_request|model_response|", 3) + "user_message Now append again. after 3|" + strings.TrimSuffix(strings.Repeat("model_request|model_response|", 2), "|")
	if got != want {
		t.Errorf("the observer saw\n%s\nwant\n%s", got, want)
	}

	t.Run("the user model fails", func(t *testing.T) {
		down := func(context.Context, []llm.Message) (llm.Message, bool, error) {
			return llm.Message{}, false, errors.New("user model down")
		}
		o, err := bridge.Runner(newNotesAgent().converse(0), nil)(t.Context(), load(t, path), &harness.RunOptions{Model: conversationScript(), User: down})
		if err != nil {
			t.Fatal(err)
		}
		if o.Termination != "model_error" || o.Error != "the user model failed after turn 3: user model down" {
			t.Errorf("the run ended with %s: %q; want model_error naming the user model", o.Termination, o.Error)
		}
	})
}

// commandConversation is conversationScenario with testdata/cmdagent run
// as its setup.agent.command; AGENT and MODE are filled in.
var commandConversation = strings.Replace(conversationScenario, "  agent: {go: notes}\n", "  agent:\n    command: [AGENT, MODE]\n", 1)

// TestCommandConversation: a command agent converses over stdin and
// stdout (answers as {"final": TEXT} lines, user messages written back,
// stdin closed at the end); recorded, replayed, with the golden of a
// conversation. One that answers in plain text fails naming the line of
// setup.agent and what it printed.
func TestCommandConversation(t *testing.T) {
	bin := buildCommandAgent(t)
	text := strings.NewReplacer("AGENT", bin, "MODE", "notes").Replace(commandConversation)
	path := writeScenario(t, text)
	s := load(t, path)
	o, tape, err := bridge.Record(t.Context(), s, bridge.Command(s), conversationScript(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || len(o.Unused) > 0 {
		t.Fatalf("the recording ended with %s: %s %q", o.Termination, o.Error, o.Unused)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
	command := func() bridge.Agent { return bridge.Command(load(t, path)) }
	if v := verify(t, path, command(), true); !v.Passed() {
		t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	v := verify(t, path, command(), false)
	if !v.Passed() {
		t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	if len(v.Outcome.Turns) != 5 || v.Outcome.Turns[0].User == nil || v.Outcome.Turns[3].User == nil || v.Outcome.Turns[3].User.Content != "Now append again." {
		t.Errorf("the replay's turns do not start with the user turns 1 and 4: %+v", v.Outcome.Turns)
	}

	t.Run("plain text in a conversation", func(t *testing.T) {
		plain := strings.NewReplacer("AGENT", bin, "MODE", "plain").Replace(commandConversation)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The recorded tape, with the plain agent.
		recorded := string(b)[strings.Index(string(b), "offered:"):]
		p := writeScenario(t, plain[:strings.Index(plain, "tape:")]+recorded)
		v := verify(t, p, bridge.Command(load(t, p)), false)
		if v.Passed() {
			t.Fatal("a command answering in plain text passed a conversation")
		}
		for _, w := range []string{"notes.yaml:5: setup.agent.command", `stdout line 1 is not an answer {"final": TEXT}`, `"Done: notes.txt now says hello and world."`} {
			if !strings.Contains(v.Outcome.Error, w) {
				t.Errorf("the outcome's error does not say %q:\n%s", w, v.Outcome.Error)
			}
		}
	})
}

// TestCommandUserModel: a command agent converses with a user model (no
// user turns on the tape): the model sees the conversation so far and its
// message reaches the agent on stdin. In the sandbox the agent's workspace
// is the fixed path, which needs no rewriting on its way to the user model.
func TestCommandUserModel(t *testing.T) {
	bin := buildCommandAgent(t)
	text := strings.NewReplacer("AGENT", bin, "MODE", "notes").Replace(commandConversation)
	text = strings.Replace(text, `  - {role: system, content: "Notes are plain text."}
tape:
  - user: "Append world to notes.txt."
  - user: "Now append again."
`, `  - {role: system, content: "Notes are plain text."}
  - {role: user, content: "Append world to notes.txt."}
tape: []
`, 1)
	s := load(t, writeScenario(t, text))
	var seen [][]llm.Message
	user := func(ctx context.Context, conversation []llm.Message) (llm.Message, bool, error) {
		seen = append(seen, conversation)
		if len(seen) > 1 {
			return llm.Message{}, false, nil
		}
		return llm.Message{Role: llm.RoleAssistant, Content: "Now append again."}, true, nil
	}
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: conversationScript(), User: user})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "Done: again." || len(o.Unused) > 0 {
		t.Fatalf("the run ended with %s (%s), final %q, unused %q", o.Termination, o.Error, o.Final, o.Unused)
	}
	if len(o.Turns) != 5 || o.Turns[3].User == nil || o.Turns[3].User.Content != "Now append again." {
		t.Errorf("turn 4 does not start with the user model's message: %+v", o.Turns)
	}
	if len(seen) != 2 {
		t.Fatalf("the user model was asked %d times, want 2", len(seen))
	}
	var saw []string
	for _, m := range seen[1] {
		saw = append(saw, string(m.Role)+": "+m.Content)
	}
	if got, want := strings.Join(saw, " | "), "user: Append world to notes.txt. | assistant: Done: notes.txt now says hello and world. | user: Now append again. | assistant: Done: again."; got != want {
		t.Errorf("the user model saw\n%s\nwant\n%s", got, want)
	}
}

// TestRecordKeepsUnspokenUserTurns: recording a conversation whose agent
// ends before the tape's last user turn writes the turns it did speak where
// they were spoken and keeps the unspoken one at the tape's end, so the
// replay reports it as never served instead of losing it.
func TestRecordKeepsUnspokenUserTurns(t *testing.T) {
	path := record(t, conversationScenario, newNotesAgent().converse(1), conversationScript())
	want := "user Append world to notes.txt.|call read_file|call write_file|text Done: notes.txt now says hello and world.|user Now append again."
	if got := tapeOrder(load(t, path)); got != want {
		t.Errorf("the recorded tape is\n%s\nwant\n%s", got, want)
	}
}

// TestRecordRedactsUnspokenUserTurns: a user turn the recorded run never
// reached, kept at the tape's end, goes through the recording's redactor
// as a spoken one does: the scenario file never holds its secret.
func TestRecordRedactsUnspokenUserTurns(t *testing.T) {
	const secret = "hunter2-hunter2-hunter2"
	path := writeScenario(t, strings.Replace(conversationScenario, `"Now append again."`, `"Now append again. The vault key is `+secret+`."`, 1))
	opts := &bridge.RecordOptions{Recorder: &replay.RecorderOptions{Redactor: redact.New(&redact.Options{Environ: os.Environ(), Extra: func(v string) string {
		return strings.ReplaceAll(v, secret, "[REDACTED:vault]")
	}})}}
	_, tp, err := bridge.Record(t.Context(), load(t, path), newNotesAgent().converse(1), conversationScript(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := bridge.WriteRecording(path, tp); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "The vault key is [REDACTED:vault].") {
		t.Errorf("the recorded scenario's unspoken user turn is not redacted:\n%s", b)
	}
}

// tapeOrder lists s's tape entries as "user TEXT", "call NAME" (its first
// call) or "text TEXT", joined by "|".
func tapeOrder(s *scenario.Scenario) string {
	var order []string
	for _, e := range s.Tape {
		switch {
		case e.User != nil:
			order = append(order, "user "+e.User.Content)
		case e.Response != nil && len(e.Response.Message.ToolCalls) > 0:
			order = append(order, "call "+e.Response.Message.ToolCalls[0].Name)
		case e.Response != nil:
			order = append(order, "text "+e.Response.Message.Content)
		}
	}
	return strings.Join(order, "|")
}

// TestUnusedOfALongerReplay: a replay given as RunOptions.Replay whose tape
// runs past the scenario's is reported as unused where the scenario's tape
// ends, without the user-turn hint, which only a scenario's user turn gets.
func TestUnusedOfALongerReplay(t *testing.T) {
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	s := load(t, path)
	tp := s.ReplayTape()
	tp.Entries = append(slices.Clone(tp.Entries), tape.Entry{Response: text("more")})
	o, err := bridge.Runner(newNotesAgent().agentFunc(), nil)(t.Context(), s, &harness.RunOptions{Replay: replay.NewModel(tp, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Unused) != 1 || !strings.Contains(o.Unused[0].Error(), "was never served") || strings.Contains(o.Unused[0].Error(), "user turn") {
		t.Errorf("the outcome's unused: %q, want the extra entry, with no user-turn hint", o.Unused)
	}
}
