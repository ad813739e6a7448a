package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
)

// TestConcurrentRequestsMatchByContent: two requests an agent sends at
// once (parallel sub-agents) are answered by the entries recorded for
// what they ask, whichever arrives first; the answers do not depend on
// the order (issue 39, item 7). A request that matches no entry still
// diverges.
func TestConcurrentRequestsMatchByContent(t *testing.T) {
	sub := func(task string) *llm.Request {
		return &llm.Request{Messages: []llm.Message{llm.SystemMessage("You are a sub-agent."), llm.UserMessage(task)}}
	}
	answer := func(s string) *llm.Response {
		return &llm.Response{Message: llm.AssistantMessage(s), FinishReason: llm.FinishStop}
	}
	// Recorded in the order the calls happened to take then.
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		return answer("answer to " + last.Content), nil
	}), nil)
	for _, task := range []string{"Summarise a.txt", "Summarise b.txt"} {
		if _, err := rec.Generate(context.Background(), sub(task)); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	for _, order := range [][]string{{"Summarise a.txt", "Summarise b.txt"}, {"Summarise b.txt", "Summarise a.txt"}} {
		m := NewModel(tp, nil)
		for _, task := range order {
			resp, err := m.Generate(context.Background(), sub(task))
			if err != nil {
				t.Fatalf("order %q: %s: %v", order, task, err)
			}
			if resp.Message.Content != "answer to "+task {
				t.Errorf("order %q: %s was answered %q", order, task, resp.Message.Content)
			}
		}
		if err := m.Unused(); err != nil {
			t.Errorf("order %q: %v", order, err)
		}
	}
	m := NewModel(tp, nil)
	if _, err := m.Generate(context.Background(), sub("Summarise c.txt")); err == nil {
		t.Error("a request no entry recorded was answered")
	}
}

// A request that takes up an earlier conversation again (sub-agents
// answered out of the recorded order) and differs from its entry is shown
// as what it is to the request before it: a conversation that does not
// extend it, in full.
func TestAThreadTakenUpAgainDivergesAsARewrite(t *testing.T) {
	a1 := []llm.Message{llm.UserMessage("Task A.")}
	b1 := []llm.Message{llm.UserMessage("Task B.")}
	a2 := func(next string) []llm.Message {
		return append(slices.Clone(a1), llm.AssistantMessage("a1"), llm.UserMessage(next))
	}
	answers := map[string]string{"Task A.": "a1", "Task B.": "b1", "More A.": "a2"}
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		return &llm.Response{Message: llm.AssistantMessage(answers[last.Content])}, nil
	}), nil)
	// Recorded in the order A, A again, B.
	for _, msgs := range [][]llm.Message{a1, a2("More A."), b1} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	m := NewModel(rec.Tape(), nil)
	for _, msgs := range [][]llm.Message{a1, b1} {
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := m.Generate(context.Background(), &llm.Request{Messages: a2("Other A.")})
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("err = %v, want a divergence", err)
	}
	want := "@@ -1,3 +1,8 @@\n-new:\n+# the request does not extend the previous request's conversation; it holds:\n+messages:\n+  - role: user\n+    content: Task A.\n+  - role: assistant\n+    content: a1\n   - role: user\n-    content: More A.\n+    content: Other A."
	if !strings.Contains(err.Error(), want) {
		t.Errorf("the divergence does not show the whole conversation:\n%v", err)
	}
}

// TestConcurrentRequestPastARedactedEntry: two sub-agents, recorded one
// after the other, each asked a second thing: A to fetch with a token that
// the tape recorded redacted, B to fetch a report where A's token was.
// Replayed with B's requests first, B's second is tried against A's
// second entry (whose redacted text matches B's report name, whose first
// new line does not) and then answered by its own, which recorded the
// name as B sent it: the entry tried first leaves B's request as it was.
func TestConcurrentRequestPastARedactedEntry(t *testing.T) {
	const token = "tok-9Qm2xW7pRs4TuV8y"
	red := redact.New(&redact.Options{SecretEnv: []string{"TEAM_A_TOKEN"}, Getenv: func(string) string { return token }})
	first := func(team string) []llm.Message {
		return []llm.Message{llm.UserMessage("You work for team " + team + ".")}
	}
	then := func(team, fetch string) []llm.Message {
		return append(first(team), llm.AssistantMessage("answer "+team+"1"), llm.UserMessage("Team "+team+" again."), llm.UserMessage("Fetch "+fetch+"."))
	}
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage(answerOf(req)), FinishReason: llm.FinishStop}, nil
	}), &RecorderOptions{Redactor: red})
	a1, b1, a2, b2 := first("A"), first("B"), then("A", token), then("B", "report-2024")
	// Recorded one sub-agent after the other.
	for _, msgs := range [][]llm.Message{a1, a2, b1, b2} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	if got := tp.Entries[1].Request.New; len(got) != 2 || got[1].Content != "Fetch "+redact.Redacted+"." {
		t.Fatalf("A's second request was recorded as %+v, want its two new messages, the token redacted", got)
	}
	m := NewModel(tp, nil)
	for _, msgs := range [][]llm.Message{a1, b1, b2, a2} {
		req := &llm.Request{Messages: msgs}
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("%q: %v", msgs[len(msgs)-1].Content, err)
		}
		if want := answerOf(req); resp.Message.Content != want {
			t.Errorf("%q was answered %q, want %q", msgs[len(msgs)-1].Content, resp.Message.Content, want)
		}
	}
	if err := m.Unused(); err != nil {
		t.Error(err)
	}
}

