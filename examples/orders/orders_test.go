package orders_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/orders"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// TestScenarios replays scenarios/ with the agent's own tools: one subtest
// per scenario (go test ./examples/orders -run 'TestScenarios/cancel').
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Tools: orders.Tools(), Checks: orders.Checks()})
}

// TestEvalrunMain replays the same folder through the evalrun entry point
// with the tools and checks added, as cmd/ordersrun does.
func TestEvalrunMain(t *testing.T) {
	var out, errb bytes.Buffer
	code := evalrun.Main(context.Background(), []string{"scenarios"}, &out, &errb, &evalrun.Options{Tools: orders.Tools(), Checks: orders.Checks()})
	if code != 0 || !strings.Contains(out.String(), "3 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := evalrun.Main(context.Background(), []string{"lint", "scenarios"}, &out, &errb, nil); code != 2 ||
		!strings.Contains(errb.String(), `unknown tool "lookup_order"`) {
		t.Errorf("lint without the tools: exit %d\n%s", code, errb.String())
	}
}

// TestAnswerMatchesBook: the check fails an answer that tells the customer
// a shipped order is cancelled (the tool refused), naming the scenario's
// line and what the order book says, and passes the answer the tape holds.
func TestAnswerMatchesBook(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("scenarios", "cancel-shipped.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const honest = "Order A100 has already shipped, so it cannot be cancelled; I can start a return instead."
	wrong := strings.Replace(string(src), honest, "Order A100 is cancelled.", 1)
	if wrong == string(src) {
		t.Fatalf("cancel-shipped.yaml no longer answers %q", honest)
	}
	path := filepath.Join(t.TempDir(), "cancel-shipped.yaml")
	if err := os.WriteFile(path, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := harness.Run(t.Context(), s, &harness.RunOptions{Tools: orders.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(wrong[:strings.Index(wrong, "  check:")], "\n") + 1
	want := fmt.Sprintf(`%s:%d: expect.check[answer_matches_book]: the final text does not say order A100 is shipped: "Order A100 is cancelled."`, path, line)
	if got := harness.Failures(s, o, orders.Checks()...); len(got) != 1 || got[0].Error() != want || got[0].Key != "expect.check[answer_matches_book]" || got[0].Line != line {
		t.Errorf("the check on a wrong answer:\n%q\nwant\n%q", got, want)
	}
	s, err = scenario.Load(filepath.Join("scenarios", "cancel-shipped.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if o, err = harness.Run(t.Context(), s, &harness.RunOptions{Tools: orders.Tools()}); err != nil {
		t.Fatal(err)
	}
	if got := harness.Failures(s, o, orders.Checks()...); len(got) != 0 {
		t.Errorf("the check fails the honest answer: %q", got)
	}
}
