package replay

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// paramCases are, per wire format, a request body and the same body with
// one behaviour-changing parameter changed, added or removed: each must be
// recorded, replay unchanged, fail changed naming the parameter, and be
// accepted by a rebase.
var paramCases = []struct {
	name, path, base, changed, param string
}{
	{"openai model", "/v1/chat/completions", openAIBody(`"temperature":0.2`), openAIModelBody("gpt-3.5-turbo", `"temperature":0.2`), "model"},
	{"openai tool_choice", "/v1/chat/completions", openAIBody(`"tool_choice":"auto"`), openAIBody(`"tool_choice":"none"`), "tool_choice"},
	{"openai parallel_tool_calls", "/v1/chat/completions", openAIBody(`"parallel_tool_calls":true`), openAIBody(`"parallel_tool_calls":false`), "parallel_tool_calls"},
	{"openai temperature", "/v1/chat/completions", openAIBody(`"temperature":0.2`), openAIBody(`"temperature":2`), "temperature"},
	{"openai top_p", "/v1/chat/completions", openAIBody(`"top_p":1`), openAIBody(`"top_p":0.1`), "top_p"},
	{"openai max_tokens", "/v1/chat/completions", openAIBody(`"max_tokens":4096`), openAIBody(`"max_tokens":1`), "max_tokens"},
	{"openai max_completion_tokens added", "/v1/chat/completions", openAIBody(`"temperature":0.2`), openAIBody(`"temperature":0.2,"max_completion_tokens":10`), "max_completion_tokens"},
	{"openai stop", "/v1/chat/completions", openAIBody(`"stop":["END"]`), openAIBody(`"stop":["END","STOP"]`), "stop"},
	{"openai response_format", "/v1/chat/completions", openAIBody(`"response_format":{"type":"text"}`), openAIBody(`"response_format":{"type":"json_object"}`), "response_format"},
	{"openai reasoning_effort", "/v1/chat/completions", openAIBody(`"reasoning_effort":"low"`), openAIBody(`"reasoning_effort":"high"`), "reasoning_effort"},
	{"openai stop removed", "/v1/chat/completions", openAIBody(`"stop":"END"`), openAIBody(`"temperature":null`), "stop"},
	{"messages model", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024`), anthropicBody("claude-haiku-4-5", `"max_tokens":1024`), "model"},
	{"messages tool_choice", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"tool_choice":{"type":"auto"}`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"tool_choice":{"type":"none"}`), "tool_choice"},
	{"messages parallel tool use", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"tool_choice":{"type":"auto"}`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`), "tool_choice"},
	{"messages temperature", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"temperature":0`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"temperature":1`), "temperature"},
	{"messages top_p", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"top_p":0.9`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"top_p":0.5`), "top_p"},
	{"messages top_k", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"top_k":40`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"top_k":1`), "top_k"},
	{"messages max_tokens", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1`), "max_tokens"},
	{"messages stop_sequences added", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":1024`), anthropicBody("claude-sonnet-4-5", `"max_tokens":1024,"stop_sequences":["END"]`), "stop_sequences"},
	{"messages thinking", "/v1/messages", anthropicBody("claude-sonnet-4-5", `"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024}`), anthropicBody("claude-sonnet-4-5", `"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048}`), "thinking"},
}

func openAIBody(params string) string { return openAIModelBody("gpt-4.1", params) }

func openAIModelBody(model, params string) string {
	return `{"model":"` + model + `","messages":[{"role":"system","content":"You keep notes."},{"role":"user","content":"Write hello."}],` +
		`"tools":[{"type":"function","function":{"name":"write_file","description":"Write a file.","parameters":{"type":"object"}}}],` +
		`"stream_options":{"include_usage":true},"user":"u-1",` + params + `}`
}

func anthropicBody(model, params string) string {
	return `{"model":"` + model + `","system":"You keep notes.","messages":[{"role":"user","content":"Write hello."}],` +
		`"tools":[{"name":"write_file","description":"Write a file.","input_schema":{"type":"object"}}],` +
		`"metadata":{"user_id":"u-1"},` + params + `}`
}

