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

// TestPacerLowersGOGCNearItsTarget: holding a heap over the pacer's target,
// the collection after it sets GOGC to MinPercent; releasing the input it
// was told of and dropping the heap brings GOGC back to 100; Stop restores
// the GOGC from before. (The test changes the process's GOGC, so it does
// not run in parallel.)
func TestPacerLowersGOGCNearItsTarget(t *testing.T) {
	before := debug.SetGCPercent(MaxPercent)
	defer debug.SetGCPercent(before)
	const mb = 1 << 20
	retuned := make(chan int, 1)
	p := start(2, 4*mb, retuned)
	// The hook runs on the finalizer goroutine after a collection, when
	// the test cannot tell which collection it follows; the test retunes
	// as it does, after a collection of its own.
	gc := func() int {
		t.Helper()
		runtime.GC()
		percent, _ := p.collected()
		return percent
	}
	// The hook is called: some collection's GOGC arrives.
	runtime.GC()
	<-retuned
	release := p.Hold(3 * mb) // the target: the heap now + 6 MB
	held := make([][]byte, 0, 12)
	for range 12 {
		b := make([]byte, mb)
		b[0] = 1
		held = append(held, b)
	}
	if got := gc(); got != MinPercent {
		t.Errorf("12 MB live against a target of 6 MB over the start: GOGC %d, want %d", got, MinPercent)
	}
	if set := debug.SetGCPercent(MinPercent); set != MinPercent {
		t.Errorf("the process's GOGC is %d, want the pacer's %d", set, MinPercent)
	}
	runtime.KeepAlive(held)
	held = nil
	release()
	if got := gc(); got != MaxPercent {
		t.Errorf("the heap back to where it started: GOGC %d, want %d", got, MaxPercent)
	}
	debug.SetGCPercent(70)
	p2 := start(2, 4*mb, nil)
	p2.Stop()
	if got := debug.SetGCPercent(MaxPercent); got != 70 {
		t.Errorf("after Stop, GOGC is %d, want the 70 from before Start", got)
	}
	p.Stop()
}
