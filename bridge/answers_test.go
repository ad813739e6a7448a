package bridge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// showing is the notes agent in conversation, reporting show(n, answer)
// for its n-th answer (from 1) in place of the model's answer; an empty
// list reports nothing.
func showing(show func(n int, answer string) []string) bridge.Agent {
	a := newNotesAgent()
	return func(ctx context.Context, r *bridge.Run) error {
		msgs := []chatMessage{{Role: "system", Content: a.system}}
		for _, m := range r.Input {
			msgs = append(msgs, chatMessage{Role: string(m.Role), Content: m.Content})
		}
		for n := 1; ; n++ {
			answer, err := a.answer(ctx, r.HTTPClient, r.OpenAIBaseURL, r.Dir, &msgs)
			if err != nil {
				return err
			}
			for _, s := range show(n, answer) {
				r.Final(s)
			}
			next, ok := r.NextUser(ctx)
			if !ok {
				return nil
			}
			msgs = append(msgs, chatMessage{Role: "user", Content: next.Content})
		}
	}
}

// TestEveryAnswerIsChecked: every answer a bridged agent reports is in the
// golden and in what expect.said checks, not only the last: an agent that
// shows the user another answer than the model wrote, or answers a turn
// twice, no longer passes against the honest agent's golden (issue 39,
// item 6).
func TestEveryAnswerIsChecked(t *testing.T) {
	honest := showing(func(_ int, answer string) []string { return []string{answer} })
	path := record(t, conversationScenario, honest, conversationScript())
	if v := verify(t, path, honest, true); !v.Passed() {
		t.Fatalf("the honest agent fails:\n%s", fmt.Sprint(v.Failure()))
	}
	if v := verify(t, path, honest, false); !v.Passed() {
		t.Fatalf("the honest agent fails its own golden:\n%s", fmt.Sprint(v.Failure()))
	}
	for name, show := range map[string]func(int, string) []string{
		"another answer than the model's": func(n int, answer string) []string {
			if n == 1 {
				return []string{"Done: I deleted notes.txt."}
			}
			return []string{answer}
		},
		"a turn answered twice": func(n int, answer string) []string {
			if n == 1 {
				return []string{answer, "Also: I deleted notes.txt."}
			}
			return []string{answer}
		},
	} {
		t.Run(name, func(t *testing.T) {
			v := verify(t, path, showing(show), false)
			all := fmt.Sprint(v.Failure())
			if v.Passed() || !strings.Contains(all, "I deleted notes.txt.") {
				t.Errorf("passed, or the failure does not show the answer:\n%s", all)
			}
			// expect.said sees the answer the user was shown.
			s := load(t, path)
			s.Expect.Said[0].Contains = ptr("I deleted notes.txt.")
			if failed := harness.Failures(s, v.Outcome); len(failed) > 0 {
				t.Errorf("expect.said does not see the reported answer: %q", failed)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
