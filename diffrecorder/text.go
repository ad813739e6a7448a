package diffrecorder

import "github.com/tapeloop/tapeloop/internal/udiff"

// Unified returns the hunks of a unified diff that turns a into b (three lines
// of context, no file headers), or "" when they are equal. The harness uses it
// to show how an outcome differs from its golden file.
func Unified(a, b string) string {
	return udiff.Hunks(a, b)
}
