package bridge_test

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// TestCommandErrorQuotesStderr: a command that fails is reported with the
// end of its stderr after "; its stderr ends:", and a command that printed
// nothing on stderr without that phrase.
func TestCommandErrorQuotesStderr(t *testing.T) {
	bin := buildCommandAgent(t)
	for _, tc := range []struct{ mode, timeout, suffix string }{
		{"fail", "60s", "exit status 3; its stderr ends:\ncmdagent: cannot go on in $WORK"},
		{"hang", "300ms", "did not finish within 300ms and was killed"},
	} {
		s := load(t, writeScenario(t, commandText(bin, tc.mode, tc.timeout)))
		o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(o.Error, tc.suffix) {
			t.Errorf("%s: the outcome's error is\n%s\nwant it to end with\n%s", tc.mode, o.Error, tc.suffix)
		}
	}
}

// conversationCommand runs script with sh -c as the command of a
// conversation (the tape's second entry is a user turn) against a live
// model, and returns the outcome's error.
func conversationCommand(t *testing.T, script string) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the command with")
	}
	text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [" + sh + ", -c, " + strconv.Quote(script) + "]\n    timeout: 30s\n" +
		"input: [{role: user, content: hi}]\ntape:\n  - response: {content: a}\n  - user: more\n"
	s := load(t, writeScenario(t, text))
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	return o.Error
}

// TestConversationCommandBadLine: in a conversation, a command's stdout
// line that is not an answer fails the run naming that line's number, and
// the command is killed at once rather than left to run to its timeout.
func TestConversationCommandBadLine(t *testing.T) {
	got := conversationCommand(t, `read -r input; echo '{"final": "a"}'; read -r next; echo; echo oops; exec sleep 60`)
	if want := `stdout line 3 is not an answer {"final": TEXT}`; !strings.Contains(got, want) {
		t.Errorf("the outcome's error is\n%s\nwant it to say %s", got, want)
	}
}

// TestConversationCommandBadLineQuoted: the bad line is quoted whole up to
// 200 bytes, and cut there with "..." when longer.
func TestConversationCommandBadLineQuoted(t *testing.T) {
	for _, n := range []int{200, 201} {
		line := strings.Repeat("x", n)
		got := conversationCommand(t, "read -r input; echo "+line)
		want := strconv.Quote(line[:200])
		if n > 200 {
			want = strconv.Quote(line[:200] + "...")
		}
		if !strings.HasSuffix(got, want) {
			t.Errorf("a %d-byte line: the outcome's error is\n%s\nwant it to end with %s", n, got, want)
		}
	}
}

// TestHandlerRefusesAnOversizedBody: a request body over 64 MiB is refused
// with a 400 that says so, before anything decodes it; one of exactly
// 64 MiB is decoded (here it is no JSON request).
func TestHandlerRefusesAnOversizedBody(t *testing.T) {
	client := bridge.Client(bridge.Handler(notesScript(), nil))
	for _, size := range []int{64 << 20, 64<<20 + 1} {
		resp, err := client.Post(bridge.OpenAIBaseURL+"/chat/completions", "application/json", bytes.NewReader(bytes.Repeat([]byte(" "), size)))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refused := strings.Contains(string(msg), "the request body is larger than 67108864 bytes")
		if resp.StatusCode != http.StatusBadRequest || refused != (size > 64<<20) {
			t.Errorf("a body of %d bytes: %d %s", size, resp.StatusCode, msg)
		}
	}
}

// TestHandlerAnswersARequestOfExactly64MiB: a request body of exactly the
// 64 MiB limit is read whole and answered, whether its length is declared
// or not; a declared length far past the limit is not trusted.
func TestHandlerAnswersARequestOfExactly64MiB(t *testing.T) {
	client := bridge.Client(bridge.Handler(notesScript(), nil))
	req := `{"model": "m", "messages": [{"role": "user", "content": "Append world to notes.txt."}]}`
	body := append(bytes.Repeat([]byte(" "), 64<<20-len(req)), req...)
	for _, declared := range []int64{64 << 20, 1 << 40} {
		r, err := http.NewRequest(http.MethodPost, bridge.OpenAIBaseURL+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = declared
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("a 64 MiB request declared as %d bytes: %d %s", declared, resp.StatusCode, msg)
		}
	}
}

// TestClientRefusesAGet: the in-process client answers a request without a
// body (a GET) with the handler's 405, not a crash.
func TestClientRefusesAGet(t *testing.T) {
	resp, err := bridge.Client(bridge.Handler(notesScript(), nil)).Get(bridge.OpenAIBaseURL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(msg), "the bridge answers POST model calls only") {
		t.Errorf("GET: %d %s", resp.StatusCode, msg)
	}
}
