package wire_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// sameAsDecode decodes prev and then next with one Decoder, and fails
// unless next's call or error is exactly Decode's (the plain, whole-body
// decode; a previous_response_id resolved, by a Decoder told of no
// response), error text included.
func sameAsDecode(t *testing.T, path string, prev, next []byte) {
	t.Helper()
	var d, whole wire.Decoder
	_, _ = d.Decode(path, prev)
	warm, werr := d.Decode(path, next)
	cold, cerr := wire.DecodeWholeForTest(&whole, path, next)
	switch {
	case (werr == nil) != (cerr == nil) || (werr != nil && werr.Error() != cerr.Error()):
		t.Fatalf("after %s\nnext %s\ndecoder error %v\nDecode error  %v", prev, next, werr, cerr)
	case !reflect.DeepEqual(warm, cold):
		t.Fatalf("after %s\nnext %s\ndecoder %+v\nDecode  %+v", prev, next, warm, cold)
	}
}

// skipCase is a previous body and the next ones to check after it.
type skipCase struct {
	name, path string
	prev       string
	next       []string
}

func skipCases() []skipCase {
	sys := `{"content":"You append lines.","role":"system"}`
	user := `{"content":"Append.","role":"user"}`
	call := `{"content":"Reading.","tool_calls":[{"id":"r1","function":{"arguments":"{\"path\":\"log.txt\"}","name":"read_file"},"type":"function"}],"role":"assistant"}`
	result := `{"content":"start\n","tool_call_id":"r1","role":"tool"}`
	tools := `"tools":[{"function":{"name":"read_file","description":"Read.","parameters":{"type":"object"}},"type":"function"}]`
	oa := func(msgs ...string) string {
		return `{"messages":[` + strings.Join(msgs, ",") + `],"model":"m",` + tools + `}`
	}
	aUser := `{"role":"user","content":"Append."}`
	aCall := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"log.txt"}}]}`
	aResult := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"start"}]}`
	an := func(msgs ...string) string {
		return `{"max_tokens":64,"messages":[` + strings.Join(msgs, ",") + `],"model":"c","system":"S"}`
	}
	rUser := `{"content":"Append.","role":"user"}`
	rCall := `{"arguments":"{\"path\":\"log.txt\"}","call_id":"c1","name":"read_file","type":"function_call"}`
	rCall2 := `{"arguments":"{}","call_id":"c2","name":"read_file","type":"function_call"}`
	rOutput := `{"call_id":"c1","output":"start\n","type":"function_call_output"}`
	rOutput2 := `{"call_id":"c2","output":[{"type":"input_text","text":"x"}],"type":"function_call_output"}`
	rReasoning := `{"id":"rs_1","summary":[{"text":"Hm.","type":"summary_text"}],"type":"reasoning","encrypted_content":"e"}`
	rText := `{"content":[{"annotations":[],"text":"Reading.","type":"output_text"}],"id":"msg_1","role":"assistant","status":"completed","type":"message"}`
	rs := func(items ...string) string {
		return `{"input":[` + strings.Join(items, ",") + `],"instructions":"S","model":"m","store":false,"tools":[{"type":"function","name":"read_file","parameters":{"type":"object"}}]}`
	}
	gUser := `{"parts":[{"text":"Append."}],"role":"user"}`
	gCall := `{"parts":[{"text":"Reading."},{"functionCall":{"args":{"path":"log.txt"},"name":"read_file"},"thoughtSignature":"c2ln"}],"role":"model"}`
	gResult := `{"parts":[{"functionResponse":{"name":"read_file","response":{"output":"start"}}}],"role":"user"}`
	gm := func(contents ...string) string {
		return `{"contents":[` + strings.Join(contents, ",") + `],"systemInstruction":{"parts":[{"text":"S"}],"role":"user"},"tools":[{"functionDeclarations":[{"name":"read_file","parametersJsonSchema":{"type":"object"}}]}]}`
	}
	bUser := `{"role":"user","content":[{"text":"Append."}]}`
	bCall := `{"role":"assistant","content":[{"text":"Reading."},{"toolUse":{"toolUseId":"t1","name":"read_file","input":{"path":"log.txt"}}}]}`
	bResult := `{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"start"}]}},{"cachePoint":{"type":"default"}}]}`
	bTools := `"toolConfig":{"tools":[{"toolSpec":{"name":"read_file","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}]}`
	br := func(msgs ...string) string {
		return `{"messages":[` + strings.Join(msgs, ",") + `],"system":[{"text":"S"},{"cachePoint":{"type":"default"}}],` + bTools + `}`
	}
	return []skipCase{
		{"openai", "/v1/chat/completions", oa(sys, user), []string{
			oa(sys, user, call, result),
			oa(sys, user),
			oa(sys),
			oa(),
			oa(user, sys),
			`{"messages":[ ` + sys + ` , ` + user + ` ,` + call + "\n]" + `,"model":"m"}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"model":"m","messages":[` + user + `]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"Messages":[` + user + `]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"MESSAGES":null}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"meſſages":[]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"messages":5}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"messages":[0,` + user + `]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"messages":[` + sys + `,` + user + `]}`,
			`{"messages":[` + sys + `,` + user + `,]}`,
			`{"messages":[` + sys + `,` + user + `}`,
			`{"messages":[` + sys + `,` + user + `,0]}`,
			`{"messages":[` + sys + `,` + user + `,` + result + `],"model":5,` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,{"role":"wizard"}]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"stream":true,"stream_options":{"include_usage":true}}`,
			`{"messages":[` + sys + sys + `]}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"model":"n",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `],"model":"m",` + tools + `,"stream":true}`,
			`{"messages":[` + sys + `,` + user + `],"x":[],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,[` + `],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,"],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `],"messages":[` + call + `],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `],"Messages":[0` + `],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,` + call + `,` + user + `],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + ` ],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `,` + user + `,` + result + `],"model":"m",` + tools + `}`,
			`{"messages":[` + sys + `]` + `]}`,
		}},
		// Elements that are numbers: 1 must not be taken for 1.5 or 10.
		{"numbers", "/v1/chat/completions", `{"messages":[1,2]}`, []string{
			`{"messages":[1.5,2]}`, `{"messages":[10,2]}`, `{"messages":[1,2e3]}`, `{"messages":[1,2,3]}`,
			`{"messages":[1,2 ,{"role":"user","content":"x"}]}`, `{"messages":[1 , 2]}`, `{"messages":[1]}`,
		}},
		// A head with another key before messages, and the messages key
		// spelled in another case.
		{"anthropic", "/v1/messages", an(aUser), []string{
			an(aUser, aCall, aResult),
			an(aUser, aCall),
			`{"max_tokens":64,"messages":[` + aUser + `,` + aCall + `],"messages":[` + aUser + `]}`,
			`{"max_tokens":64,"messages":[` + aUser + `],"system":[{"type":"text","text":"S"}],"Messages":[]}`,
			`{"max_tokens":64,"messages":[` + aUser + `,` + aCall + `],"system":7}`,
		}},
		// Responses: the input as items, as a string, as something else;
		// assistant items joined across the skipped and the new ones.
		{"responses", "/v1/responses", rs(rUser, rCall), []string{
			rs(rUser, rCall, rOutput),
			rs(rUser, rCall, rReasoning, rText, rCall2, rOutput, rOutput2),
			rs(rUser),
			rs(rUser, rOutput),
			rs(rCall, rUser),
			`{"input":[` + rUser + ` ,` + rCall + `,` + rOutput + `],"instructions":"S","model":"m","store":false,"tools":[{"type":"function","name":"read_file","parameters":{"type":"object"}}]}`,
			`{"input":[` + rUser + `,` + rCall + `, ` + rOutput + ` ],"instructions":"S","model":"m","store":false,"tools":[{"type":"function","name":"read_file","parameters":{"type":"object"}}]}`,
			`{"input":[` + rUser + `,` + rCall + `],"instructions":"S","model":"m","previous_response_id":"resp_1"}`,
			`{"input":"Append.","instructions":"S","model":"m"}`,
			`{"input":[` + rUser + `,` + rCall + `],"instructions":"S","model":"m","input":"Append."}`,
			`{"input":[` + rUser + `,` + rCall + `],"instructions":"S","model":"m","Input":5}`,
			`{"input":[` + rUser + `,` + rCall + `],"instructions":7,"model":"m"}`,
			`{"input":[` + rUser + `,` + rCall + `,{"type":"web_search_call"}],"instructions":"S","model":"m"}`,
			`{"input":[` + rUser + `,` + rCall + `,` + rOutput + `],"instructions":"S","model":"m","tools":[{"type":"function","name":"read_file"}]}`,
			`{"input":[` + rUser + `,` + rCall + `],"instructions":"S","model":"m","text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}}}`,
		}},
		// Responses bodies whose items are the same but spaced otherwise
		// (the same length up to the items' end, other bytes): the digest
		// of the body must be read again.
		{"responses spacing", "/v1/responses", `{"input":[` + rUser + ` ,` + rCall + `],"model":"m"}`, []string{
			`{"input":[` + rUser + `, ` + rCall + `,` + rOutput + `],"model":"m"}`,
			`{"input":[` + rUser + ` ,` + rCall + `,` + rOutput + `],"model":"m"}`,
		}},
		// Gemini: the system instruction and tools after the contents, as
		// genai sends them.
		{"gemini", "/v1beta/models/g:generateContent", gm(gUser, gCall), []string{
			gm(gUser, gCall, gResult),
			gm(gUser),
			gm(gCall, gUser),
			gm(gUser, gCall, gResult, gCall, gResult),
			`{"contents":[` + gUser + `,` + gCall + `,{"role":"narrator","parts":[]}],"systemInstruction":{"parts":[{"text":"S"}]}}`,
			`{"contents":[` + gUser + `,` + gCall + `,{"role":"user","parts":[{"text":7}]}],"systemInstruction":{"parts":[{"text":"S"}]}}`,
			`{"contents":[` + gUser + `,` + gCall + `],"systemInstruction":{"parts":[{"text":"S"}]},"Contents":[]}`,
			`{"contents":[` + gUser + `,` + gCall + `],"systemInstruction":{"parts":[{"text":"S"}]},"tools":[{"googleSearch":{}}]}`,
			`{"contents":[` + gUser + `,` + gCall + `],"generationConfig":{"temperature":0.5},"systemInstruction":{"parts":[{"text":"S"}]}}`,
		}},
		// Converse: the tools inside toolConfig, cache points in the
		// system prompt, the tools and the messages (one at the start of a
		// turn marks the message before it).
		{"bedrock", "/model/m/converse", br(bUser, bCall), []string{
			br(bUser, bCall, bResult),
			br(bUser),
			br(bCall, bUser),
			br(bUser, bCall, bResult, bCall, bResult),
			`{"messages":[{"role":"user","content":[{"cachePoint":{"type":"default"}},{"text":"Append."}]},` + bCall + `],"system":[{"text":"S"},{"cachePoint":{"type":"default"}}]}`,
			`{"messages":[` + bUser + `,` + bCall + `,{"role":"narrator","content":[]}],"system":[{"text":"S"}]}`,
			`{"messages":[` + bUser + `,` + bCall + `,{"role":"user","content":[{"text":7}]}],"system":[{"text":"S"}]}`,
			`{"messages":[` + bUser + `,` + bCall + `],"system":5}`,
			`{"messages":[` + bUser + `,` + bCall + `],"Messages":[]}`,
			`{"messages":[` + bUser + `,` + bCall + `],"toolConfig":{"tools":[{"toolSpec":{"name":"read_file"}},{"CachePoint":{}}]}}`,
			`{"messages":[` + bUser + `,` + bCall + `],"toolConfig":{"tools":[{"toolSpec":{"name":"read_file"}},{"cache\u0050oint":{}}]}}`,
			`{"messages":[` + bUser + `,` + bCall + `],"toolConfig":{"tools":[{"systemTool":{"name":"x"}}]}}`,
			`{"messages":[` + bUser + `,` + bCall + `],"toolConfig":{"tools":5}}`,
			`{"messages":[` + bUser + `,` + bCall + `],"inferenceConfig":{"maxTokens":64},` + bTools + `}`,
		}},
		{"case-variant head", "/v1/chat/completions", `{"Messages":[` + sys + `]}`, []string{
			`{"Messages":[` + sys + `,` + user + `]}`,
			`{"Messages":[` + sys + `,` + user + `],"messages":[]}`,
		}},
		// The previous body had two messages keys: nothing is remembered.
		{"duplicate in prev", "/v1/chat/completions", `{"messages":[` + sys + `],"messages":[` + user + `]}`, []string{
			`{"messages":[` + sys + `],"messages":[` + user + `,` + call + `]}`,
			`{"messages":[` + sys + `,` + user + `]}`,
		}},
	}
}

