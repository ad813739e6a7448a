package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// conversation builds request bodies the way an agent does: each one the
// previous one's messages and one turn more.
type conversation struct {
	path  string
	head  string   // everything before the messages, "{" ... ","
	key   string   // the messages array's key; "" for "messages"
	msgs  []string // each message's JSON
	tools string   // the tools array's JSON, "" for none
	// toolsIn, when set, wraps the tools array in the object that holds
	// it ("toolConfig", for Converse): {"toolsIn":{"tools":[...]}}.
	toolsIn string
	stream  bool
}

func (c *conversation) body() []byte {
	var b strings.Builder
	b.WriteString(c.head)
	key := c.key
	if key == "" {
		key = "messages"
	}
	fmt.Fprintf(&b, "%q:[", key)
	b.WriteString(strings.Join(c.msgs, ","))
	b.WriteString("]")
	switch {
	case c.tools != "" && c.toolsIn != "":
		fmt.Fprintf(&b, `,%q:{"tools":%s}`, c.toolsIn, c.tools)
	case c.tools != "":
		b.WriteString(`,"tools":` + c.tools)
	}
	fmt.Fprintf(&b, `,"stream":%v}`, c.stream)
	return []byte(b.String())
}

func openAIConversation() *conversation {
	return &conversation{
		path: "/v1/chat/completions",
		head: `{"model":"gpt-test",`,
		msgs: []string{`{"role":"system","content":"You keep notes."}`, `{"role":"user","content":"Note the date."}`},
		tools: `[{"type":"function","function":{"name":"read","description":"Read a note.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}},` +
			`{"type":"function","function":{"name":"write","description":"Write a note.","parameters":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}}]`,
	}
}

// openAITurn appends an assistant message calling name with id, and its
// result (a tool message without a name: the decoder names it after the
// call).
func openAITurn(c *conversation, id, name, result string) {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"role":"assistant","content":"Calling %s.","tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":"{\"path\":\"a\"}"}}]}`, name, id, name),
		fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%q}`, id, result))
}

func anthropicConversation() *conversation {
	return &conversation{
		path: "/v1/messages",
		head: `{"model":"claude-test","max_tokens":1024,"system":"You keep notes.",`,
		msgs: []string{`{"role":"user","content":"Note the date."}`},
		tools: `[{"name":"read","description":"Read a note.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}},` +
			`{"name":"write","description":"Write a note.","input_schema":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}]`,
	}
}

func anthropicTurn(c *conversation, id, name, result string) {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"Calling %s."},{"type":"tool_use","id":%q,"name":%q,"input":{"path":"a"}}]}`, name, id, name),
		fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q},{"type":"text","text":"Go on."}]}`, id, result))
}

func responsesConversation() *conversation {
	return &conversation{
		path: "/v1/responses",
		head: `{"instructions":"You keep notes.","model":"gpt-test","store":false,`,
		key:  "input",
		msgs: []string{`{"content":"Note the date.","role":"user"}`},
		tools: `[{"type":"function","name":"read","description":"Read a note.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}},` +
			`{"type":"function","name":"write","description":"Write a note.","parameters":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}]`,
	}
}

