package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestPercent: GOGC is the room between the live heap and the target, as
// a percent of the live heap, from MinPercent to MaxPercent.
func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, target uint64
		want         int
	}{
		{0, 10 * mb, MaxPercent},       // nothing collected yet
		{4 * mb, 20 * mb, MaxPercent},  // room for far more than doubling
		{10 * mb, 20 * mb, MaxPercent}, // exactly doubling
		{10 * mb, 19 * mb, 90},         // a little less
		{13 * mb, 21 * mb, 61},         // the big tape near its end: 8/13
		{16 * mb, 20 * mb, MinPercent}, // 25% exactly
		{16 * mb, 19 * mb, MinPercent}, // less room than MinPercent allows
		{20 * mb, 20 * mb, MinPercent}, // at the target
		{30 * mb, 20 * mb, MinPercent}, // past it: collect often, never stall
	} {
		if got := Percent(c.live, c.target); got != c.want {
			t.Errorf("Percent(%d MB, %d MB) = %d, want %d", c.live/mb, c.target/mb, got, c.want)
		}
	}
}

// TestStartLeavesTheUsersPacing: with GOGC or GOMEMLIMIT set, there is no
// pacer, and a nil one does nothing.
func TestStartLeavesTheUsersPacing(t *testing.T) {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		p := Start(func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		})
		if p != nil {
			t.Errorf("with %s set, Start gave a pacer", name)
		}
		p.Hold(1 << 30)()
		p.Stop()
	}
}

// TestPacerLowersGOGCNearItsTarget: a heap held over the pacer's target
// gets GOGC MinPercent at the next collection; input it is told of raises
// the target at once (GOGC back to 100 for the same heap), and releasing
// the input lowers it again; Stop restores the GOGC from before and ends
// the pacing. (The test changes the process's GOGC, so
// it does not run in parallel.)
func TestPacerLowersGOGCNearItsTarget(t *testing.T) {
	before := debug.SetGCPercent(MaxPercent)
	defer debug.SetGCPercent(before)
	const mb = 1 << 20
	retuned := make(chan int, 1)
	p := start(4, 4*mb, retuned) // the target: 4 MB, or 4 times the input
	defer p.Stop()
	// The hook runs on the finalizer goroutine after a collection, when
	// the test cannot tell which collection it follows; the test retunes
	// as it does, after a collection of its own.
	gc := func() int {
		t.Helper()
		runtime.GC()
		percent, _ := p.collected()
		return percent
	}
	current := func() int { // the process's GOGC
		pc := debug.SetGCPercent(MaxPercent)
		debug.SetGCPercent(pc)
		return pc
	}
	// The hook is called, after each collection: some collection's GOGC
	// arrives, and another's after it.
	runtime.GC()
	<-retuned
	runtime.GC()
	<-retuned
	held := make([][]byte, 0, 8)
	for range 8 {
		b := make([]byte, mb)
		b[0] = 1
		held = append(held, b)
	}
	if got := gc(); got != MinPercent || current() != MinPercent {
		t.Errorf("8 MB live against a target of 4 MB: GOGC %d (the process's %d), want %d", got, current(), MinPercent)
	}
	release := p.Hold(8 * mb) // the target: 32 MB
	if got := current(); got != MaxPercent {
		t.Errorf("8 MB of input held: the process's GOGC %d, want %d at once", got, MaxPercent)
	}
	if got := gc(); got != MaxPercent {
		t.Errorf("8 MB live against a target of 32 MB: GOGC %d, want %d", got, MaxPercent)
	}
	release()
	if got := current(); got != MinPercent {
		t.Errorf("the input released: the process's GOGC %d, want %d at once", got, MinPercent)
	}
	release() // a second call releases nothing more
	if got := gc(); got != MinPercent {
		t.Errorf("the input released: GOGC %d, want %d", got, MinPercent)
	}
	runtime.KeepAlive(held)
	debug.SetGCPercent(70)
	p2 := start(2, 4*mb, nil)
	p2.Stop()
	p2.Hold(64 * mb)() // nothing after Stop
	if got := debug.SetGCPercent(MaxPercent); got != 70 {
		t.Errorf("after Stop, GOGC is %d, want the 70 from before Start", got)
	}
	if _, on := p2.collected(); on {
		t.Error("a stopped pacer still retunes after a collection")
	}
}

// TestStartPacesWithThePackagesFigures: with neither GOGC nor GOMEMLIMIT
// set, Start paces at PerByte and Floor, and knows the heap from its start:
// input held before any collection is weighed against the heap live then
// (8 MB over a 4 MB target: GOGC MinPercent at once).
func TestStartPacesWithThePackagesFigures(t *testing.T) {
	before := debug.SetGCPercent(MaxPercent)
	defer debug.SetGCPercent(before)
	p := Start(func(string) string { return "" })
	if p == nil || p.perByte != PerByte || p.floor != Floor {
		t.Fatalf("Start gave %+v, want a pacer of %d a byte over a floor of %d", p, PerByte, Floor)
	}
	p.Stop()

	const mb = 1 << 20
	held := make([][]byte, 0, 8)
	for range 8 {
		b := make([]byte, mb)
		b[0] = 1
		held = append(held, b)
	}
	runtime.GC()
	p = start(1, 4*mb, nil)
	defer p.Stop()
	p.Hold(mb)
	pc := debug.SetGCPercent(MaxPercent)
	debug.SetGCPercent(pc)
	if pc != MinPercent {
		t.Errorf("input held before any collection, with 8 MB live against a target of 4 MB: GOGC %d, want %d", pc, MinPercent)
	}
	runtime.KeepAlive(held)
}
