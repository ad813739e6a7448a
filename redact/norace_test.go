//go:build !race

package redact

// raceEnabled is true when the tests run under the race detector, whose
// sync.Pool drops some of what it is given at random.
const raceEnabled = false
