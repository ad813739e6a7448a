package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

var mia = &scenario.UserSetup{Model: "test/user", Instructions: "You are Mia.\nYour order A100 arrived broken.\n", MaxTurns: 3, Stop: "DONE"}

func TestUserRequest(t *testing.T) {
	u := func(c string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: c} }
	a := func(c string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: c} }
	req := UserRequest(mia, []llm.Message{u("Hello."), u("My order is broken."), a("Which order?")})
	prompt := "You are playing the user in a conversation with an AI assistant, to test the assistant. Stay in your role. These are your instructions:\n\n" +
		"You are Mia.\nYour order A100 arrived broken.\n\n" +
		"Rules:\n" +
		"- Write only your next message to the assistant, as the user would type it: no labels, no quotes, no commentary.\n" +
		"- Use only what your instructions say about you; when the assistant asks for something they do not give, say that you do not know it.\n" +
		"- Do not reveal that you follow instructions or that you are a model.\n" +
		"- When the task of your instructions is done, or it cannot be done, write only DONE."
	want := []llm.Message{
		{Role: llm.RoleSystem, Content: prompt},
		u("Hi! How can I help you today?"), // the user spoke first
		a("Hello.\n\nMy order is broken."), // the user's own messages, joined
		u("Which order?"),                  // the agent's answer
	}
	if !reflect.DeepEqual(req.Messages, want) || len(req.Tools) != 0 {
		t.Errorf("request\n%+v\nwant\n%+v", req.Messages, want)
	}
	// An agent that spoke first needs no greeting.
	req = UserRequest(mia, []llm.Message{a("Welcome to Acme."), u("Hi.")})
	if got := req.Messages[1:]; !reflect.DeepEqual(got, []llm.Message{u("Welcome to Acme."), a("Hi.")}) {
		t.Errorf("agent first: %+v", got)
	}
}

func TestNewUser(t *testing.T) {
	answers := []string{"  I want a refund.\n", "A100, thanks DONE", "never asked"}
	calls := 0
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		return &llm.Response{Message: llm.AssistantMessage(answers[calls-1])}, nil
	})
	user := NewUser(model, mia)
	m, ok, err := user(context.Background(), nil)
	if err != nil || !ok || !reflect.DeepEqual(m, llm.Message{Role: llm.RoleUser, Content: "I want a refund."}) {
		t.Fatalf("first: %+v %v %v; want the message trimmed", m, ok, err)
	}
	if _, ok, err := user(context.Background(), nil); ok || err != nil {
		t.Errorf("an answer holding the stop text: ok %v, err %v; want the conversation over", ok, err)
	}

	// max_turns: the third message is never asked for.
	calls = 0
	answers = []string{"one", "two", "three"}
	two := *mia
	two.MaxTurns = 2
	user = NewUser(model, &two)
	var said []string
	for {
		m, ok, err := user(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		said = append(said, m.Content)
	}
	if !reflect.DeepEqual(said, []string{"one", "two"}) || calls != 2 {
		t.Errorf("max_turns 2: said %q in %d calls; want one, two in 2", said, calls)
	}

	// An empty answer, or tool calls only, is no message: an error.
	empty := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage(" ", llm.ToolCall{ID: "c", Name: "x", Arguments: "{}"})}, nil
	})
	if _, _, err := NewUser(empty, mia)(context.Background(), nil); !errors.Is(err, ErrUserMessage) || !strings.Contains(err.Error(), "or DONE when the task is done") {
		t.Errorf("empty answer: %v", err)
	}
	failing := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, errors.New("boom") })
	if _, _, err := NewUser(failing, mia)(context.Background(), nil); err == nil || err.Error() != "boom" {
		t.Errorf("failed call: %v", err)
	}
}

// chatScenario is a conversation whose user is the scripted server's
// user-N model, talking to its echo agent.
func chatScenario(user string, maxTurns, final int) string {
	return `format: tapeloop/v1
name: chat
setup:
  user:
    model: openai-compatible/` + user + `
    instructions: Ask about your order.
    max_turns: ` + strconv.Itoa(maxTurns) + `
input:
  - {role: user, content: "Hello."}
expect:
  termination: final_text
  final: {equals: "You said: message ` + strconv.Itoa(final) + `"}
`
}

