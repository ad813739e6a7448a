// Package gcpace keeps a command's heap near a target that grows with the
// input it holds, by setting the collector's GOGC after each collection.
//
// Go's collector lets the heap grow to twice what was live at the last
// collection (GOGC 100) before it collects again. A replay keeps most of
// what it makes to the end (each call's record, result and message), so
// its peak is about twice its records: the 20,000-call tape keeps ~13 MB
// live and peaked at 27-36 MB of heap by when its last collection fell.
// A Pacer, after each collection, lowers GOGC just enough that the next
// goal stays under the target (PerByte times the bytes of input held, or
// Floor when that is more; the heap the process held before the input is
// within the floor):
// the collector runs more often only while the heap is near the target,
// and never at less than MinPercent, so a run whose live heap passes the
// target costs more collections (at most 100/MinPercent times as many),
// never a stall, and still finishes. It is the technique of TiDB's and
// ByteDance's "GC tuners", here with a target that follows the input
// rather than a fixed one.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	// PerByte is the heap a byte of input may hold. Issue 39's bound is 20 times the file in peak memory,
	// which also counts what is not the heap's objects: freed pages not yet
	// returned, the collector's tables, stacks (~4 MB more on the
	// 20,000-call tape).
	PerByte = 10
	// Floor is the least heap the target allows, so that small inputs
	// run at GOGC 100 as before (evalrun holds ~3 MB before any scenario).
	Floor = 12 << 20
	// MinPercent is the lowest GOGC a Pacer sets.
	MinPercent = 25
	// MaxPercent is the highest, Go's default.
	MaxPercent = 100
)

// Pacer paces the collector for the input it is told of (Hold). The zero
// Pacer and a nil one do nothing.
type Pacer struct {
	perByte uint64
	floor   uint64
	// retuned, when set, is sent the GOGC after each collection, when it
	// has room (tests).
	retuned chan int

	mu      sync.Mutex
	on      bool
	inputs  int64  // bytes of input held
	percent int    // GOGC set last
	prev    int    // GOGC before the pacer started
	live    uint64 // live heap after the last collection
}

// Start makes a Pacer that sets GOGC after each collection until Stop. It
// returns nil, which does nothing, when the environment sets GOGC or
// GOMEMLIMIT: the user's pacing wins.
func Start(getenv func(string) string) *Pacer {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return start(PerByte, Floor, nil)
}

func start(perByte, floor uint64, retuned chan int) *Pacer {
	p := &Pacer{perByte: perByte, floor: floor, retuned: retuned, on: true, percent: MaxPercent}
	p.live = liveHeap()
	p.prev = debug.SetGCPercent(MaxPercent)
	p.arm()
	return p
}

// Hold adds n bytes of input to what the target allows for, until the
// returned func is called.
func (p *Pacer) Hold(n int64) (release func()) {
	if p == nil || n <= 0 {
		return func() {}
	}
	p.add(n)
	var once sync.Once
	return func() { once.Do(func() { p.add(-n) }) }
}

// add counts n more bytes of input held (fewer when negative) and retunes.
func (p *Pacer) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inputs += n
	p.retune()
}

// Stop restores the GOGC from before Start; collections after it set
// nothing.
func (p *Pacer) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		p.on = false
		debug.SetGCPercent(p.prev)
	}
}

// arm sets a finalizer on a fresh object, which runs after the collection
// that finds it unreachable: the pacer's hook into each collection. Each
// run re-arms until Stop.
func (p *Pacer) arm() {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if percent, on := p.collected(); on {
			p.arm()
			if p.retuned != nil {
				select {
				case p.retuned <- percent:
				default:
				}
			}
		}
	})
}

// collected retunes GOGC for the heap the last collection left live; it
// reports the GOGC and whether the pacer is still on.
func (p *Pacer) collected() (percent int, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on {
		return 0, false
	}
	p.live = liveHeap()
	p.retune()
	return p.percent, true
}

// retune sets GOGC for the last live heap and the target. p.mu is held.
func (p *Pacer) retune() {
	if !p.on {
		return
	}
	target := max(p.floor, p.perByte*uint64(p.inputs))
	if pc := Percent(p.live, target); pc != p.percent {
		p.percent = pc
		debug.SetGCPercent(pc)
	}
}

// Percent is the GOGC under which a heap of live bytes after a collection
// next collects at target: the room left over the live heap, as a percent
// of it, between MinPercent and MaxPercent.
func Percent(live, target uint64) int {
	if live == 0 {
		return MaxPercent
	}
	if target <= live {
		return MinPercent
	}
	return int(min(MaxPercent, max(MinPercent, (target-live)*100/live)))
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
var liveMu sync.Mutex

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	liveMu.Lock()
	defer liveMu.Unlock()
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return liveSample[0].Value.Uint64()
}
