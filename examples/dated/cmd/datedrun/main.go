// Command datedrun is evalrun with the dated example's agents registered
// (before and after its fix): every evalrun command, flag and exit code.
//
//	go run ./examples/dated/cmd/datedrun cost examples/dated/scenarios
//	go run ./examples/dated/cmd/datedrun examples/dated/scenarios
package main

import (
	"context"
	"os"

	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/dated"
)

func main() {
	ctx, stop := evalrun.NotifyContext(context.Background())
	defer stop()
	os.Exit(evalrun.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, &evalrun.Options{Agents: dated.Agents()}))
}
