package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestVirtualSleepAdvancesWithoutWaiting(t *testing.T) {
	v := NewVirtual(time.Time{})
	if err := v.Sleep(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := v.Now().Sub(Epoch); got != time.Hour {
		t.Errorf("advanced %v, want 1h", got)
	}
}

func TestForkedTimelinesOverlap(t *testing.T) {
	v := NewVirtual(time.Time{})
	var wg sync.WaitGroup
	ends := make([]time.Time, 5)
	for i := range ends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := v.Fork(time.Time{})
			_ = c.Sleep(context.Background(), time.Duration(i+1)*time.Second)
			ends[i] = c.Now()
		}()
	}
	wg.Wait()
	for i, e := range ends {
		if got, want := e.Sub(Epoch), time.Duration(i+1)*time.Second; got != want {
			t.Errorf("timeline %d ended at +%v, want +%v", i, got, want)
		}
	}
	if !v.Now().Equal(Epoch) {
		t.Errorf("parent moved to %v", v.Now())
	}
}

func TestForkDeadline(t *testing.T) {
	v := NewVirtual(time.Time{})
	c := v.Fork(Epoch.Add(2 * time.Second)).(*Virtual)
	if err := c.Sleep(context.Background(), time.Second); err != nil || c.Expired() {
		t.Fatalf("first sleep: %v expired=%v", err, c.Expired())
	}
	err := c.Sleep(context.Background(), 5*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || !c.Expired() {
		t.Fatalf("sleep past deadline: %v expired=%v", err, c.Expired())
	}
	if got := c.Now().Sub(Epoch); got != 2*time.Second {
		t.Errorf("stopped at +%v, want the deadline +2s", got)
	}
}

func TestSleepHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v := NewVirtual(time.Time{})
	if err := v.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) || !v.Now().Equal(Epoch) {
		t.Errorf("err %v, now %v", err, v.Now())
	}
	if err := (Real{}).Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("real sleep: %v", err)
	}
}

func TestFromContext(t *testing.T) {
	if _, ok := FromContext(context.Background()).(Real); !ok {
		t.Error("default clock is not Real")
	}
	v := NewVirtual(time.Time{})
	if FromContext(NewContext(context.Background(), v)) != Clock(v) {
		t.Error("clock not carried")
	}
}

// TestVirtualAdvance checks Advance moves the clock by exactly d, and
// AdvanceTo only forwards: to a later time, never back.
func TestVirtualAdvance(t *testing.T) {
	v := NewVirtual(time.Time{})
	v.Advance(1500 * time.Millisecond)
	if got := v.Now().Sub(Epoch); got != 1500*time.Millisecond {
		t.Fatalf("after Advance(1.5s): +%v", got)
	}
	v.Advance(time.Second)
	if got := v.Now().Sub(Epoch); got != 2500*time.Millisecond {
		t.Fatalf("after a second Advance(1s): +%v, want +2.5s", got)
	}
	v.AdvanceTo(Epoch.Add(10 * time.Second))
	if got := v.Now().Sub(Epoch); got != 10*time.Second {
		t.Fatalf("after AdvanceTo(+10s): +%v", got)
	}
	v.AdvanceTo(Epoch.Add(3 * time.Second))
	if got := v.Now().Sub(Epoch); got != 10*time.Second {
		t.Errorf("AdvanceTo an earlier time moved the clock to +%v, want it left at +10s", got)
	}
	v.AdvanceTo(Epoch.Add(10 * time.Second))
	if got := v.Now().Sub(Epoch); got != 10*time.Second {
		t.Errorf("AdvanceTo now moved the clock to +%v", got)
	}
}