// responsesTurn appends the output items of a response as openai-go's
// agents send them back (a reasoning item, a message, a function call:
// one assistant message once decoded) and the call's output.
func responsesTurn(c *conversation, id, name, result string) {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"id":"rs_%s","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking of %s."}],"encrypted_content":"opaque-%s"}`, id, name, id),
		fmt.Sprintf(`{"id":"msg_%s","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Calling %s.","annotations":[]}]}`, id, name),
		fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":%q,"arguments":"{\"path\":\"a\"}","status":"completed"}`, id, name),
		fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%q}`, id, result))
}

func geminiConversation() *conversation {
	return &conversation{
		path: "/v1beta/models/gemini-test:generateContent",
		head: `{"systemInstruction":{"parts":[{"text":"You keep notes."}],"role":"user"},`,
		key:  "contents",
		msgs: []string{`{"parts":[{"text":"Note the date."}],"role":"user"}`},
		tools: `[{"functionDeclarations":[{"description":"Read a note.","name":"read","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}}}},` +
			`{"description":"Write a note.","name":"write","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}]}]`,
	}
}

// geminiTurn appends a model turn calling name (its thought signature
// kept) and the user turn answering it.
func geminiTurn(c *conversation, id, name, result string) {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"parts":[{"text":"Calling %s."},{"functionCall":{"args":{"path":"a"},"id":%q,"name":%q},"thoughtSignature":"c2lnLQ=="}],"role":"model"}`, name, id, name),
		fmt.Sprintf(`{"parts":[{"functionResponse":{"id":%q,"name":%q,"response":{"output":%q}}}],"role":"user"}`, id, name, result))
}

func bedrockConversation() *conversation {
	return &conversation{
		path:    "/model/amazon.nova-test/converse",
		head:    `{"system":[{"text":"You keep notes."}],`,
		msgs:    []string{`{"role":"user","content":[{"text":"Note the date."}]}`},
		toolsIn: "toolConfig",
		tools: `[{"toolSpec":{"name":"read","description":"Read a note.","inputSchema":{"json":{"type":"object","properties":{"path":{"type":"string"}}}}}},` +
			`{"toolSpec":{"name":"write","description":"Write a note.","inputSchema":{"json":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}}}}}}]`,
	}
}

// bedrockTurn appends an assistant turn calling name and the user turn
// holding its result (a toolResult without a name: the decoder names it
// after the call), a cache point after it.
func bedrockTurn(c *conversation, id, name, result string) {
	c.msgs = append(c.msgs,
		fmt.Sprintf(`{"role":"assistant","content":[{"text":"Calling %s."},{"toolUse":{"toolUseId":%q,"name":%q,"input":{"path":"a"}}}]}`, name, id, name),
		fmt.Sprintf(`{"role":"user","content":[{"toolResult":{"toolUseId":%q,"content":[{"text":%q}]}},{"cachePoint":{"type":"default"}}]}`, id, result))
}

// decodeBoth decodes body with the warm decoder and afresh, and fails
// unless both give the same call; it returns the call.
func decodeBoth(t *testing.T, d *wire.Decoder, c *conversation) *wire.Call {
	t.Helper()
	body := c.body()
	warm, err := d.Decode(c.path, body)
	if err != nil {
		t.Fatalf("warm decode: %v\n%s", err, body)
	}
	cold, err := wire.Decode(c.path, body)
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
	if !reflect.DeepEqual(warm, cold) {
		t.Fatalf("the decoder's call differs from Decode's\nwarm %+v\ncold %+v", warm, cold)
	}
	return warm
}

// TestDecoderIsDecode grows a conversation in both formats, interleaved,
// through one Decoder, and changes what the decoder could reuse (an earlier
// message, the call a later unchanged result answers, a tool's schema and
// description, the conversation cut short): every call must be Decode's.
func TestDecoderIsDecode(t *testing.T) {
	var d wire.Decoder
	for _, f := range []struct {
		name string
		conv func() *conversation
		turn func(c *conversation, id, name, result string)
	}{{"openai", openAIConversation, openAITurn}, {"anthropic", anthropicConversation, anthropicTurn},
		{"responses", responsesConversation, responsesTurn}, {"gemini", geminiConversation, geminiTurn},
		{"bedrock", bedrockConversation, bedrockTurn}} {
		t.Run(f.name, func(t *testing.T) {
			c := f.conv()
			decodeBoth(t, &d, c)
			for i := range 4 {
				f.turn(c, fmt.Sprintf("call_%d", i), "read", fmt.Sprintf("note %d", i))
				decodeBoth(t, &d, c)
			}
			last := len(c.msgs) - 1

			// An early message changes: the change is decoded, not reused.
			k := slices.IndexFunc(c.msgs, func(m string) bool { return strings.Contains(m, "Note the date.") })
			first := c.msgs[k]
			c.msgs[k] = strings.Replace(first, "date", "time", 1)
			if got := decodeBoth(t, &d, c); !slices.ContainsFunc(got.Request.Messages, func(m llm.Message) bool { return m.Content == "Note the time." }) {
				t.Errorf("the edited first message was not decoded: %+v", got.Request.Messages[:2])
			}
			c.msgs[k] = first
			decodeBoth(t, &d, c)

			// The call a result answers is renamed while the result's bytes
			// stay: the result's name (taken from the call) must follow. A
			// Gemini result names its function itself.
			c.msgs[last-1] = strings.ReplaceAll(c.msgs[last-1], `"read"`, `"write"`)
			got := decodeBoth(t, &d, c)
			msgs := got.Request.Messages
			if k := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_3" }); k < 0 {
				t.Errorf("no result of call_3 in %+v", msgs)
			} else if f.name != "gemini" && msgs[k].Name != "write" {
				t.Errorf("the unchanged result after a renamed call is named %q, want write", msgs[k].Name)
			}

			// A tool's schema changes, then its description: both decoded.
			c.tools = strings.Replace(c.tools, `"path":{"type":"string"}}`, `"path":{"type":"integer"}}`, 1)
			if got := decodeBoth(t, &d, c); !strings.Contains(string(got.Request.Tools[0].Parameters), "integer") {
				t.Errorf("the changed schema was not decoded: %s", got.Request.Tools[0].Parameters)
			}
			c.tools = strings.Replace(c.tools, "Read a note.", "Read a note aloud.", 1)
			if got := decodeBoth(t, &d, c); got.Request.Tools[0].Description != "Read a note aloud." {
				t.Errorf("the changed description was not decoded: %q", got.Request.Tools[0].Description)
			}
			c.tools = ""
			if got := decodeBoth(t, &d, c); got.Request.Tools != nil {
				t.Errorf("tools %+v after they were dropped", got.Request.Tools)
			}

			// Cut short, then a different last message, then streamed.
			c.msgs = c.msgs[:3]
			decodeBoth(t, &d, c)
			c.msgs[2] = strings.Replace(c.msgs[2], "call_0", "call_x", -1)
			decodeBoth(t, &d, c)
			c.stream = true
			decodeBoth(t, &d, c)
		})
	}
}

// TestDecoderCopies: changing a decoded request (its calls, its tools'
// schemas) changes nothing the next request decodes to, nor another
// message of the same request.
func TestDecoderCopies(t *testing.T) {
	var d wire.Decoder
	c := openAIConversation()
	openAITurn(c, "call_1", "read", "one")
	openAITurn(c, "call_2", "write", "two")
	first := decodeBoth(t, &d, c)
	msgs := first.Request.Messages
	msgs[2].ToolCalls[0].Name = "mangled"
	msgs[2].ToolCalls = append(msgs[2].ToolCalls, llm.ToolCall{ID: "added", Name: "added"})
	if got := msgs[4].ToolCalls; len(got) != 1 || got[0].ID != "call_2" || got[0].Name != "write" {
		t.Errorf("a call appended to one message changed the next message's calls: %+v", got)
	}
	msgs[3].Content = "mangled"
	first.Request.Tools[0].Parameters[0] = '['
	first.Request.Tools[1].Name = "mangled"
	openAITurn(c, "call_3", "read", "three")
	decodeBoth(t, &d, c)
}

// TestDecoderKeepsNoSliceOfTheBody: the bridge reads each body into a
// buffer the next request reuses, so nothing the Decoder returns or keeps
// may be a slice of a body. Each body is overwritten once decoded; every
// call must still be what Decode makes of the body as sent, and the next
// requests must still skip the messages they repeat (the Decoder compares
// them with copies of its own, not with the overwritten bodies).
func TestDecoderKeepsNoSliceOfTheBody(t *testing.T) {
	withSchema := openAIConversation()
	withSchema.head = `{"model":"gpt-test","response_format":{"type":"json_schema","json_schema":{"name":"note","schema":{"type": "object"}}},`
	for _, f := range []struct {
		name string
		conv *conversation
		turn func(c *conversation, id, name, result string)
	}{{"openai", withSchema, openAITurn}, {"anthropic", anthropicConversation(), anthropicTurn},
		{"responses", responsesConversation(), responsesTurn}, {"gemini", geminiConversation(), geminiTurn}} {
		t.Run(f.name, func(t *testing.T) {
			var d wire.Decoder
			c := f.conv
			var calls []*wire.Call
			var sent [][]byte
			for i := range 6 {
				want := len(c.msgs) // the messages the previous body sent
				if i > 0 {
					f.turn(c, fmt.Sprintf("call_%d", i), "read", fmt.Sprintf("note %d", i))
				}
				c.stream = i >= 3 // the body's end changes: the messages it repeats are skipped another way
				body := c.body()
				sent = append(sent, bytes.Clone(body))
				call, skipped, onlyNew, err := wire.DecodeSkippedForTest(&d, c.path, body)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if i > 0 && (skipped != want || onlyNew != (i != 3)) {
					t.Errorf("request %d: %d messages skipped (want %d), only the new ones scanned %v", i, skipped, want, onlyNew)
				}
				for j := range body {
					body[j] = '#'
				}
				calls = append(calls, call)
			}
			for i, call := range calls {
				want, err := wire.Decode(c.path, sent[i])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(call, want) {
					t.Errorf("request %d changed with its body\ngot  %+v\nwant %+v", i, call, want)
				}
			}
		})
	}
}

// TestDecoderNamesAfterACut: a tool result is named after the call it
// answers only when that call is in its own request; a conversation cut
// short forgets the calls it dropped, even when it then repeats itself.
func TestDecoderNamesAfterACut(t *testing.T) {
	for _, repeat := range []bool{false, true} {
		var d wire.Decoder
		c := openAIConversation()
		openAITurn(c, "call_1", "read", "one")
		openAITurn(c, "call_2", "write", "two")
		decodeBoth(t, &d, c)
		c.msgs = c.msgs[:4]
		decodeBoth(t, &d, c)
		if repeat {
			decodeBoth(t, &d, c)
		}
		c.msgs = append(c.msgs, `{"role":"tool","tool_call_id":"call_2","content":"late"}`)
		got := decodeBoth(t, &d, c)
		if m := got.Request.Messages[len(got.Request.Messages)-1]; m.Name != "" {
			t.Errorf("repeated %v: a result for a call the request does not hold is named %q", repeat, m.Name)
		}
	}
}

// TestDecoderAfterAnError: a request that cannot be decoded is reported and
// leaves the decoder as it was.
func TestDecoderAfterAnError(t *testing.T) {
	var d wire.Decoder
	c := openAIConversation()
	openAITurn(c, "call_1", "read", "one")
	decodeBoth(t, &d, c)
	bad := *c
	bad.msgs = append(append([]string(nil), c.msgs...), `{"role":"wizard","content":"x"}`)
	if _, err := d.Decode(bad.path, bad.body()); err == nil || !strings.Contains(err.Error(), `messages[4].role: unknown role "wizard"`) {
		t.Errorf("decoding an unknown role: %v", err)
	}
	bad.msgs = append(append([]string(nil), c.msgs...), `{"role":"user","content":7}`)
	if _, err := d.Decode(bad.path, bad.body()); err == nil || !strings.Contains(err.Error(), "messages[4].content") {
		t.Errorf("decoding a number as content: %v", err)
	}
	if _, err := d.Decode(bad.path, []byte(`{"messages":`)); err == nil {
		t.Error("a cut body decoded")
	}
	// A call made in a request that fails names no result after it.
	bad.msgs = append(append([]string(nil), c.msgs...), `{"role":"assistant","tool_calls":[{"id":"call_x","type":"function","function":{"name":"write","arguments":"{}"}}]}`, `{"role":"wizard"}`)
	if _, err := d.Decode(bad.path, bad.body()); err == nil {
		t.Error("decoding an unknown role after a call: no error")
	}
	late := *c
	late.msgs = append(append([]string(nil), c.msgs...), `{"role":"tool","tool_call_id":"call_x","content":"late"}`)
	if got := decodeBoth(t, &d, &late); got.Request.Messages[len(got.Request.Messages)-1].Name != "" {
		t.Errorf("a result is named after a call of a request that failed")
	}
	openAITurn(c, "call_2", "read", "two")
	decodeBoth(t, &d, c)
	var v any
	if err := json.Unmarshal(c.body(), &v); err != nil {
		t.Fatalf("the test's body is not JSON: %v", err)
	}
}

// TestDecoderResponsesChain: an agent that keeps its conversation on the
// server sends only its new items with the previous_response_id they
// follow; it branches back to an older response, repeats a request with
// one item more, then sends a whole history of its own. Every call must
// be the whole decode's with the same previous responses resolved, and
// the responses kept must get the same ids; changing a call changes no
// later one.
func TestDecoderResponsesChain(t *testing.T) {
	var d, whole wire.Decoder
	call := func(id string) string {
		return fmt.Sprintf(`{"arguments":"{\"path\":\"a\"}","call_id":%q,"name":"read","type":"function_call"}`, id)
	}
	out := func(id, text string) string {
		return fmt.Sprintf(`{"call_id":%q,"output":%q,"type":"function_call_output"}`, id, text)
	}
	user := func(text string) string { return fmt.Sprintf(`{"content":%q,"role":"user"}`, text) }
	calling := func(id string) *llm.Response {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading.", ToolCalls: []llm.ToolCall{{ID: id, Name: "read", Arguments: `{"path":"a"}`}},
			Reasoning: []llm.Reasoning{{Text: "Read " + id + " first."}}}}
	}
	var ids []string
	for i, step := range []struct {
		prev  int // the step whose response this one continues; -1 for none
		items []string
		resp  *llm.Response
		skips int // the items the decoder must not scan again
	}{
		{-1, []string{user("Read a.")}, calling("c1"), 0},
		{0, []string{out("c1", "alpha")}, calling("c2"), 0},
		{1, []string{out("c2", "beta")}, &llm.Response{Message: llm.AssistantMessage("Both read.")}, 0},
		{1, []string{out("c2", "beta"), user("And c?")}, calling("c3"), 1},
		{-1, []string{user("Read a."), call("c1"), out("c1", "alpha"), call("c2"), out("c2", "beta")}, calling("c4"), 0},
		{0, []string{out("c1", "gamma")}, &llm.Response{Message: llm.AssistantMessage("Read.")}, 0},
		{2, []string{user("Again.")}, &llm.Response{Message: llm.AssistantMessage("Again.")}, 0},
	} {
		prev := ""
		if step.prev >= 0 {
			prev = fmt.Sprintf(`,"previous_response_id":%q`, ids[step.prev])
		}
		body := []byte(`{"input":[` + strings.Join(step.items, ",") + `],"instructions":"You read.","model":"gpt-test"` + prev + `,"store":true}`)
		warm, skipped, _, err := wire.DecodeSkippedForTest(&d, "/v1/responses", body)
		if err != nil {
			t.Fatalf("step %d: %v\n%s", i, err, body)
		}
		cold, err := wire.DecodeWholeForTest(&whole, "/v1/responses", body)
		if err != nil {
			t.Fatalf("step %d, whole: %v", i, err)
		}
		if !reflect.DeepEqual(warm, cold) {
			t.Fatalf("step %d: the decoder's call differs from the whole decode's\nwarm %+v\ncold %+v", i, warm, cold)
		}
		if skipped != step.skips {
			t.Errorf("step %d: %d items not scanned again, want %d", i, skipped, step.skips)
		}
		id := d.Keep(warm, step.resp)
		// The whole decode keeps its own copy of the response, so that a
		// change reaching what the decoder kept shows as a difference.
		own := *step.resp
		own.Message = step.resp.Message.Clone()
		if w := whole.Keep(cold, &own); w != id {
			t.Fatalf("step %d: kept as %s, the whole decode's as %s", i, id, w)
		}
		ids = append(ids, id)
		// What the decoder kept and resolved are copies: changing this
		// call changes none of the later ones.
		for j := range warm.Request.Messages {
			m := &warm.Request.Messages[j]
			m.Content += " (changed)"
			for k := range m.ToolCalls {
				m.ToolCalls[k].Name = "changed"
			}
			for k := range m.Reasoning {
				m.Reasoning[k].Text = "changed"
			}
		}
	}
}

// TestDecodeNamesABadElement: a request whose conversation holds an
// element that is not an object of the format's shape is refused, naming
// the element by its key and index and saying what it is, in every format
// (never a panic, and never decoded as an empty message).
func TestDecodeNamesABadElement(t *testing.T) {
	cases := []struct{ path, body, want string }{
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Hi."},5]}`, "messages[1]"},
		{"/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"Hi."},5]}`, "messages[1]"},
		{"/v1/responses", `{"model":"m","input":[{"role":"user","content":"Hi."},5]}`, "input[1]"},
		{"/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"Hi."}]},5]}`, "contents[1]"},
		{"/model/m/converse", `{"messages":[{"role":"user","content":[{"text":"Hi."}]},5]}`, "messages[1]"},
	}
	// A Converse body at fault elsewhere is said of the body.
	if _, err := wire.Decode("/model/m/converse", []byte(`{"messages":[{"role":"user","content":[{"text":"Hi."}]}],"system":5}`)); !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), "converse body: ") {
		t.Errorf("a bad system: err = %v, want an invalid converse body", err)
	}
	for _, c := range cases {
		var d wire.Decoder
		for _, decode := range []func(string, []byte) (*wire.Call, error){wire.Decode, d.Decode} {
			_, err := decode(c.path, []byte(c.body))
			if !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cannot unmarshal number") {
				t.Errorf("%s: err = %v, want an invalid request naming %s and saying it is a number", c.path, err, c.want)
			}
		}
	}
}

