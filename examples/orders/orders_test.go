package orders_test

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/orders"
	"github.com/tapeloop/tapeloop/harness"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// TestScenarios replays scenarios/ with the agent's own tools: one subtest
// per scenario (go test ./examples/orders -run 'TestScenarios/cancel').
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Tools: orders.Tools()})
}

// TestEvalrunMain replays the same folder through the evalrun entry point
// with the tools added, as cmd/ordersrun does.
func TestEvalrunMain(t *testing.T) {
	var out, errb bytes.Buffer
	code := evalrun.Main(context.Background(), []string{"scenarios"}, &out, &errb, &evalrun.Options{Tools: orders.Tools()})
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
