// Package benchrow measures and prints the rows of the bench tables (package
// bench and module bench/vcr): for each benchmark, wall and CPU time per
// model turn and allocations per run, the median of its -count runs, and the
// ratios the bridge's speed targets (issues 24 and 36) are stated in. CPU time is
// the process's user plus system time (getrusage), steadier than wall time
// on a loaded machine; it is zero where the platform does not report it,
// and the ratios then use wall time.
package benchrow
