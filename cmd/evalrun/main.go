// Command evalrun replays tapeloop scenarios, updates their goldens, and offers the
// tool runtime's repair and extraction as filters for measuring corpora.
//
// Usage:
//
//	evalrun [command] [flags] [args]
//
// With no command it replays the bundled scenarios. Exit status: 0 when everything
// passed, 1 when a scenario (or a repair) failed, 2 on a usage or input error.
// Results go to standard output, diagnostics to standard error. `evalrun --help`
// lists the commands; the body lives in package evalrun, which a main of your
// own calls with your tools added.
package main

import (
	"context"
	"os"

	"github.com/tapeloop/tapeloop/evalrun"
	_ "github.com/tapeloop/tapeloop/llm/builtin" // providers for llm.Open by name
)

func main() {
	ctx, stop := evalrun.NotifyContext(context.Background())
	defer stop()
	os.Exit(evalrun.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}
