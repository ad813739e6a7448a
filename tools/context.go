package tools

import "context"

// RunInfo identifies the run a call belongs to. It reaches tools through the
// context, so no tool is mutated per call and concurrent runs can share a
// registry.
type RunInfo struct {
	Channel string
	ChatID  string
	RunID   string
}

type (
	runInfoKey    struct{}
	progressKey   struct{}
	completionKey struct{}
)

// WithRunInfo returns a context carrying info.
func WithRunInfo(ctx context.Context, info RunInfo) context.Context {
	return context.WithValue(ctx, runInfoKey{}, info)
}

// RunInfoFrom returns the run info carried by ctx; the zero RunInfo when none.
func RunInfoFrom(ctx context.Context) RunInfo {
	info, _ := ctx.Value(runInfoKey{}).(RunInfo)
	return info
}

// ProgressFunc receives a running tool's progress updates.
type ProgressFunc func(message string)

// WithProgress returns a context whose tool calls report progress to fn.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress sends a progress update from a running tool. It does nothing
// when the caller does not listen; updates sent after the tool returned are
// dropped by the loop.
func ReportProgress(ctx context.Context, message string) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && fn != nil {
		fn(message)
	}
}

// CompleteFunc delivers the final result of an asynchronous call.
type CompleteFunc func(*Result)

// WithCompletion returns a context whose asynchronous tool calls deliver their
// completion to fn.
func WithCompletion(ctx context.Context, fn CompleteFunc) context.Context {
	return context.WithValue(ctx, completionKey{}, fn)
}

// Completion returns the function an asynchronous tool calls, later and from any
// goroutine, with its final result, after returning a result with Started set.
// It is nil when the caller does not support asynchronous tools: such a tool
// should then finish synchronously.
func Completion(ctx context.Context) CompleteFunc {
	fn, _ := ctx.Value(completionKey{}).(CompleteFunc)
	return fn
}
