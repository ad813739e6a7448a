package harness

import (
	"context"
	"runtime"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestGoldenOfManyCallsIsBuiltInPlace checks that writing the golden of a
// run of many calls allocates little more than the golden itself: its
// buffer is sized for the calls up front, instead of doubling up to twice
// the golden and leaving as much again as garbage (what made the golden
// phase the peak of replay --update on issue 21's tape).
func TestGoldenOfManyCallsIsBuiltInPlace(t *testing.T) {
	s, err := scenario.Parse(manyResponses(5), "size.yaml", "size")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := o.writeGolden()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("golden %d bytes, allocated %d", len(b), allocated)
	if limit := uint64(len(b)) * 3 / 2; allocated > limit {
		t.Errorf("writing a golden of %d bytes allocated %d bytes, more than %d", len(b), allocated, limit)
	}
}