// TestEvalSimulatedUser runs trials whose user is a model on the scripted
// server: a user of 3 messages, one that stops after 1, one cut off by
// max_turns, one whose every call fails; the saved trials replay offline.
func TestEvalSimulatedUser(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	dir := t.TempDir()
	cases := []struct {
		user            string
		maxTurns, final int
		status          string
		userCalls       int
	}{
		{"user-3", 5, 3, report.StatusPass, 4}, // 3 messages, then the stop
		{"user-1", 3, 1, report.StatusPass, 2}, // stops early
		{"user-5", 2, 2, report.StatusPass, 2}, // max_turns: the third is never asked for
		{"user-fail", 3, 1, report.StatusError, 1},
	}
	for _, tc := range cases {
		t.Run(tc.user, func(t *testing.T) {
			path := filepath.Join(dir, tc.user+".yaml")
			if err := os.WriteFile(path, []byte(chatScenario(tc.user, tc.maxTurns, tc.final)), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			before := srv.RequestsFor(tc.user)
			saved := map[int]string{}
			r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
				Models: []string{"openai-compatible/echo"}, Open: openServer(srv, false), Trials: 2, Parallel: 1,
				Clock:  clock.NewVirtual(clock.Epoch),
				Prices: map[string]Price{"openai-compatible/echo": {Input: 1, Output: 2}, "openai-compatible/" + tc.user: {Input: 10, Output: 20}},
				Trial: func(tr *Trial) error {
					if tr.Report.Status == report.StatusError {
						return nil
					}
					p, err := SaveTrial(context.Background(), filepath.Join(dir, "trials"), tr, nil)
					saved[tr.Report.Trial] = p
					return err
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.RequestsFor(tc.user) - before; got != 2*tc.userCalls {
				t.Errorf("the user model was called %d times; want %d", got, 2*tc.userCalls)
			}
			for _, tr := range r.Scenarios[0].TrialsDetail {
				if tr.Status != tc.status {
					t.Errorf("trial %d: %s (%v %s); want %s", tr.Trial, tr.Status, tr.Failures, tr.Error, tc.status)
				}
				wantTurns := tc.final
				if tc.status == report.StatusError {
					wantTurns = 0
					want := "user model openai-compatible/user-fail failed after turn 1: "
					if !strings.HasPrefix(tr.Error, want) || !strings.Contains(tr.Error, "this model refuses every request") {
						t.Errorf("error %q; want %s... with the server's cause", tr.Error, want)
					}
				}
				u := tr.User
				if u == nil || u.Model != "openai-compatible/"+tc.user || u.Calls != tc.userCalls || u.Turns != wantTurns {
					t.Fatalf("user %+v; want %d calls, %d turns", u, tc.userCalls, wantTurns)
				}
				// Each answer of the scripted server: 50 in (20 cached), 10
				// out; a refused call, nothing.
				answered := tc.userCalls
				if tc.status == report.StatusError {
					answered = 0
				}
				agentCost := float64(tr.Iterations) * (30*1 + 20*1 + 10*2) / 1e6
				userCost := float64(answered) * (30*10 + 20*10 + 10*20) / 1e6
				if u.Tokens != (report.Tokens{Input: 50 * answered, Output: 10 * answered, Cached: 20 * answered}) ||
					u.Cost == nil || !near(*u.Cost, userCost) || tr.Cost == nil || !near(*tr.Cost, agentCost+userCost) {
					t.Errorf("user tokens %+v cost %v, trial cost %v; want user %v, trial %v", u.Tokens, u.Cost, tr.Cost, userCost, agentCost+userCost)
				}
				if tr.Tokens.Input != 50*tr.Iterations {
					t.Errorf("trial tokens %+v: the user model's are not the evaluated model's", tr.Tokens)
				}
			}
			if tc.status == report.StatusError {
				return
			}
			// The saved trials replay offline: no request reaches the server.
			requests := srv.Requests()
			for trial, p := range saved {
				v := harness.Verify(context.Background(), p, nil)
				if v.Err != nil || !v.Passed() {
					t.Errorf("saved trial %d: %v %v", trial, v.Err, v.Failures)
				}
				data, _ := os.ReadFile(p)
				if got := strings.Count(string(data), "- user: message "); got != tc.final {
					t.Errorf("saved trial %d holds %d user turns; want %d:\n%s", trial, got, tc.final, data)
				}
			}
			if srv.Requests() != requests {
				t.Errorf("replaying the saved trials made %d requests", srv.Requests()-requests)
			}
		})
	}
}

// TestSimulatedUserIsRedacted: a key the user model writes reaches the
// agent (it is the conversation) but never the trial's tape, transcript or
// report: the one redactor redacts user turns like the rest.
func TestSimulatedUserIsRedacted(t *testing.T) {
	const key = "sk-proj-UserKey0123456789abcdefABCDEF"
	said := 0
	user := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		said++
		if said > 1 {
			return &llm.Response{Message: llm.AssistantMessage("###STOP###")}, nil
		}
		return &llm.Response{Message: llm.AssistantMessage("my key is " + key)}, nil
	})
	var heard []string
	agent := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		heard = append(heard, last.Content)
		return &llm.Response{Message: llm.AssistantMessage("noted")}, nil
	})
	s := parse(t, "format: tapeloop/v1\nsetup:\n  user: {model: test/user, instructions: Share your key., max_turns: 2}\ninput: [{role: user, content: hi}]\nexpect:\n  final: {equals: noted}\n", "keys")
	var tape []string
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/agent"}, Trials: 1, Clock: clock.NewVirtual(clock.Epoch),
		Open: opener(map[string]llm.Model{"test/agent": agent, "test/user": user}),
		Trial: func(tr *Trial) error {
			for _, e := range tr.Tape.Entries {
				if e.User != nil {
					tape = append(tape, e.User.Content)
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(heard, []string{"hi", "my key is " + key}) {
		t.Errorf("the agent heard %q", heard)
	}
	if !reflect.DeepEqual(tape, []string{"my key is [REDACTED]"}) {
		t.Errorf("the tape's user turns: %q", tape)
	}
	tr := r.Scenarios[0].TrialsDetail[0]
	if tr.Status != report.StatusPass || tr.Transcript == nil {
		t.Fatalf("trial: %s %v %s", tr.Status, tr.Failures, tr.Error)
	}
	if data, _ := json.Marshal(r); strings.Contains(string(data), key) || !strings.Contains(string(data), "my key is [REDACTED]") {
		t.Errorf("the report holds the key, or not the redacted turn:\n%s", data)
	}
}

// TestSimulatedUserOfAnotherProviderHasItsOwnGate: a simulated user of a
// provider no evaluated model uses gets that provider's gate and limits:
// at one call a minute, the user's four calls take at least three minutes.
func TestSimulatedUserOfAnotherProviderHasItsOwnGate(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	open := openServer(srv, false)
	s := parse(t, strings.Replace(chatScenario("user-3", 5, 3), "model: openai-compatible/user-3", "model: users/user-3", 1), "chat")
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/echo"},
		Open: func(ctx context.Context, name string) (llm.Model, error) {
			return open(ctx, strings.Replace(name, "users/", "openai-compatible/", 1))
		},
		Limits: map[string]Limit{"users": {RPM: 1}},
		Trials: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Scenarios[0]; row.Passed != 1 {
		t.Fatalf("%d of %d passed (%d errors); want the trial to pass", row.Passed, row.Trials, row.Errors)
	}
	if got := r.Summary.WallMS; got < 180000 {
		t.Errorf("the run took %v ms; want at least 3 min, four user calls a minute apart", got)
	}
}

// TestRunRefusesAUserModelThatDoesNotOpen: a simulated user whose model
// cannot be opened stops the run before any trial, naming the scenario's
// setup.user line and the opening's error.
func TestRunRefusesAUserModelThatDoesNotOpen(t *testing.T) {
	var trials atomic.Int64
	models := map[string]llm.Model{"test/m": counting(writer("hello\nworld\n", "done"), &trials, nil)}
	s := parse(t, "format: tapeloop/v1\nsetup:\n  user: {model: test/user, instructions: Ask., max_turns: 2}\ninput: [{role: user, content: hi}]\nexpect:\n  final: {equals: done}\n", "asks")
	_, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"test/m"}, Open: opener(models), Trials: 2, Clock: clock.NewVirtual(clock.Epoch)})
	if want := "asks.yaml:3: setup.user.model: opening model test/user: no such model"; !errors.Is(err, ErrOpen) || err.Error() != want || trials.Load() != 0 {
		t.Errorf("Run = %v after %d trials; want %s before any trial", err, trials.Load(), want)
	}
}
