package wire_test

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// unpinnedCases are, per format, a request and the request keys that do
// not change what the model answers (user ids, metadata, caching and
// delivery options, log probabilities reported beside the answer), each
// with a value as the vendor's API reference describes it. row is the
// format's row in docs/bridge.md's table of compared parameters.
var unpinnedCases = []struct {
	row, path, body string
	keys            map[string]string
}{
	{"Chat Completions", "/v1/chat/completions",
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"Hi."}],"temperature":0.2`,
		map[string]string{
			"user": `"u-1"`, "metadata": `{"run":"7"}`, "store": `true`, "service_tier": `"flex"`,
			"stream_options": `{"include_usage":true}`, "logprobs": `true`, "top_logprobs": `3`,
			"prediction": `{"type":"content","content":"Hello."}`, "safety_identifier": `"h-1"`,
			"prompt_cache_key": `"k-1"`, "prompt_cache_retention": `"24h"`, "prompt_cache_options": `{"mode":"explicit","ttl":"30m"}`,
		}},
	{"Messages", "/v1/messages",
		`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi."}]`,
		map[string]string{
			"metadata": `{"user_id":"u-1"}`, "service_tier": `"standard_only"`, "inference_geo": `"us"`,
			"speed": `"fast"`, "cache_control": `{"type":"ephemeral"}`, "diagnostics": `{"previous_message_id":"msg_1"}`,
		}},
	{"Responses API", "/v1/responses",
		`{"model":"gpt-5","input":"Hi.","temperature":0.2`,
		map[string]string{
			"user": `"u-1"`, "metadata": `{"run":"7"}`, "store": `false`, "service_tier": `"priority"`,
			"stream_options": `{"include_obfuscation":false}`, "include": `["reasoning.encrypted_content"]`,
			"top_logprobs": `2`, "background": `false`, "safety_identifier": `"h-1"`,
			"prompt_cache_key": `"k-1"`, "prompt_cache_retention": `"24h"`, "prompt_cache_options": `{"mode":"explicit"}`,
		}},
	{"Gemini API", "/v1beta/models/gemini-2.5-flash:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"Hi."}]}]`,
		map[string]string{
			"labels":           `{"team":"a"}`,
			"generationConfig": `{"responseLogprobs":true,"logprobs":3}`,
		}},
	{"Bedrock Converse", "/model/amazon.nova-pro-v1:0/converse",
		`{"messages":[{"role":"user","content":[{"text":"Hi."}]}]`,
		map[string]string{"requestMetadata": `{"team":"a"}`}},
}

// TestUnpinnedKeysChangeNothing: a request with a key that does not change
// the model's behaviour decodes to the parameters of the request without
// it, so a replay does not compare it; and docs/bridge.md's table names
// it as not compared.
func TestUnpinnedKeysChangeNothing(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range unpinnedCases {
		t.Run(c.row, func(t *testing.T) {
			row := ""
			for line := range strings.Lines(string(doc)) {
				if strings.HasPrefix(line, "| "+c.row+" |") {
					row = line
				}
			}
			cells := strings.Split(row, "|")
			if len(cells) < 4 {
				t.Fatalf("docs/bridge.md has no table row for %s", c.row)
			}
			notCompared := cells[len(cells)-2]
			base := decodeParams(t, c.path, c.body+"}")
			for k, v := range c.keys {
				got := decodeParams(t, c.path, c.body+`,"`+k+`":`+v+"}")
				if got != base {
					t.Errorf("with %s: %s the parameters are\n%s\nwithout it\n%s", k, v, got, base)
				}
				names := []string{k}
				if k == "generationConfig" {
					names = []string{"responseLogprobs", "logprobs"}
				}
				for _, n := range names {
					if !strings.Contains(notCompared, "`"+n+"`") {
						t.Errorf("docs/bridge.md's %s row does not list %s as not compared: %s", c.row, n, notCompared)
					}
				}
			}
		})
	}
}

// decodeParams decodes body sent to path and returns its parameters,
// sorted by name, one per line.
func decodeParams(t *testing.T, path, body string) string {
	t.Helper()
	c, err := wire.Decode(path, []byte(body))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c.Request.Params)) {
		b.WriteString(k + "=" + string(c.Request.Params[k]) + "\n")
	}
	return b.String()
}
