//go:build !race

package clients_test

// raceEnabled is true when the tests run under the race detector, which
// reports a data race inside eino-ext's Claude component when it streams.
const raceEnabled = false