// TestSkipIsDecode: after each previous body, each next body (grown,
// shrunk, with white space, duplicate and case-variant messages keys,
// numbers that a prefix would confuse, bad JSON, bad fields), every prefix
// of it, and it with every byte replaced by each of a few JSON
// punctuation characters, decodes through a warm Decoder exactly as Decode
// decodes it.
func TestSkipIsDecode(t *testing.T) {
	for _, c := range skipCases() {
		t.Run(c.name, func(t *testing.T) {
			prev := []byte(c.prev)
			for _, n := range c.next {
				next := []byte(n)
				sameAsDecode(t, c.path, prev, next)
				for i := range next {
					sameAsDecode(t, c.path, prev, next[:i])
					for _, b := range []byte(`,]0"`) {
						m := append([]byte(nil), next...)
						m[i] = b
						sameAsDecode(t, c.path, prev, m)
					}
				}
			}
		})
	}
}

// fuzzPaths are the paths FuzzDecoderSkip decodes its bodies at, one per
// format that decodes incrementally.
var fuzzPaths = []string{"/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1beta/models/g:generateContent", "/model/m/converse"}

// FuzzDecoderSkip decodes three bodies in turn with one Decoder; each must
// decode exactly as Decode decodes it. The seeds are conversations that
// grow, so that the fuzzer's changes to one body keep much of what it
// shares with the one before.
func FuzzDecoderSkip(f *testing.F) {
	for _, c := range skipCases() {
		for i := 0; i+1 < len(c.next); i += 2 {
			f.Add(uint8(slices.Index(fuzzPaths, c.path)), []byte(c.prev), []byte(c.next[i]), []byte(c.next[i+1]))
		}
	}
	f.Fuzz(func(t *testing.T, format uint8, a, b, c []byte) {
		path := fuzzPaths[int(format)%len(fuzzPaths)]
		var d, whole wire.Decoder
		for i, body := range [][]byte{a, b, c} {
			warm, werr := d.Decode(path, body)
			cold, cerr := wire.DecodeWholeForTest(&whole, path, body)
			if (werr == nil) != (cerr == nil) || (werr != nil && werr.Error() != cerr.Error()) || !reflect.DeepEqual(warm, cold) {
				t.Fatalf("body %d %q: decoder %+v, %v; Decode %+v, %v", i, body, warm, werr, cold, cerr)
			}
		}
	})
}

