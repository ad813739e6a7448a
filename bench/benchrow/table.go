package benchrow

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// Usage is what the process has used so far: allocations, allocated bytes
// and CPU time (zero where unknown).
type Usage struct {
	Allocs, Bytes uint64
	CPU           time.Duration
}

// Read returns the process's usage so far.
func Read() Usage {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Usage{Allocs: m.Mallocs, Bytes: m.TotalAlloc, CPU: cpuTime()}
}

// Row is one benchmark's figures: the median of its runs.
type Row struct {
	// Name names the row in the table.
	Name string
	// Order places the row in the table (ascending).
	Order int
	// Wall and CPU are µs per model turn; CPU is zero where unknown.
	Wall, CPU float64
	// Allocs and Bytes are per run of the workload.
	Allocs, Bytes float64
}

// PerTurn is the row's µs per turn the ratios use: CPU time when known,
// else wall time.
func (r Row) PerTurn() float64 {
	if r.CPU > 0 {
		return r.CPU
	}
	return r.Wall
}

// Table collects rows from benchmarks. The zero Table is empty and ready;
// its methods are safe for concurrent use.
type Table struct {
	mu   sync.Mutex
	runs map[string][]Row
}

// Record keeps the figures of b's final run (the one go test reports) under
// name, from before (read just before b.ResetTimer) to now, with turns
// model turns per run, and reports µs/turn and CPU-µs/turn as metrics.
func (t *Table) Record(b *testing.B, order int, name string, turns int, before Usage) {
	b.Helper()
	now := Read()
	n := float64(b.N)
	r := Row{Name: name, Order: order,
		Wall:   float64(b.Elapsed().Nanoseconds()) / 1e3 / n / float64(turns),
		CPU:    float64((now.CPU - before.CPU).Nanoseconds()) / 1e3 / n / float64(turns),
		Allocs: float64(now.Allocs-before.Allocs) / n,
		Bytes:  float64(now.Bytes-before.Bytes) / n}
	b.ReportMetric(r.Wall, "µs/turn")
	if r.CPU > 0 {
		b.ReportMetric(r.CPU, "CPU-µs/turn")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs == nil {
		t.runs = map[string][]Row{}
	}
	t.runs[name] = append(t.runs[name], r)
}

// Medians returns each row's median figures (each column's median over the
// row's runs) by name, and the rows in order.
func (t *Table) Medians() (map[string]Row, []Row) {
	t.mu.Lock()
	defer t.mu.Unlock()
	byName := map[string]Row{}
	var all []Row
	for name, rs := range t.runs {
		m := rs[0]
		m.Wall = median(rs, func(r Row) float64 { return r.Wall })
		m.CPU = median(rs, func(r Row) float64 { return r.CPU })
		m.Allocs = median(rs, func(r Row) float64 { return r.Allocs })
		m.Bytes = median(rs, func(r Row) float64 { return r.Bytes })
		byName[name] = m
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b Row) int { return a.Order - b.Order })
	return byName, all
}

func median(rs []Row, f func(Row) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// Print writes the table (nothing when no benchmark ran).
func (t *Table) Print(w io.Writer) {
	_, all := t.Medians()
	if len(all) == 0 {
		return
	}
	t.mu.Lock()
	runs := len(t.runs[all[0].Name])
	t.mu.Unlock()
	fmt.Fprintf(w, "\nmedian of %d run(s) each (-count)\n", runs)
	fmt.Fprintf(w, "\n| row | µs/turn | CPU µs/turn | allocs/run | KB/run |\n|---|---|---|---|---|\n")
	for _, r := range all {
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.0f | %.0f |\n", r.Name, r.Wall, r.CPU, r.Allocs, r.Bytes/1024)
	}
	fmt.Fprintln(w)
}
