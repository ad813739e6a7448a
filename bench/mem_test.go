package bench

import "runtime"

// readMem returns the process's cumulative allocations and allocated bytes.
func readMem() (allocs, bytes uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs, m.TotalAlloc
}
