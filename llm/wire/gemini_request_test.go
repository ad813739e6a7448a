package wire_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestGeminiResponseSchema: a request's structured output schema is read
// from generationConfig's responseJsonSchema (JSON Schema) or, when it has
// none, from responseSchema (the OpenAPI subset older clients send), compact.
func TestGeminiResponseSchema(t *testing.T) {
	for key, want := range map[string]string{
		"responseJsonSchema": `{"type":"object","properties":{"day":{"type":"string"}}}`,
		"responseSchema":     `{"type":"OBJECT","properties":{"day":{"type":"STRING"}}}`,
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"Which day?"}]}],
			"generationConfig":{"responseMimeType":"application/json","` + key + `":` + want[:1] + " " + want[1:] + `}}`
		c, err := wire.Decode("/v1beta/models/gemini-test:generateContent", []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if string(c.Request.ResponseSchema) != want {
			t.Errorf("%s: response schema %s, want %s", key, c.Request.ResponseSchema, want)
		}
	}
}

// geminiBothSpellings is one Gemini API request in lowerCamelCase, the
// JSON names of the API's fields, with the field names in their proto
// form (snake_case) that the REST API accepts the same: a system
// instruction, a function declaration with a JSON schema, a model turn
// calling it with a thought signature, the user turn answering it, tool,
// safety and generation settings and a cache. The call's arguments, the
// answer and the schema keep their own keys (user_id), which are data, not
// field names.
var geminiBothSpellings = [2]string{
	`{"systemInstruction":{"parts":[{"text":"Be brief."}]},
	"contents":[{"role":"user","parts":[{"text":"Who am I?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"whoami","args":{"user_id":"u-1"}},"thoughtSignature":"c2ln"}]},
		{"role":"user","parts":[{"functionResponse":{"name":"whoami","response":{"display_name":"Ada"}}}]}],
	"tools":[{"functionDeclarations":[{"name":"whoami","description":"Say who.","parametersJsonSchema":{"type":"object","properties":{"user_id":{"type":"string"}}}}]}],
	"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["whoami"]}},
	"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_ONLY_HIGH"}],
	"cachedContent":"cachedContents/c1",
	"generationConfig":{"temperature":0.5,"maxOutputTokens":256,"thinkingConfig":{"thinkingBudget":128,"includeThoughts":true},
		"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"display_name":{"type":"string"}}}}}`,
	`{"system_instruction":{"parts":[{"text":"Be brief."}]},
	"contents":[{"role":"user","parts":[{"text":"Who am I?"}]},
		{"role":"model","parts":[{"function_call":{"name":"whoami","args":{"user_id":"u-1"}},"thought_signature":"c2ln"}]},
		{"role":"user","parts":[{"function_response":{"name":"whoami","response":{"display_name":"Ada"}}}]}],
	"tools":[{"function_declarations":[{"name":"whoami","description":"Say who.","parameters_json_schema":{"type":"object","properties":{"user_id":{"type":"string"}}}}]}],
	"tool_config":{"function_calling_config":{"mode":"ANY","allowed_function_names":["whoami"]}},
	"safety_settings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_ONLY_HIGH"}],
	"cached_content":"cachedContents/c1",
	"generation_config":{"temperature":0.5,"max_output_tokens":256,"thinking_config":{"thinking_budget":128,"include_thoughts":true},
		"response_mime_type":"application/json","response_json_schema":{"type":"object","properties":{"display_name":{"type":"string"}}}}}`,
}

// TestGeminiSnakeCaseFields: the REST API reads a field by its JSON name
// or its proto name alike, so a request spelled in snake_case decodes to
// what the same request in camelCase does (system prompt, messages, calls
// and signatures, tools, parameters by their camelCase names, response
// schema), and a replay compares what the model was sent whichever
// spelling the agent uses.
func TestGeminiSnakeCaseFields(t *testing.T) {
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	var calls [2]*wire.Call
	for i, body := range geminiBothSpellings {
		c, err := wire.Decode(path, []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		calls[i] = c
	}
	camel, snake := calls[0], calls[1]
	if len(camel.Request.Messages) != 4 || len(camel.Request.Tools) != 1 || len(camel.Request.Params) != 9 {
		t.Fatalf("the camelCase request decodes to %d messages, %d tools, %d parameters, want 4, 1, 9: %+v",
			len(camel.Request.Messages), len(camel.Request.Tools), len(camel.Request.Params), camel.Request)
	}
	if got, want := fmt.Sprintf("%+v", snake.Request.Messages), fmt.Sprintf("%+v", camel.Request.Messages); got != want {
		t.Errorf("messages in snake_case:\n%s\nin camelCase:\n%s", got, want)
	}
	if got, want := fmt.Sprintf("%+v", snake.Request.Tools), fmt.Sprintf("%+v", camel.Request.Tools); got != want {
		t.Errorf("tools in snake_case:\n%s\nin camelCase:\n%s", got, want)
	}
	if got, want := string(snake.Request.ResponseSchema), string(camel.Request.ResponseSchema); got != want || got == "" {
		t.Errorf("response schema in snake_case %s, in camelCase %s", got, want)
	}
	if got, want := decodeParams(t, path, geminiBothSpellings[1]), decodeParams(t, path, geminiBothSpellings[0]); got != want {
		t.Errorf("parameters in snake_case:\n%s\nin camelCase:\n%s", got, want)
	}
}

// TestGeminiBothSpellingsRefused: a field sent in both spellings is one
// field sent twice, which the API refuses; so does the decoder, naming
// both, rather than choosing one.
func TestGeminiBothSpellingsRefused(t *testing.T) {
	for _, c := range []struct{ body, names string }{
		{`{"contents":[],"generationConfig":{"temperature":1},"generation_config":{"temperature":0}}`, "generationConfig and generation_config"},
		{`{"contents":[],"generationConfig":{"maxOutputTokens":8,"max_output_tokens":9}}`, "maxOutputTokens and max_output_tokens"},
		{`{"contents":[],"systemInstruction":{"parts":[{"text":"A"}]},"system_instruction":{"parts":[{"text":"B"}]}}`, "systemInstruction and system_instruction"},
		{`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"a"},"function_call":{"name":"b"}}]}]}`, "functionCall and function_call"},
	} {
		_, err := wire.Decode("/v1beta/models/gemini-2.5-flash:generateContent", []byte(c.body))
		if !errors.Is(err, wire.ErrRequest) || !strings.Contains(fmt.Sprint(err), c.names) {
			t.Errorf("%s: %v, want a request error naming %s", c.body, err, c.names)
		}
	}
}

// TestGeminiUserTurnParts: a user turn's text and function responses are
// the user's and the tools' messages; a functionCall there (the model's
// part, in the user's turn) is refused naming it, and a part of another
// kind (inline data) is dropped.
func TestGeminiUserTurnParts(t *testing.T) {
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	c, err := wire.Decode(path, []byte(`{"contents":[{"role":"user","parts":[{"text":"Look:"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"text":"What is it?"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Request.Messages) != 1 || c.Request.Messages[0].Content != "Look:\nWhat is it?" {
		t.Errorf("messages %+v, want one user message of both texts", c.Request.Messages)
	}
	_, err = wire.Decode(path, []byte(`{"contents":[{"role":"user","parts":[{"text":"Hi."},{"functionCall":{"name":"read_file","args":{}}}]}]}`))
	if !errors.Is(err, wire.ErrRequest) || !strings.Contains(fmt.Sprint(err), "contents[0].parts[1]: a functionCall in a user turn") {
		t.Errorf("a functionCall in a user turn: err = %v, want one naming contents[0].parts[1]", err)
	}
}
