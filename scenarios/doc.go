// Package scenarios holds tapeloop's own scenario files, grouped by the
// behaviour they pin (ordering, termination, retry, repair, text-calls,
// coercion, errors, availability, memo, async, files, recorded), each with its
// golden file. Its test replays them all: `go test ./scenarios` checks them,
// `go test ./scenarios -update` rewrites their goldens, and
// `go run ./cmd/evalrun` does the same from the command line.
package scenarios