// TestSkipTaken: on a conversation as openai-go sends it, the Decoder
// skips every message the previous request sent and scans only the new
// ones; after a request whose fields around the messages changed (the
// model), it scans those fields once and then again only the new messages
// (a check that the shortcuts the tests above hold to Decode are the ones
// taken).
func TestSkipTaken(t *testing.T) {
	var d wire.Decoder
	msgs := []string{`{"content":"S","role":"system"}`, `{"content":"U","role":"user"}`}
	model := "m"
	for turn := range 6 {
		if turn == 3 {
			model = "n"
		}
		body := []byte(`{"messages":[` + strings.Join(msgs, ", ") + `],"model":"` + model + `","tools":[]}`) // spaced as some clients send
		skipped, onlyNew, err := wire.SkippedForTest(&d, "/v1/chat/completions", body)
		if err != nil {
			t.Fatal(err)
		}
		want := len(msgs) - 2
		if turn == 0 {
			want = 0
		}
		if skipped != want || onlyNew != (turn > 0 && turn != 3) {
			t.Errorf("turn %d: %d messages skipped (want %d), only the new ones scanned %v", turn, skipped, want, onlyNew)
		}
		if once, want := wire.DecodedOnceForTest(&d, "/v1/chat/completions"), map[bool]int{true: 2}[onlyNew]; once != want {
			t.Errorf("turn %d: %d new messages decoded as they were read, want %d", turn, once, want)
		}
		msgs = append(msgs, fmt.Sprintf(`{"content":"A%d","role":"assistant"}`, turn), fmt.Sprintf(`{"content":"U%d","role":"user"}`, turn))
	}
}