// generateBody decodes body as the bridge does and asks m for it.
func generateBody(t *testing.T, m llm.Model, path, body string) error {
	t.Helper()
	c, err := wire.Decode(path, []byte(body))
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	_, err = m.Generate(context.Background(), &c.Request)
	return err
}

func TestRequestParamsArePinned(t *testing.T) {
	for _, c := range paramCases {
		t.Run(c.name, func(t *testing.T) {
			rec := NewRecorder(scriptedModel(&llm.Response{Message: llm.AssistantMessage("Done.")}), &RecorderOptions{Redactor: redact.New(nil)})
			if err := generateBody(t, rec, c.path, c.base); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := tape.Encode(&b, rec.Tape()); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "\n    "+c.param+":") && !strings.Contains(c.name, "added") {
				t.Errorf("the tape does not pin %s:\n%s", c.param, b.String())
			}
			for _, unpinned := range []string{"user", "metadata", "stream_options", "include_usage"} {
				if strings.Contains(b.String(), unpinned+":") {
					t.Errorf("the tape pins %s, which changes nothing:\n%s", unpinned, b.String())
				}
			}
			tp, err := tape.Decode(strings.NewReader(b.String()), "notes.yaml")
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			if err := generateBody(t, NewModel(tp, nil), c.path, c.base); err != nil {
				t.Fatalf("the unchanged request: %v\n%s", err, b.String())
			}
			err = generateBody(t, NewModel(tp, nil), c.path, c.changed)
			want := "offered.params." + c.param + " (recorded at notes.yaml:3): the request parameter " + c.param + " changed:\n--- recorded\n+++ actual\n"
			if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), want) {
				t.Fatalf("the changed request: err = %v, want a divergence with %q", err, want)
			}
			m := NewModel(tp, &ModelOptions{Rebase: true})
			if err := generateBody(t, m, c.path, c.changed); err != nil {
				t.Fatalf("the changed request in rebase mode: %v", err)
			}
			rb, err := m.Rebased(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !rb.Changed() {
				t.Fatal("the rebase changed nothing")
			}
			b.Reset()
			if err := tape.Encode(&b, rb.Tape); err != nil {
				t.Fatal(err)
			}
			rebased, err := tape.Decode(strings.NewReader(b.String()), "notes.yaml")
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			if err := generateBody(t, NewModel(rebased, nil), c.path, c.changed); err != nil {
				t.Errorf("the changed request against the rebased tape: %v\n%s", err, b.String())
			}
			if err := generateBody(t, NewModel(rebased, nil), c.path, c.base); !errors.Is(err, ErrDiverged) {
				t.Errorf("the old request against the rebased tape: err = %v, want a divergence", err)
			}
		})
	}
}

// TestUnpinnedParamsAreNotCompared: a tape whose offered block pins no
// params (one recorded before they were pinned) replays requests whatever
// their parameters.
func TestUnpinnedParamsAreNotCompared(t *testing.T) {
	const tapeText = "format: tapeloop/v1\noffered:\n  system: You keep notes.\ntape:\n  - response:\n      content: Done.\n"
	tp, err := tape.Decode(strings.NewReader(tapeText), "old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range paramCases {
		if err := generateBody(t, NewModel(tp, nil), c.path, c.changed); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestAnsweredByIsReadBack: the comment beside params.model that names
// the model which answered is read back, so that a rebase keeps it; a
// comment of the user's own is not taken for one.
func TestAnsweredByIsReadBack(t *testing.T) {
	for _, c := range []struct{ comment, want string }{
		{"# answered by gpt-4.1-mini: the recording sent it instead (--model)", "gpt-4.1-mini"},
		{"# answered by claude-haiku-4-5", "claude-haiku-4-5"},
		{"# the model our team ships", ""},
		{"", ""},
	} {
		tapeText := "format: tapeloop/v1\noffered:\n  params:\n    temperature: 0.2\n    model: \"gpt-4.1\" " + c.comment + "\ntape:\n  - response:\n      content: Done.\n"
		tp, err := tape.Decode(strings.NewReader(tapeText), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if tp.Offered.AnsweredBy != c.want {
			t.Errorf("%q: AnsweredBy = %q, want %q", c.comment, tp.Offered.AnsweredBy, c.want)
		}
		var b strings.Builder
		if err := tape.Encode(&b, tp); err != nil {
			t.Fatal(err)
		}
		if c.want != "" && !strings.Contains(b.String(), `model: "gpt-4.1" # answered by `+c.want+": the recording sent it instead (--model)\n") {
			t.Errorf("%q: encoded again without the comment:\n%s", c.comment, b.String())
		}
	}
}

// A parameter changed between two requests is recorded as a change of what
// was offered, on the request that changed it.
func TestRecorderRecordsAChangedParam(t *testing.T) {
	rec := NewRecorder(scriptedModel(&llm.Response{Message: llm.AssistantMessage("one")}, &llm.Response{Message: llm.AssistantMessage("two")}), nil)
	msgs := []llm.Message{llm.UserMessage("Go.")}
	for _, temp := range []string{"0.2", "0.7"} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs, Params: map[string]json.RawMessage{"temperature": json.RawMessage(temp)}}); err != nil {
			t.Fatal(err)
		}
		msgs = append(slices.Clone(msgs), llm.AssistantMessage("one"), llm.UserMessage("Again."))
	}
	if o := rec.Tape().Entries[1].Request.Offered; o == nil || string(o.Params["temperature"]) != "0.7" {
		t.Errorf("the second request recorded offered %+v, want temperature 0.7", o)
	}
}

