package wire_test

import (
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
