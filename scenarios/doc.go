// Package scenarios holds tapeloop's own scenario files, grouped by the
// behaviour they pin (ordering, termination, retry, repair, text-calls,
// coercion, errors, availability, memo, async, files, recorded, faults,
// conversations, scoring), each with its golden file. Its test replays them
// all: `go test ./scenarios` checks them, `go test ./scenarios -update`
// rewrites their goldens, and `go run ./cmd/evalrun` does the same from the
// command line. scoring/judged-append (a recorded judge verdict) and
// conversations/simulated-user (a model playing the user) were written by
// evalrun record from scripted models; recorded_test.go records them again
// and requires the same files.
package scenarios
