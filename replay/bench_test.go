package replay

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// benchTape builds a tape of n entries mixing text answers and tool calls,
// each recording its request, and the requests that match it.
func benchTape(n int) (*tape.Tape, []*llm.Request) {
	offered := []llm.ToolDefinition{{Name: "read_file"}, {Name: "write_file"}, {Name: "grep"}}
	tp := &tape.Tape{Name: "bench"}
	var reqs []*llm.Request
	msgs := []llm.Message{llm.SystemMessage("You are careful."), llm.UserMessage("Fix the build.")}
	for i := range n {
		req := &llm.Request{Messages: append([]llm.Message(nil), msgs...), Tools: offered}
		reqs = append(reqs, req)
		var resp *llm.Response
		if i%3 == 2 {
			resp = &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("Step %d done.\nThe file now reads:\n  line %d\n", i, i)), FinishReason: llm.FinishStop}
		} else {
			call := llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "write_file", Arguments: fmt.Sprintf(`{"path": "f%d.go", "content": "package main\n",}`, i)}
			resp = &llm.Response{Message: llm.AssistantMessage("Writing.", call), FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 100 + i, OutputTokens: 20}}
		}
		tp.Entries = append(tp.Entries, tape.Entry{Response: resp, Request: tape.Summarize(req)})
		msgs = append(msgs, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			msgs = append(msgs, llm.ToolMessage(c.ID, c.Name, "wrote 13 bytes"))
		}
		if len(resp.Message.ToolCalls) == 0 {
			msgs = append(msgs, llm.UserMessage(fmt.Sprintf("Continue with step %d.", i+1)))
		}
	}
	return tp, reqs
}

func BenchmarkLoadAndReplay(b *testing.B) {
	const n = 100
	tp, reqs := benchTape(n)
	var buf bytes.Buffer
	if err := tape.Encode(&buf, tp); err != nil {
		b.Fatal(err)
	}
	benchDecodeAndReplay(b, buf.Bytes(), reqs)
}

// BenchmarkLoadAndReplayPinned is BenchmarkLoadAndReplay with the tape a
// Recorder writes: the offered block and each entry's new messages, so
// every request's prompt, tools and added messages are compared.
func BenchmarkLoadAndReplayPinned(b *testing.B) {
	const n = 100
	legacy, reqs := benchTape(n)
	i := 0
	rec := NewRecorder(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		i++
		return legacy.Entries[i-1].Response, nil
	}), &RecorderOptions{Redactor: redact.New(nil)})
	ctx := context.Background()
	for _, req := range reqs {
		if _, err := rec.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := tape.Encode(&buf, rec.Tape()); err != nil {
		b.Fatal(err)
	}
	benchDecodeAndReplay(b, buf.Bytes(), reqs)
}

// benchDecodeAndReplay measures decoding the encoded tape data and
// replaying reqs against it, per run and per entry.
func benchDecodeAndReplay(b *testing.B, data []byte, reqs []*llm.Request) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		loaded, err := tape.Decode(bytes.NewReader(data), "bench.yaml")
		if err != nil {
			b.Fatal(err)
		}
		m := NewModel(loaded, nil)
		for _, req := range reqs {
			if _, err := m.Generate(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(reqs)), "ns/entry")
}
