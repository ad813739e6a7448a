package faults

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
)

// upstream serves a fixture file: SSE for paths ending in /stream/..., JSON
// otherwise, and counts what it was asked.
func upstream(t *testing.T, file, contentType string) (*httptest.Server, *int) {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	hits := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*hits++
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func get(t *testing.T, tr *Transport, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestHTTPFaultsSpeakTheVendorsDialect(t *testing.T) {
	srv, hits := upstream(t, "openai-tool-call.json", "application/json")
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{
		{Call: 1, HTTP: 429, RetryAfter: 1500 * time.Millisecond},
		{Call: 2, HTTP: 529},
		{Call: 3, HTTP: 500},
	}}
	resp, body := get(t, tr, srv.URL+"/v1/chat/completions")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("429: status %d, Retry-After %q (want 2: whole seconds, rounded up)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if want := `{"error":{"message":"injected fault: HTTP 429","type":"rate_limit_exceeded","param":null,"code":null}}`; body != want {
		t.Errorf("OpenAI 429 body\n got %s\nwant %s", body, want)
	}
	resp, body = get(t, tr, srv.URL+"/v1/messages")
	if want := `{"type":"error","error":{"type":"overloaded_error","message":"injected fault: HTTP 529"}}`; resp.StatusCode != 529 || body != want {
		t.Errorf("Anthropic 529: status %d body\n got %s\nwant %s", resp.StatusCode, body, want)
	}
	resp, _ = get(t, tr, srv.URL+"/v1/messages")
	if resp.StatusCode != 500 {
		t.Errorf("500: status %d", resp.StatusCode)
	}
	if *hits != 0 {
		t.Errorf("an HTTP fault reached the server %d times", *hits)
	}
	resp, body = get(t, tr, srv.URL+"/v1/chat/completions")
	if resp.StatusCode != 200 || *hits != 1 || !strings.Contains(body, "get_weather") {
		t.Errorf("call 4 has no fault and must pass through: status %d, hits %d", resp.StatusCode, *hits)
	}
	if tr.Calls() != 4 || len(tr.Applied()) != 3 || tr.Applied()[1].HTTP != 529 {
		t.Errorf("Calls %d, Applied %v", tr.Calls(), tr.Applied())
	}
}

func TestStreamCut(t *testing.T) {
	srv, _ := upstream(t, "openai-tool-call.sse", "text/event-stream")
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Stream: faultspec.StreamCut, AfterBytes: 120}}}
	_, body := get(t, tr, srv.URL+"/v1/chat/completions")
	full, _ := os.ReadFile("testdata/openai-tool-call.sse")
	if body != string(full[:120]) {
		t.Errorf("cut body = %q, want the first 120 bytes", body)
	}
}

func TestStreamErrorAfterTheFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		file, path, want string
	}{
		{"anthropic-tool-use.sse", "/v1/messages",
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"injected fault: overloaded\"}}\n\n"},
		{"openai-tool-call.sse", "/v1/chat/completions",
			"data: {\"error\":{\"message\":\"injected fault: overloaded\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv, _ := upstream(t, tc.file, "text/event-stream")
			tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Stream: faultspec.StreamError}}}
			_, body := get(t, tr, srv.URL+tc.path)
			full, _ := os.ReadFile("testdata/" + tc.file)
			first := string(full[:strings.Index(string(full), "\n\n")+2])
			if body != first+tc.want {
				t.Errorf("body\n got %q\nwant %q", body, first+tc.want)
			}
		})
	}
}

// arguments collects the tool-call argument text of a stream or body.
func arguments(t *testing.T, d dialect, body string, sse bool) string {
	t.Helper()
	if !sse {
		var v struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		return v.Choices[0].Message.ToolCalls[0].Function.Arguments
	}
	var b strings.Builder
	for _, ev := range strings.Split(body, "\n\n") {
		payload, ok := dataLine([]byte(ev))
		if !ok || payload == "[DONE]" {
			continue
		}
		v, err := decode([]byte(payload))
		if err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		for _, f := range fragments(d, v) {
			b.WriteString(f.text)
		}
	}
	return b.String()
}

func TestArgumentsTruncate(t *testing.T) {
	for _, tc := range []struct {
		file, contentType, path string
		d                       dialect
		want                    string
	}{
		{"openai-tool-call.sse", "text/event-stream", "/v1/chat/completions", openAI, `{"location`},
		{"openai-tool-call.json", "application/json", "/v1/chat/completions", openAI, `{"location`},
		{"anthropic-tool-use.sse", "text/event-stream", "/v1/messages", anthropic, `{"location`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv, _ := upstream(t, tc.file, tc.contentType)
			full, _ := os.ReadFile("testdata/" + tc.file)
			sse := tc.contentType == "text/event-stream"
			whole := arguments(t, tc.d, string(full), sse)
			tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Arguments: faultspec.ArgumentsTruncate}}}
			_, body := get(t, tr, srv.URL+tc.path)
			got := arguments(t, tc.d, body, sse)
			if got != tc.want || got != half(whole) {
				t.Errorf("truncated arguments %q, want %q (half of %q)", got, tc.want, whole)
			}
			if sse && !strings.HasSuffix(body, strings.SplitAfter(string(full), "\n\n")[len(strings.SplitAfter(string(full), "\n\n"))-2]) {
				t.Errorf("the events after the arguments were not passed through:\n%s", body)
			}
		})
	}
}

func TestLatencyWaitsOnTheInjectedSleep(t *testing.T) {
	srv, hits := upstream(t, "openai-tool-call.json", "application/json")
	var slept []time.Duration
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Latency: 30 * time.Second}, {Call: 2, Latency: time.Second}},
		Sleep: func(ctx context.Context, d time.Duration) error {
			slept = append(slept, d)
			if d > 10*time.Second {
				return context.DeadlineExceeded // the model-call timeout passed first
			}
			return nil
		}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{}`))
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call 1: err %v, want the deadline", err)
	}
	resp, _ := get(t, tr, srv.URL+"/v1/chat/completions")
	if resp.StatusCode != 200 || *hits != 1 || len(slept) != 2 || slept[0] != 30*time.Second {
		t.Errorf("status %d, hits %d, slept %v", resp.StatusCode, *hits, slept)
	}
}

func TestDefaultSleepFailsAtOnceWhenTheDeadlineIsNearer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := realSleep(ctx, 2*time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a latency past the deadline: %v, want DeadlineExceeded at once", err)
	}
	if err := realSleep(context.Background(), 0); err != nil {
		t.Errorf("a zero wait: %v", err)
	}
}

func TestAppliedOnlyWhenTheFaultApplied(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Stream: faultspec.StreamCut, AfterBytes: 3}, {Call: 2, HTTP: 503}}}
	resp, body := get(t, tr, srv.URL+"/v1/chat/completions")
	if resp.StatusCode != 400 || !strings.Contains(body, "bad") {
		t.Errorf("a 400 from the server must pass whole: %d %q", resp.StatusCode, body)
	}
	get(t, tr, srv.URL+"/v1/chat/completions")
	if got := tr.Applied(); len(got) != 1 || got[0].Call != 2 {
		t.Errorf("Applied = %v; want only call 2 (the cut had no 200 body to cut)", got)
	}
}
