package tools

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

type benchArgs struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
	Force bool   `json:"force"`
}

// BenchmarkRegistryExecute measures one call through the whole dispatch path:
// lookup, strict parse, coercion, schema validation, typed decoding and the tool.
func BenchmarkRegistryExecute(b *testing.B) {
	r := NewRegistry(nil)
	r.MustRegister(MustNew(Spec{Name: "touch"}, func(ctx context.Context, in benchArgs) (*Result, error) {
		return Success("ok"), nil
	}))
	ctx := context.Background()
	for _, bc := range []struct{ name, args string }{
		{"valid", `{"path": "notes.txt", "count": 3, "force": true}`},
		{"coerced", `{"path": "notes.txt", "count": "3", "force": "true"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := llm.ToolCall{ID: "c1", Name: "touch", Arguments: bc.args}
			b.ReportAllocs()
			for b.Loop() {
				if ex := r.Execute(ctx, call); ex.Result.Failed() {
					b.Fatal(ex.Result.Content)
				}
			}
		})
	}
}
