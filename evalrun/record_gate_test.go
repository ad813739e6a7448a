package evalrun

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
)

// TestRecordSharesOneGate: a server that answers the first scenario's every
// attempt (the first and eval.DefaultModelRetries retries) with 429 and
// Retry-After: 30 fails that scenario, and its last 429 pauses the
// provider. The second scenario's first request waits out that pause on
// the gate the whole recording shares (30 s of a virtual clock after the
// last 429), rather than going out at once through a gate of its own.
func TestRecordSharesOneGate(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefABCDEF")
	c := clock.NewVirtual(clock.Epoch)
	write := chatAnswer{callID: "call_w1", name: "write_file", arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`, inTok: 40, outTok: 12}
	done := chatAnswer{text: "Done.", inTok: 60, outTok: 9}
	srv := newChatServer(t, write, done)
	srv.clock = c
	const limited = 4 // the first attempt and DefaultModelRetries (3) retries
	srv.limited = func(n int) string {
		if n <= limited {
			return "30"
		}
		return ""
	}
	dir := newScenarios(t, map[string]string{"a.yaml": unrecorded, "b.yaml": unrecorded})
	var out, errb bytes.Buffer
	code := recordCommand(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: c},
		[]string{"--model", "openai/gpt-test", "--base-url", srv.URL + "/v1", "--no-golden", dir}, llm.Open)
	if code != exitFailed || !strings.Contains(out.String(), "1 recorded, 0 skipped, 1 failed") {
		t.Fatalf("exit %d; want 1 with a and b recorded\n%s%s", code, out.String(), errb.String())
	}
	srv.mu.Lock()
	at := append([]time.Time(nil), srv.at...)
	srv.mu.Unlock()
	if len(at) != limited+2 {
		t.Fatalf("the server got %d requests; want %d 429s and b's 2", len(at), limited)
	}
	for i := 1; i < limited; i++ {
		if d := at[i].Sub(at[i-1]); d != 30*time.Second {
			t.Errorf("a's retry %d went out %v after the 429 before it; want 30s", i, d)
		}
	}
	if d := at[limited].Sub(at[limited-1]); d != 30*time.Second {
		t.Errorf("b's first request went out %v after a's last 429 (Retry-After: 30); want 30s, the shared pause", d)
	}
}

// TestRecordWaitsOut503: a 503 with Retry-After: 7 from the server is
// waited out (7 s of a virtual clock) and tried again; the tape holds only
// the answers, no error entry.
func TestRecordWaitsOut503(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefABCDEF")
	c := clock.NewVirtual(clock.Epoch)
	write := chatAnswer{callID: "call_w1", name: "write_file", arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`, inTok: 40, outTok: 12}
	srv := newChatServer(t, write, chatAnswer{text: "Done.", inTok: 60, outTok: 9})
	srv.clock, srv.limitedStatus = c, http.StatusServiceUnavailable
	srv.limited = func(n int) string {
		if n == 1 {
			return "7"
		}
		return ""
	}
	dir := newScenarios(t, map[string]string{"a.yaml": unrecorded})
	var out, errb bytes.Buffer
	code := recordCommand(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: c},
		[]string{"--model", "openai/gpt-test", "--base-url", srv.URL + "/v1", "--no-golden", dir}, llm.Open)
	if code != exitOK || !strings.Contains(out.String(), "1 recorded, 0 skipped, 0 failed") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	srv.mu.Lock()
	at := append([]time.Time(nil), srv.at...)
	srv.mu.Unlock()
	if len(at) != 3 || at[1].Sub(at[0]) != 7*time.Second {
		t.Errorf("requests at %v; want 3, the retry 7s after the 503", at)
	}
	data, err := os.ReadFile(filepath.Join(dir, "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "error:") || !strings.Contains(string(data), "content: Done.") {
		t.Errorf("the tape holds an error entry, or lacks the answer:\n%s", data)
	}
}