// TestDecodeRefusesAToolNameTwice: a request offering two tools of one
// name is refused in every format, naming the tool, whether the decoder
// sees its tools first or after a request with others: a tape records one
// tool per name, and a bridge that passed it on would record a tape that
// no replay can read.
func TestDecodeRefusesAToolNameTwice(t *testing.T) {
	for _, mk := range []func() *conversation{openAIConversation, anthropicConversation, responsesConversation, geminiConversation, bedrockConversation} {
		c := mk()
		first := c.body()
		if !strings.Contains(c.tools, `"write"`) {
			t.Fatalf("%s: the conversation's tools name no write tool: %s", c.path, c.tools)
		}
		c.tools = strings.Replace(c.tools, `"write"`, `"read"`, 1)
		var d wire.Decoder
		if _, err := d.Decode(c.path, first); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		for _, decode := range []func(string, []byte) (*wire.Call, error){wire.Decode, d.Decode} {
			_, err := decode(c.path, c.body())
			if !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), `two tools are named "read"`) {
				t.Errorf("%s: err = %v, want an invalid request naming read twice", c.path, err)
			}
		}
	}
}

// TestResponsesAdjacentTextsJoined: the Responses API spreads one
// assistant turn over items; two message items in a row are one assistant
// message whose texts are joined by a line break, as a reader sees them.
func TestResponsesAdjacentTextsJoined(t *testing.T) {
	body := `{"model":"m","input":[{"role":"user","content":"Hi."},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"First."}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Second."}]},` +
		`{"role":"user","content":"And?"}]}`
	c, err := wire.Decode("/v1/responses", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Request.Messages {
		got = append(got, string(m.Role)+": "+m.Content)
	}
	want := []string{"user: Hi.", "assistant: First.\nSecond.", "user: And?"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}
