// Command ordersrun is evalrun with the orders agent's tools and check
// added: every evalrun command, flag and exit code, and scenarios may name
// lookup_order and cancel_order in setup.tools and answer_matches_book in
// expect.check.
//
//	go run ./examples/orders/cmd/ordersrun examples/orders/scenarios
//	go run ./examples/orders/cmd/ordersrun lint examples/orders/scenarios
package main

import (
	"context"
	"os"

	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/orders"

	_ "github.com/tapeloop/tapeloop/llm/builtin" // providers for llm.Open by name, for record and eval
)

func main() {
	ctx, stop := evalrun.NotifyContext(context.Background())
	defer stop()
	os.Exit(evalrun.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, &evalrun.Options{Tools: orders.Tools(), Checks: orders.Checks()}))
}
