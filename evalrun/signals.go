package evalrun

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// NotifyContext returns a copy of ctx that is done when the process gets
// SIGINT (Ctrl-C) or SIGTERM (how Kubernetes and most job runners stop a
// job): eval then starts no trial, gives the running ones a grace period,
// and writes its report and saved trials; record leaves the scenario being
// recorded as it was. A main calls it around Main; stop releases the
// signals.
func NotifyContext(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
