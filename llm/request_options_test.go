package llm_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestRequestOptionsParams: each option set is a parameter by its
// setup.loop.request name, as compact JSON; the zero value pins none.
func TestRequestOptionsParams(t *testing.T) {
	if p := (llm.RequestOptions{}).Params(); p != nil {
		t.Errorf("the zero options pin %v, want nil", p)
	}
	temp, topP, seed, par := 0.5, 1.0, int64(-3), false
	o := llm.RequestOptions{Temperature: &temp, TopP: &topP, MaxTokens: 256, Seed: &seed, Stop: []string{"END"}, ToolChoice: "read_note", ParallelToolCalls: &par}
	got := map[string]string{}
	for k, v := range o.Params() {
		got[k] = string(v)
	}
	want := map[string]string{"temperature": "0.5", "top_p": "1", "max_tokens": "256", "seed": "-3", "stop": `["END"]`, "tool_choice": `"read_note"`, "parallel_tool_calls": "false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Params() = %v, want %v", got, want)
	}
}

// TestRequestOptionsOf: the options a context carries are put over the
// model's own, one by one; a context carrying none leaves them.
func TestRequestOptionsOf(t *testing.T) {
	t1, t2, seed := 0.1, 0.9, int64(5)
	base := llm.RequestOptions{Temperature: &t1, MaxTokens: 100, Seed: &seed, ToolChoice: "auto"}
	if got := llm.RequestOptionsOf(context.Background(), base); !reflect.DeepEqual(got, base) {
		t.Errorf("no options carried: %+v, want %+v", got, base)
	}
	ctx := llm.WithRequestOptions(context.Background(), llm.RequestOptions{Temperature: &t2, Stop: []string{}})
	got := llm.RequestOptionsOf(ctx, base)
	want := llm.RequestOptions{Temperature: &t2, MaxTokens: 100, Seed: &seed, Stop: []string{}, ToolChoice: "auto"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
}
