package harness

import (
	"fmt"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
)

// benchStateOutcome is an outcome of the shapes the reference workload
// (bench, Phase/golden) lacks: ten user turns, model retries, and a state of
// 40 records with nested maps, arrays, numbers and multi-line text.
func benchStateOutcome() *Outcome {
	o := pinOutcomes()["turns"]
	base := o.Turns[0]
	o.Turns = nil
	for i := range 10 {
		t := base
		t.Index = i + 1
		t.User = &llm.Message{Content: fmt.Sprintf("Step %d: please go on.", i+1)}
		o.Turns = append(o.Turns, t)
	}
	records := []any{}
	for i := range 40 {
		records = append(records, map[string]any{
			"id": float64(i), "total": float64(i) * 1.25, "paid": i%2 == 0, "note": nil,
			"lines": []any{"widget", fmt.Sprintf("gadget #%d", i)},
			"text":  "first line\nsecond line\n",
		})
	}
	o.State = map[string]any{"shop": map[string]any{"orders": records, "open": true}}
	return o
}

// BenchmarkGoldenWithState encodes benchStateOutcome's golden.
func BenchmarkGoldenWithState(b *testing.B) {
	o := benchStateOutcome()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Golden(redact.Default()); err != nil {
			b.Fatal(err)
		}
	}
}
