package bridge_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// parallelScenario's agent asks two sub-agents at once, then sums up.
const parallelScenario = `format: tapeloop/v1
setup:
  agent: {go: parallel}
input:
  - {role: user, content: "Compare the two reports."}
tape: []
expect:
  termination: final_text
  iterations: 3
`

// parallelAgent sends two sub-agent requests concurrently (as adk-go's
// parallel agents do), then one request with both answers.
func parallelAgent(ctx context.Context, r *bridge.Run) error {
	return parallelWith(ctx, r, r.HTTPClient)
}

// parallelWith is parallelAgent sending its requests with client.
func parallelWith(ctx context.Context, r *bridge.Run, client *http.Client) error {
	tasks := []string{"Summarise report A.", "Summarise report B."}
	answers := make([]string, len(tasks))
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	for i, task := range tasks {
		wg.Go(func() {
			a := newNotesAgent()
			msgs := []chatMessage{{Role: "system", Content: "You summarise one report."}, {Role: "user", Content: task}}
			answers[i], errs[i] = a.answer(ctx, client, r.OpenAIBaseURL, r.Dir, &msgs)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	a := newNotesAgent()
	msgs := []chatMessage{{Role: "system", Content: a.system}, {Role: "user", Content: "Compare: " + strings.Join(answers, " / ")}}
	final, err := a.answer(ctx, client, r.OpenAIBaseURL, r.Dir, &msgs)
	if err != nil {
		return err
	}
	r.Final(final)
	return nil
}

// byTask answers each request by what it asks.
var byTask = llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
	last, _ := req.LastMessage()
	switch {
	case strings.Contains(last.Content, "report A"):
		return text("A is about apples."), nil
	case strings.Contains(last.Content, "report B"):
		return text("B is about bananas."), nil
	}
	return text("They differ in fruit."), nil
})

// TestParallelRequestsReplay: an agent that makes two model calls at once
// replays every time, with the same golden, whichever call arrives first
// (issue 39, item 7).
func TestParallelRequestsReplay(t *testing.T) {
	path := record(t, parallelScenario, parallelAgent, byTask)
	if v := verify(t, path, parallelAgent, true); !v.Passed() {
		t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	// Both orders, forced: the first request waits until the other has
	// been answered.
	for _, first := range []string{"report A", "report B"} {
		ordered := func(ctx context.Context, r *bridge.Run) error {
			var gate sync.Mutex
			gate.Lock()
			return parallelWith(ctx, r, orderedClient(r.HTTPClient, first, &gate))
		}
		for range 5 {
			if v := verify(t, path, ordered, false); !v.Passed() {
				t.Fatalf("%s answered first: the replay fails:\n%s", first, fmt.Sprint(v.Failure()))
			}
		}
	}
	if s, err := scenario.Load(path); err != nil || len(s.Tape) != 3 {
		t.Fatalf("the tape: %v", err)
	}
}

// orderedClient is c with the sub-agent requests ordered: one that asks
// about another report than first waits until first's has been answered
// (gate, locked, is unlocked then).
func orderedClient(c *http.Client, first string, gate *sync.Mutex) *http.Client {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	return &http.Client{Transport: orderedTrip(func(req *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		isFirst, isOther := bytes.Contains(body, []byte(first)), bytes.Contains(body, []byte("Summarise report"))
		if isOther && !isFirst {
			gate.Lock()
			defer gate.Unlock()
		}
		resp, err := next.RoundTrip(req)
		if isFirst {
			gate.Unlock()
		}
		return resp, err
	})}
}

type orderedTrip func(*http.Request) (*http.Response, error)

func (f orderedTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
