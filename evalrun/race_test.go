//go:build race

package evalrun

// raceEnabled is true when the tests run under the race detector, whose
// test process is large: a child process's peak memory (rusage's maxrss)
// counts its parent's from before the child's exec.
const raceEnabled = true