// TestParamsFollowTheTapesChanges: what a run offered carries over each
// entry that records a change of something else, and a recorded change of
// a parameter holds from its entry on. A replay of the run passes; a run
// that changes a parameter where the tape did not, or not as it did,
// diverges naming it.
func TestParamsFollowTheTapesChanges(t *testing.T) {
	write := llm.ToolDefinition{Name: "write_file"}
	read := llm.ToolDefinition{Name: "read_file"}
	type turn struct {
		tools []llm.ToolDefinition
		temp  string
	}
	requests := func(turns ...turn) []*llm.Request {
		var out []*llm.Request
		msgs := []llm.Message{llm.UserMessage("Go.")}
		for _, tn := range turns {
			out = append(out, &llm.Request{Messages: msgs, Tools: tn.tools, Params: map[string]json.RawMessage{"temperature": json.RawMessage(tn.temp)}})
			msgs = append(slices.Clone(msgs), llm.AssistantMessage("done"), llm.UserMessage("Again."))
		}
		return out
	}
	// Recorded: the second request offers one more tool, the third a
	// higher temperature.
	recorded := []turn{{[]llm.ToolDefinition{write}, "0.2"}, {[]llm.ToolDefinition{write, read}, "0.2"}, {[]llm.ToolDefinition{write, read}, "0.7"}}
	answers := []*llm.Response{}
	for range recorded {
		answers = append(answers, &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop})
	}
	rec := NewRecorder(scriptedModel(answers...), nil)
	for _, req := range requests(recorded...) {
		if _, err := rec.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	// Each entry records only what changed.
	if o := tp.Entries[1].Request.Offered; o == nil || o.Tools == nil || o.Params != nil {
		t.Errorf("the second entry recorded offered %+v; want its tools and no params", o)
	}
	if o := tp.Entries[2].Request.Offered; o == nil || o.Tools != nil || string(o.Params["temperature"]) != "0.7" {
		t.Errorf("the third entry recorded offered %+v; want temperature 0.7 and no tools", o)
	}
	for _, tc := range []struct {
		name   string
		turns  []turn
		failAt int // the 1-based request that diverges; 0 for none
	}{
		{"as recorded", recorded, 0},
		{"temperature changed with the tools", []turn{recorded[0], {recorded[1].tools, "0.5"}, recorded[2]}, 2},
		{"temperature kept where the tape raised it", []turn{recorded[0], recorded[1], {recorded[2].tools, "0.2"}}, 3},
	} {
		m := NewModel(tp, nil)
		for i, req := range requests(tc.turns...) {
			_, err := m.Generate(context.Background(), req)
			switch {
			case i+1 == tc.failAt && (!errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "temperature")):
				t.Errorf("%s: request %d: %v; want a divergence naming temperature", tc.name, i+1, err)
			case i+1 != tc.failAt && err != nil:
				t.Errorf("%s: request %d: %v", tc.name, i+1, err)
			}
			if err != nil {
				break
			}
		}
	}
}

