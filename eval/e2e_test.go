package eval

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/openai" // registers openai-compatible
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// openServer returns an Options.Open that opens openai-compatible models on
// srv, without streaming when noStream is set.
func openServer(srv *wiretest.Server, noStream bool) func(context.Context, string) (llm.Model, error) {
	return func(ctx context.Context, name string) (llm.Model, error) {
		return llm.Open(ctx, name, &llm.OpenOptions{BaseURL: srv.URL, APIKey: "test-key", NoStream: noStream})
	}
}

// TestEndToEndOverHTTP runs the scripted server's models through the real
// OpenAI-compatible provider, streamed and not: a right, a wrong, a
// broken-JSON (repaired, so it passes) and an alternating model, and one
// whose every answer is not JSON (error trials, retried, left out of
// pass@k).
func TestEndToEndOverHTTP(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(fmt.Sprintf("noStream=%v", noStream), func(t *testing.T) {
			srv := wiretest.New(nil)
			defer srv.Close()
			s := parse(t, appendScenario, "files/append")
			models := []string{"openai-compatible/right", "openai-compatible/wrong", "openai-compatible/broken", "openai-compatible/alternate", "openai-compatible/garbage"}
			r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
				Models: models, Open: openServer(srv, noStream), Trials: 4, Parallel: 1, RetryErrors: 1,
				Prices: map[string]Price{"openai-compatible/right": {Input: 1, Output: 2, Cached: 0.5}},
				Clock:  clock.NewVirtual(clock.Epoch),
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"openai-compatible/right":     "4/4 errors 0 pass pass@2=1 pass^2=1",
				"openai-compatible/wrong":     "0/4 errors 0 fail pass@2=0 pass^2=0",
				"openai-compatible/broken":    "4/4 errors 0 pass pass@2=1 pass^2=1",
				"openai-compatible/alternate": "2/4 errors 0 flaky pass@2=0.8333 pass^2=0.1667",
				"openai-compatible/garbage":   "0/0 errors 4 error pass@2=0 pass^2=0",
			}
			for _, row := range r.Scenarios {
				got := fmt.Sprintf("%d/%d errors %d %s pass@2=%.4g pass^2=%.4g", row.Passed, row.Trials, row.Errors, row.Class, row.PassAtK[2], row.PassHatK[2])
				if got != want[row.Model] {
					t.Errorf("%s: %s; want %s", row.Model, got, want[row.Model])
				}
			}
			right := r.Scenarios[0]
			// Two calls a trial, each 50 in (20 cached) and 10 out.
			if want := (report.Tokens{Input: 400, Output: 80, Cached: 160}); right.Tokens != want {
				t.Errorf("right tokens %+v; want %+v", right.Tokens, want)
			}
			if want := (240*1 + 160*0.5 + 80*2) / 1e6; right.Cost == nil || !near(*right.Cost, want) {
				t.Errorf("right cost %v; want %v", right.Cost, want)
			}
			garbage := r.Scenarios[4]
			for _, tr := range garbage.TrialsDetail {
				if tr.Status != report.StatusError || tr.Attempts != 2 || tr.Termination != "model_error" {
					t.Errorf("garbage trial %d: status %s, %d attempts, %s; want error after 2 attempts", tr.Trial, tr.Status, tr.Attempts, tr.Termination)
				}
			}
			if r.Summary.Errors != 4 || r.Summary.Trials != 16 || r.Summary.Passed != 10 {
				t.Errorf("summary %d passed of %d scored, %d errors; want 10 of 16, 4", r.Summary.Passed, r.Summary.Trials, r.Summary.Errors)
			}
		})
	}
}

// TestEndToEndRateLimits: the server answers its first three requests with
// 429 and Retry-After: 2; every trial still passes, and the shared pause
// held the trials for the server's 2s after each 429 (on the virtual
// clock: no wall time).
func TestEndToEndRateLimits(t *testing.T) {
	srv := wiretest.New(&wiretest.Options{RateLimited: 3, RetryAfter: "2"})
	defer srv.Close()
	s := parse(t, appendScenario, "files/append")
	c := clock.NewVirtual(clock.Epoch)
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right"}, Open: openServer(srv, false), Trials: 3, Parallel: 1, Clock: c,
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	if row.Passed != 3 || row.Errors != 0 {
		t.Errorf("%d/%d passed, %d errors; want 3/3, 0", row.Passed, row.Trials, row.Errors)
	}
	if srv.RateLimitedRequests() != 3 || srv.Requests() != 3+6 {
		t.Errorf("%d requests, %d limited; want 9, 3", srv.Requests(), srv.RateLimitedRequests())
	}
	if got := c.Now().Sub(clock.Epoch); got != 6*time.Second {
		t.Errorf("the clock moved %v; want 6s (three 2s pauses)", got)
	}
	// The first trial's first call waited out the three 429s: it is
	// measured once, as a success.
	if tape := row.TrialsDetail[0].Tape; len(tape) != 2 || tape[0].Error != "" {
		t.Errorf("trial 1's tape: %+v", tape)
	}
}

// TestFaultsApplyPerTrial: a scenario's faults: are applied to each trial's
// own requests (call 1 of every trial fails with a 500 that never reaches
// the server, and the retry passes); with only Options.Open, which cannot
// carry them, its trials are error trials rather than silent passes.
func TestFaultsApplyPerTrial(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	s := parse(t, appendScenario+"faults:\n  - {call: 1, http: 500}\n", "files/append")
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right"}, Trials: 3, Parallel: 2, Clock: clock.NewVirtual(clock.Epoch),
		OpenHTTP: func(ctx context.Context, name string, client *http.Client) (llm.Model, error) {
			return llm.Open(ctx, name, &llm.OpenOptions{BaseURL: srv.URL, APIKey: "test-key", HTTPClient: client})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Scenarios[0]; row.Passed != 3 || row.Errors != 0 {
		t.Errorf("%d/%d passed, %d errors; want 3/3, 0", row.Passed, row.Trials, row.Errors)
	}
	if srv.Requests() != 6 {
		t.Errorf("the server saw %d requests; want 6 (two a trial: each trial's first, faulted, never reached it)", srv.Requests())
	}
	r, err = Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right"}, Open: openServer(srv, false), Trials: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Scenarios[0].TrialsDetail[0]
	if tr.Status != report.StatusError || !strings.Contains(tr.Error, "scripts faults:, but Options.Open cannot route") {
		t.Errorf("with Open only: status %s, error %q", tr.Status, tr.Error)
	}
}
