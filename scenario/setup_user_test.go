package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestSetupUser(t *testing.T) {
	const input = "input: [{role: user, content: I want a refund.}]\n"
	s, err := Parse([]byte("format: tapeloop/v1\nsetup:\n  user:\n    model: openai/gpt-4.1-mini\n    instructions: |\n      You are Mia. Your order A100 arrived broken.\n    max_turns: 3\n"+input), "x.yaml", "x")
	if err != nil {
		t.Fatal(err)
	}
	want := UserSetup{Model: "openai/gpt-4.1-mini", Instructions: "You are Mia. Your order A100 arrived broken.\n", MaxTurns: 3, Stop: DefaultUserStop, Line: 4}
	if got := s.Setup.User; got == nil || *got != want {
		t.Fatalf("setup.user = %+v, want %+v", got, want)
	}
	s, err = Parse([]byte("format: tapeloop/v1\nsetup:\n  user: {model: a/b, instructions: x, max_turns: 100, stop: DONE}\n"+input+"tape:\n  - response: {content: ok}\n  - user: more\n  - response: {content: ok}\n"), "x.yaml", "x")
	if err != nil {
		t.Fatal(err)
	}
	if u := s.Setup.User; u.Stop != "DONE" || u.MaxTurns != 100 || len(s.UserTurns()) != 1 {
		t.Errorf("setup.user = %+v, user turns %v", u, s.UserTurns())
	}
}

func TestSetupUserErrors(t *testing.T) {
	const input = "input: [{role: user, content: hi}]\n"
	user := func(body string) string { return "format: tapeloop/v1\nsetup:\n  user:\n" + body }
	const ok = "    model: a/b\n    instructions: be Mia\n    max_turns: 2\n"
	cases := []struct{ name, text, want string }{
		{"missing model", user("    instructions: be Mia\n    max_turns: 2\n") + input,
			`x.yaml:4: setup.user: missing key "model" (setup.user needs model, instructions and max_turns)`},
		{"missing instructions", user("    model: a/b\n    max_turns: 2\n") + input,
			`x.yaml:4: setup.user: missing key "instructions"`},
		{"missing max_turns", user("    model: a/b\n    instructions: be Mia\n") + input,
			`x.yaml:4: setup.user: missing key "max_turns"`},
		{"model without provider", user("    model: gpt-4.1\n    instructions: be Mia\n    max_turns: 2\n") + input,
			`x.yaml:4: setup.user.model: model name must be "PROVIDER/MODEL", got "gpt-4.1"`},
		{"model not a string", user("    model: [a, b]\n    instructions: be Mia\n    max_turns: 2\n") + input,
			`x.yaml:4: setup.user.model: want a string`},
		{"empty instructions", user("    model: a/b\n    instructions: \"  \"\n    max_turns: 2\n") + input,
			`x.yaml:5: setup.user.instructions: empty (want who the user is and what they want)`},
		{"zero turns", user("    model: a/b\n    instructions: be Mia\n    max_turns: 0\n") + input,
			`x.yaml:6: setup.user.max_turns: want an integer from 1 to 100, got 0`},
		{"too many turns", user("    model: a/b\n    instructions: be Mia\n    max_turns: 101\n") + input,
			`x.yaml:6: setup.user.max_turns: want an integer from 1 to 100, got 101`},
		{"turns not a number", user("    model: a/b\n    instructions: be Mia\n    max_turns: three\n") + input,
			`x.yaml:6: setup.user.max_turns: want an integer, got a string ("three")`},
		{"empty stop", user(ok+"    stop: \"\"\n") + input,
			`x.yaml:7: setup.user.stop: empty (want the text the user model writes when the task is done; default ###STOP###)`},
		{"unknown key", user(ok+"    max_turn: 3\n") + input,
			`x.yaml:7: setup.user: unknown key "max_turn" (want model, instructions, max_turns, stop)`},
		{"not a mapping", "format: tapeloop/v1\nsetup:\n  user: mia\n" + input,
			`x.yaml:3: setup.user: want a mapping`},
		{"no user message in input", user(ok) + "input: [{role: system, content: be brief}]\n",
			`x.yaml:3: setup.user: input holds no user message: the conversation starts from input's user message, and the user model writes the next ones`},
		{"a script of user turns", user(ok) + input + "tape: [{user: hi again}]\n",
			`x.yaml:3: setup.user: the tape holds only user turns (a conversation script), which a live run with setup.user never speaks`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text), "x.yaml", "x")
			if err == nil || !errors.Is(err, ErrScenario) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Parse:\n got %v\nwant %s...", err, tc.want)
			}
		})
	}
}