// TestRecorderNotesTheModelThatAnswered: a recording keeps the request's
// model pinned and notes beside it the model that answered in its place:
// the one the context names (--model), or the one the bridge's forward
// sent the vendor instead, which wins; none when the request's own model
// answered.
func TestRecorderNotesTheModelThatAnswered(t *testing.T) {
	for _, tc := range []struct {
		name       string
		answeredBy string // on the context
		forwarded  bool   // a bridged request, forwarded
		sent       string // the model the forward sent instead
		want       string
	}{
		{"the request's own model", "", false, "", ""},
		{"another model named", "openai/gpt-4.1-mini", false, "", "openai/gpt-4.1-mini"},
		{"forwarded as sent", "", true, "", ""},
		{"forwarded to another model", "", true, "gpt-4.1-nano", "gpt-4.1-nano"},
		{"forwarded as sent, another model named", "openai/gpt-4.1-mini", true, "", "openai/gpt-4.1-mini"},
		{"forwarded to another model, another named", "openai/gpt-4.1-mini", true, "gpt-4.1-nano", "gpt-4.1-nano"},
	} {
		ctx := llm.WithAnsweredBy(context.Background(), tc.answeredBy)
		if tc.forwarded {
			ctx = wire.WithForwarded(ctx, &wire.Forwarded{})
		}
		vendor := llm.ModelFunc(func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
			if fw := wire.ForwardedOf(ctx); fw != nil && tc.sent != "" {
				fw.Replaced, fw.Sent = "gpt-4.1", tc.sent // as wire.Forward does
			}
			return &llm.Response{Message: llm.AssistantMessage("Hello."), FinishReason: llm.FinishStop}, nil
		})
		rec := NewRecorder(vendor, &RecorderOptions{Redactor: redact.New(nil)})
		req := &llm.Request{Messages: []llm.Message{llm.UserMessage("Say hello.")}, Params: map[string]json.RawMessage{"model": json.RawMessage(`"gpt-4.1"`)}}
		if _, err := rec.Generate(ctx, req); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tape.Encode(&b, rec.Tape()); err != nil {
			t.Fatal(err)
		}
		comment := strings.Contains(b.String(), "# answered by")
		if tc.want == "" && comment || tc.want != "" && !strings.Contains(b.String(), `model: "gpt-4.1" # answered by `+tc.want+":") {
			t.Errorf("%s: the tape says\n%s\nwant the model answered by %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestDivergenceNamesOnlyTheChangedParams: of the parameters a tape pins,
// a divergence names those the run changed, added or dropped, and not the
// ones it sent as recorded.
func TestDivergenceNamesOnlyTheChangedParams(t *testing.T) {
	params := func(kv ...string) map[string]json.RawMessage {
		p := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i]] = json.RawMessage(kv[i+1])
		}
		return p
	}
	const format = `{"type":"json_object","strict":true}`
	recorded := params("temperature", "0.2", "top_p", "1", "seed", "7", "response_format", format)
	tp := &tape.Tape{Offered: &tape.Offered{Params: recorded}, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("Hi.")}}}}
	for _, tc := range []struct {
		name string
		sent map[string]json.RawMessage
		want []string
	}{
		{"one changed", params("temperature", "0.5", "top_p", "1", "seed", "7", "response_format", format), []string{"temperature"}},
		{"one dropped, one added", params("temperature", "0.2", "top_p", "1", "max_tokens", "10", "response_format", format), []string{"max_tokens", "seed"}},
		{"one changed, one the same object written otherwise", params("temperature", "0.2", "top_p", "1", "seed", "8", "response_format", `{ "strict": true, "type": "json_object" }`), []string{"seed"}},
	} {
		_, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}, Params: tc.sent})
		var me *MismatchError
		if !errors.As(err, &me) {
			t.Errorf("%s: %v, want a mismatch", tc.name, err)
			continue
		}
		var got []string
		for _, f := range me.Fields {
			if k, ok := strings.CutPrefix(f, "offered.params."); ok {
				got = append(got, k)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: the divergence names params %v, want %v:\n%v", tc.name, got, tc.want, err)
		}
	}
}