// answerOf is the answer TestConcurrentRequestPastARedactedEntry's model
// gives: "answer A1" to team A's first request, and so on.
func answerOf(req *llm.Request) string {
	team := strings.TrimSuffix(strings.TrimPrefix(req.Messages[0].Content, "You work for team "), ".")
	return fmt.Sprintf("answer %s%d", team, (len(req.Messages)+1)/2)
}

// TestSubAgentsInterleavedOtherwiseReplay: two sub-agents of two turns
// each, recorded one after the other, replay when their turns arrive
// interleaved: each turn is summarised against its own sub-agent's
// conversation, as it was recorded, not against the other's.
func TestSubAgentsInterleavedOtherwiseReplay(t *testing.T) {
	conv := func(task string, turns int) []llm.Message {
		msgs := []llm.Message{llm.SystemMessage("You are a sub-agent."), llm.UserMessage(task)}
		for i := 1; i < turns; i++ {
			msgs = append(msgs, llm.AssistantMessage(fmt.Sprintf("%s: step %d", task, i)), llm.UserMessage("Go on."))
		}
		return msgs
	}
	answers := func(req *llm.Request) *llm.Response {
		task := req.Messages[1].Content
		return &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("%s: step %d", task, (len(req.Messages)-2)/2+1)), FinishReason: llm.FinishStop}
	}
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		return answers(req), nil
	}), nil)
	for _, msgs := range [][]llm.Message{conv("Task A", 1), conv("Task A", 2), conv("Task B", 1), conv("Task B", 2)} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	for _, order := range [][]string{{"A1", "A2", "B1", "B2"}, {"A1", "B1", "A2", "B2"}, {"A1", "B1", "B2", "A2"}, {"B1", "A1", "B2", "A2"}} {
		m := NewModel(tp, nil)
		for _, turn := range order {
			req := &llm.Request{Messages: conv("Task "+turn[:1], int(turn[1]-'0'))}
			resp, err := m.Generate(context.Background(), req)
			if err != nil {
				t.Errorf("order %v: %s: %v", order, turn, err)
				break
			}
			if want := answers(req).Message.Content; resp.Message.Content != want {
				t.Errorf("order %v: %s answered %q, want %q", order, turn, resp.Message.Content, want)
			}
		}
		if err := m.Unused(); err != nil {
			t.Errorf("order %v: %v", order, err)
		}
	}
}

// TestAlikeSubAgentsReplay: two sub-agents sent the same first request
// (the same task, sampled twice) were answered differently and each went
// on from its own answer. Replayed with their turns interleaved, each
// continuation is matched to the entry recorded after its own answer.
func TestAlikeSubAgentsReplay(t *testing.T) {
	first := []llm.Message{llm.SystemMessage("You are a sub-agent."), llm.UserMessage("Name a colour.")}
	cont := func(answer string) []llm.Message {
		return append(slices.Clone(first), llm.AssistantMessage(answer), llm.UserMessage("Why?"))
	}
	reply := func(s string) *llm.Response {
		return &llm.Response{Message: llm.AssistantMessage(s), FinishReason: llm.FinishStop}
	}
	// Recorded one sub-agent after the other.
	script := []*llm.Response{reply("Red."), reply("Red is warm."), reply("Blue."), reply("Blue is calm.")}
	rec := NewRecorder(scriptedModel(script...), nil)
	for _, msgs := range [][]llm.Message{first, cont("Red."), first, cont("Blue.")} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	for _, order := range [][]string{{"", "Red.", "", "Blue."}, {"", "", "Red.", "Blue."}, {"", "", "Blue.", "Red."}} {
		m := NewModel(tp, nil)
		served := map[string]string{}
		for n, after := range order {
			msgs := first
			if after != "" {
				msgs = cont(after)
			}
			resp, err := m.Generate(context.Background(), &llm.Request{Messages: msgs})
			if err != nil {
				t.Errorf("order %q: request %d: %v", order, n+1, err)
				break
			}
			served[after] += resp.Message.Content
		}
		want := map[string]string{"": "Red.Blue.", "Red.": "Red is warm.", "Blue.": "Blue is calm."}
		if fmt.Sprint(served) != fmt.Sprint(want) {
			t.Errorf("order %q: answered %q, want %q", order, served, want)
		}
	}
}

// TestATurnTakenUpFromAnEarlierOneTakesNoRepeat: the tape recorded a
// request sent twice (the second entry adds nothing to the first). A run
// whose third request goes on from the first answer instead does not take
// that entry: to the request recorded before it, it is a conversation that
// does not extend it, and the replay diverges showing it whole.
func TestATurnTakenUpFromAnEarlierOneTakesNoRepeat(t *testing.T) {
	user := llm.UserMessage("Plan a trip.")
	turn := func(msgs []llm.Message, answer, next string) []llm.Message {
		return append(slices.Clone(msgs), llm.AssistantMessage(answer), llm.UserMessage(next))
	}
	first := []llm.Message{user}
	second := turn(first, "Where to?", "Oslo.")
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("Where to?")},
		&llm.Response{Message: llm.AssistantMessage("When?")},
		&llm.Response{Message: llm.AssistantMessage("When, please?")},
	), nil)
	for _, msgs := range [][]llm.Message{first, second, second} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	if got := tp.Entries[2].Request.New; got == nil || len(got) != 0 {
		t.Fatalf("the repeated request was recorded as adding %v, want nothing", got)
	}
	m := NewModel(tp, nil)
	for _, msgs := range [][]llm.Message{first, second} {
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: turn(first, "Where to?", "Bergen.")})
	want := "+# the request does not extend the previous request's conversation; it holds:\n"
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "content: Bergen.") {
		t.Errorf("got %+v, %v; want a divergence showing the whole conversation", resp, err)
	}
}
