package wire_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// marks renders a request's cache breakpoints as "tools[i] <name>" and
// "messages[k] <role>" (a mark out of range as itself), nil for none known.
func marks(r *llm.Request) []string {
	if r.Cache == nil {
		return nil
	}
	out := []string{}
	for _, m := range r.Cache {
		switch {
		case m.Tools && m.Index >= 0 && m.Index < len(r.Tools):
			out = append(out, fmt.Sprintf("tools[%d] %s", m.Index, r.Tools[m.Index].Name))
		case !m.Tools && m.Index >= 0 && m.Index < len(r.Messages):
			out = append(out, fmt.Sprintf("messages[%d] %s", m.Index, r.Messages[m.Index].Role))
		default:
			out = append(out, fmt.Sprintf("%+v out of range", m))
		}
	}
	return out
}

// A Messages request's cache_control breakpoints, as the prompt caching
// guide places them (on a tool, a system block, any content block of a
// message; or once at the top level, for the last block), are kept at
// the element of the decoded request they end: a block that becomes no
// message of its own (text joined into a user message, an image) marks
// the message that holds it, or the one before.
func TestAnthropicCacheMarks(t *testing.T) {
	tools := `"tools": [{"name": "read_file", "input_schema": {"type": "object"}},
	  {"name": "write_file", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]`
	system := `"system": [{"type": "text", "text": "House rules."}, {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]`
	turns := `{"role": "user", "content": [{"type": "text", "text": "Read a.txt.", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "Then b.txt."}]},
	  {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}]},
	  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "alpha", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "Go on."}]}`
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"each place", `{"model": "claude-test", "max_tokens": 64, ` + tools + `, ` + system + `, "messages": [` + turns + `]}`,
			[]string{"tools[1] write_file", "messages[1] system", "messages[2] user", "messages[4] tool"}},
		{"none", `{"model": "claude-test", "max_tokens": 64, "system": "House rules.", "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{}},
		{"top level", `{"model": "claude-test", "max_tokens": 64, "cache_control": {"type": "ephemeral"}, "system": "House rules.", "messages": [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye."}]}`,
			[]string{"messages[3] user"}},
		// encoding/json matches keys case-insensitively and reads escapes:
		// a tool whose key is spelled so is marked as the guide's spelling is.
		{"case-variant key", `{"model": "claude-test", "max_tokens": 64, "tools": [{"name": "read_file", "input_schema": {"type": "object"}, "Cache_Control": {"type": "ephemeral"}}], "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{"tools[0] read_file"}},
		{"escaped key", `{"model": "claude-test", "max_tokens": 64, "tools": [{"name": "read_file", "input_schema": {"type": "object"}, "cache\u005fcontrol": {"type": "ephemeral"}}], "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{"tools[0] read_file"}},
		// A tool result's content blocks may carry the breakpoint: it marks the tool message.
		{"inside a tool result", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Read a.txt."},
		  {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}]},
		  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": [{"type": "text", "text": "alpha", "cache_control": {"type": "ephemeral"}}]}]}]}`,
			[]string{"messages[2] tool"}},
		{"two system blocks", `{"model": "claude-test", "max_tokens": 64, "system": [{"type": "text", "text": "House rules.", "cache_control": {"type": "ephemeral"}},
		  {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}], "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{"messages[0] system", "messages[1] system"}},
		// The API's system blocks are text; another kind makes no message, and
		// marked before any text it marks nothing (there is nothing before it).
		{"system block not text, first", `{"model": "claude-test", "max_tokens": 64, "system": [{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "cache_control": {"type": "ephemeral"}}],
		  "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{}},
		{"the first message", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi.", "cache_control": {"type": "ephemeral"}}]}]}`,
			[]string{"messages[0] user"}},
		// A marked block that makes no system message marks the one before,
		// once even when that one is marked itself.
		{"system text and a block after it, both marked", `{"model": "claude-test", "max_tokens": 64, "system": [{"type": "text", "text": "House rules.", "cache_control": {"type": "ephemeral"}},
		  {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "cache_control": {"type": "ephemeral"}}], "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{"messages[0] system"}},
		{"top level, one message", `{"model": "claude-test", "max_tokens": 64, "cache_control": {"type": "ephemeral"}, "messages": [{"role": "user", "content": "Hi."}]}`,
			[]string{"messages[0] user"}},
		{"two tool results", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Read a.txt and b.txt."},
		  {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}, {"type": "tool_use", "id": "tu_2", "name": "read_file", "input": {"path": "b.txt"}}]},
		  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "alpha", "cache_control": {"type": "ephemeral"}}, {"type": "tool_result", "tool_use_id": "tu_2", "content": "beta", "cache_control": {"type": "ephemeral"}}]}]}`,
			[]string{"messages[2] tool", "messages[3] tool"}},
		// Two marked blocks of one assistant message mark it once.
		{"assistant, two marked blocks", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Read a.txt."},
		  {"role": "assistant", "content": [{"type": "text", "text": "Reading.", "cache_control": {"type": "ephemeral"}}, {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}, "cache_control": {"type": "ephemeral"}}]}]}`,
			[]string{"messages[1] assistant"}},
		// An image after text joins the user message the text makes: it marks that message.
		{"image after text", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Look."}, {"role": "assistant", "content": "At what?"},
		  {"role": "user", "content": [{"type": "text", "text": "This:"}, {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "cache_control": {"type": "ephemeral"}}]}]}`,
			[]string{"messages[2] user"}},
		{"image alone", `{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Look."}, {"role": "assistant", "content": "At what?"},
		  {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "cache_control": {"type": "ephemeral"}}]}]}`,
			[]string{"messages[1] assistant"}},
	} {
		c, err := wire.Decode("/v1/messages", []byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := marks(&c.Request); !slices.Equal(got, tt.want) || got == nil {
			t.Errorf("%s: marks %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A Decoder reusing the previous request's messages keeps their marks, and
// a mark that moves to the new last message moves with it.
func TestAnthropicCacheMarksReused(t *testing.T) {
	msg := func(role, text string, mark bool) string {
		cc := ""
		if mark {
			cc = `, "cache_control": {"type": "ephemeral"}`
		}
		return `{"role": "` + role + `", "content": [{"type": "text", "text": "` + text + `"` + cc + `}]}`
	}
	head := `{"model": "claude-test", "max_tokens": 64, "system": [{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral"}}], "messages": [`
	bodies := []string{
		head + msg("user", "one", true) + `]}`,
		head + msg("user", "one", false) + `, ` + msg("assistant", "two", false) + `, ` + msg("user", "three", true) + `]}`,
		head + msg("user", "one", false) + `, ` + msg("assistant", "two", false) + `, ` + msg("user", "three", false) + `, ` + msg("assistant", "four", false) + `, ` + msg("user", "five", true) + `]}`,
	}
	want := [][]string{
		{"messages[0] system", "messages[1] user"},
		{"messages[0] system", "messages[3] user"},
		{"messages[0] system", "messages[5] user"},
	}
	var d wire.Decoder
	for i, b := range bodies {
		c, err := d.Decode("/v1/messages", []byte(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := marks(&c.Request); !slices.Equal(got, want[i]) {
			t.Errorf("request %d: marks %q, want %q", i, got, want[i])
		}
	}
}

// Converse's cachePoint blocks follow what they cache: in the tools, the
// system blocks or a message's content. A request without one marks none.
func TestBedrockCacheMarks(t *testing.T) {
	body := `{"system": [{"text": "House rules."}, {"cachePoint": {"type": "default"}}],
	  "toolConfig": {"tools": [{"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object"}}}}, {"cachePoint": {"type": "default"}}]},
	  "messages": [{"role": "user", "content": [{"text": "Read a.txt."}, {"cachePoint": {"type": "default"}}]},
	    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}}]},
	    {"role": "user", "content": [{"toolResult": {"toolUseId": "tu_1", "content": [{"text": "alpha"}]}}, {"cachePoint": {"type": "default"}}, {"text": "Go on."}]}]}`
	c, err := wire.DecodeBedrock("/model/anthropic.claude-test/converse", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tools[0] read_file", "messages[0] system", "messages[1] user", "messages[3] tool"}
	if got := marks(&c.Request); !slices.Equal(got, want) {
		t.Errorf("marks %q, want %q", got, want)
	}
	c, err = wire.DecodeBedrock("/model/anthropic.claude-test/converse", []byte(`{"messages": [{"role": "user", "content": [{"text": "Hi."}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := marks(&c.Request); got == nil || len(got) != 0 {
		t.Errorf("no cachePoint: marks %q, want none (known)", got)
	}

	// A cache point marks the element it follows, in each place; one
	// before any element marks nothing.
	const cachePoint = `{"cachePoint": {"type": "default"}}`
	const hi = `"messages": [{"role": "user", "content": [{"text": "Hi."}]}]`
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"after the second system text", `{"system": [{"text": "House rules."}, {"text": "Be brief."}, ` + cachePoint + `], ` + hi + `}`,
			[]string{"messages[1] system"}},
		{"before any system text", `{"system": [` + cachePoint + `, {"text": "House rules."}], ` + hi + `}`,
			[]string{}},
		{"before any tool", `{"toolConfig": {"tools": [` + cachePoint + `, {"toolSpec": {"name": "read_file", "inputSchema": {"json": {"type": "object"}}}}]}, ` + hi + `}`,
			[]string{}},
		{"after each of two tool results", `{"messages": [{"role": "user", "content": [{"text": "Read a.txt and b.txt."}]},
		  {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}}, {"toolUse": {"toolUseId": "tu_2", "name": "read_file", "input": {"path": "b.txt"}}}]},
		  {"role": "user", "content": [{"toolResult": {"toolUseId": "tu_1", "content": [{"text": "alpha"}]}}, ` + cachePoint + `, {"toolResult": {"toolUseId": "tu_2", "content": [{"text": "beta"}]}}, ` + cachePoint + `]}]}`,
			[]string{"messages[2] tool", "messages[3] tool"}},
	} {
		c, err := wire.DecodeBedrock("/model/anthropic.claude-test/converse", []byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := marks(&c.Request); !slices.Equal(got, tt.want) || got == nil {
			t.Errorf("%s: marks %q, want %q", tt.name, got, tt.want)
		}
	}
}
