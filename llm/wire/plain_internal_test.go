package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestPlainIsElement: a Chat Completions message decoded in one pass (as
// openAIPlain) becomes what it became decoded as openAIMessage and made by
// openAIElement: the same messages, the same error text, the same names
// learnt. The elements cover what the one pass takes (string, null and
// absent content and arguments, escapes, bytes that are not UTF-8,
// duplicate and case-variant keys) and what it must hand back (content
// parts, numbers, objects, unknown roles, values that are not objects).
func TestPlainIsElement(t *testing.T) {
	elements := []string{
		`{"role":"user","content":"Note the date."}`,
		`{"role":"user","content":"a\nb\t\u00e9\ud83d\ude00 \"q\" \\ \/"}`,
		"{\"role\":\"user\",\"content\":\"bad \xff byte\"}",
		`{"role":"user","content":null}`,
		`{"role":"user"}`,
		`{"role":"system","content":"Be brief."}`,
		`{"role":"developer","content":"Be brief."}`,
		`{"role":"user","content":[{"type":"text","text":"one"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"two"}]}`,
		`{"role":"user","content":[]}`,
		`{"role":"user","content":5}`,
		`{"role":"user","content":1e400}`,
		`{"role":"user","content":{"text":"x"}}`,
		`{"role":"user","content":true}`,
		`{"role":"user","content":[{"type":5}]}`,
		`{"role":"user","content":[{"type":"text","text":"x"}],"content":"later wins"}`,
		`{"role":"user","content":"first","content":[{"type":"text","text":"later wins"}]}`,
		`{"role":"user","Content":"any case"}`,
		`{"ROLE":"user","CONTENT":"any case"}`,
		`{"role":"assistant","content":"Calling.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\\nb\"}"}}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","function":{"name":"read","arguments":{"path":"a"}}}]}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":null}},{"id":"c2","function":{"name":"write"}}]}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":5}}]}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":1e400}}]}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a","arguments":"x"}}],"tool_calls":[{"function":{"name":"b"}}]}`,
		`{"role":"assistant","reasoning_content":"Thinking.","content":"Done."}`,
		`{"role":"assistant","tool_calls":null}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":"read"}]}`,
		`{"role":"tool","tool_call_id":"c0","content":"known call"}`,
		`{"role":"tool","tool_call_id":"nope","content":"unknown call"}`,
		`{"role":"tool","tool_call_id":"c0","name":"given","content":"named"}`,
		`{"role":"tool","tool_call_id":"c0","content":[{"type":"text","text":"parts"}]}`,
		`{"role":"robot","content":"hi"}`,
		`{"role":5,"content":"hi"}`,
		`{"content":"no role"}`,
		`null`,
		`5`,
		`"text"`,
		`[]`,
		`{"role":"user","content":"x"`,
	}
	for i, raw := range elements {
		names := map[string]string{"c0": "read"}
		got, _, gotErr := openAIElements.decode(i, json.RawMessage(raw), names)
		wantNames := map[string]string{"c0": "read"}
		want, wantErr := oldElement(i, json.RawMessage(raw), wantNames)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s:\nerror %v\nwant  %v", raw, gotErr, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %#v\nwant %#v", raw, got, want)
		}
		if gotErr == nil && !maps.Equal(names, wantNames) {
			t.Errorf("%s: names %v, want %v", raw, names, wantNames)
		}
	}
}

// oldElement is how every message was decoded before openAIPlain: as
// openAIMessage, then made by openAIElement.
func oldElement(i int, raw json.RawMessage, names map[string]string) ([]llm.Message, error) {
	var m openAIMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, requestErrorf("messages[%d]: %v", i, err)
	}
	return openAIElement(i, &m, names)
}

// TestPlainTaken: the common messages are made in the one pass (the
// shortcut is not dead code); the others are not.
func TestPlainTaken(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"role":"user","content":"hi"}`: true,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":"{}"}}]}`: true,
		`{"role":"tool","tool_call_id":"c1","content":"ok"}`:                                          true,
		`{"role":"user","content":[{"type":"text","text":"hi"}]}`:                                     false,
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"read","arguments":{}}}]}`:   false,
		`{"role":"robot","content":"hi"}`:                                                             false,
	} {
		var m openAIPlain
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m.message(map[string]string{}); ok != want {
			t.Errorf("%s: taken %v, want %v", raw, ok, want)
		}
	}
}
