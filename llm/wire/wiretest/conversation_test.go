package wiretest

import (
	"net/http"
	"testing"
)

func TestConversationModels(t *testing.T) {
	s := New(nil)
	defer s.Close()
	cases := []struct{ body, want string }{
		{`{"model": "echo", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}, {"role": "user", "content": "bye"}]}`, "You said: bye"},
		// The user model's own messages are role assistant, the first
		// being the conversation's opening.
		{`{"model": "user-2", "messages": [{"role": "system", "content": "be Mia"}, {"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "You said: Hello."}]}`, "message 1"},
		{`{"model": "user-2", "messages": [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "message 1"}, {"role": "user", "content": "b"}]}`, "message 2"},
		{`{"model": "user-1", "messages": [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "message 1"}, {"role": "user", "content": "b"}]}`, UserStop},
	}
	for _, tc := range cases {
		resp, body := post(t, s, tc.body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", tc.body, resp.StatusCode)
		}
		if c := decode(t, body); c.Choices[0].Message.Content == nil || *c.Choices[0].Message.Content != tc.want {
			t.Errorf("%s: answered %s; want %q", tc.body, body, tc.want)
		}
	}
	for _, model := range []string{"user-fail", "user-x"} {
		if resp, body := post(t, s, `{"model": "`+model+`", "messages": [{"role": "user", "content": "Hi!"}]}`); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, %s; want 400", model, resp.StatusCode, body)
		}
	}
	if s.RequestsFor("echo") != 1 || s.RequestsFor("user-2") != 2 || s.RequestsFor("user-fail") != 1 {
		t.Errorf("requests by model: echo %d, user-2 %d, user-fail %d", s.RequestsFor("echo"), s.RequestsFor("user-2"), s.RequestsFor("user-fail"))
	}
}
