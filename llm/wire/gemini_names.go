package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// The Gemini API reads a request's fields by their JSON names
// (lowerCamelCase: generationConfig) and by their proto names
// (snake_case: generation_config) alike, as every Google REST API does:
// curl examples and hand-written clients send the latter. The decoder
// folds each proto name into its JSON name, so that a request decodes to
// the same call, and pins the same parameters, whichever spelling it
// uses; a field sent under both names is refused, as the API refuses one
// field sent twice. Keys that are data rather than field names are kept as
// sent: a call's args, a function's response, a schema's properties (and
// the schemas themselves: responseSchema, responseJsonSchema, a
// declaration's parameters).

// geminiProtoNames are the GenerateContentRequest fields decodeGemini
// reads, by their proto names.
type geminiProtoNames struct {
	ProtoSystemInstruction *geminiContent             `json:"system_instruction"`
	ProtoToolConfig        json.RawMessage            `json:"tool_config"`
	ProtoSafetySettings    json.RawMessage            `json:"safety_settings"`
	ProtoCachedContent     json.RawMessage            `json:"cached_content"`
	ProtoGenerationConfig  map[string]json.RawMessage `json:"generation_config"`
}

// geminiSchemaKeys are the generationConfig keys whose values are schemas,
// kept as sent.
var geminiSchemaKeys = map[string]bool{"responseSchema": true, "responseJsonSchema": true}

// fold moves the fields r got by their proto names to their JSON names,
// the keys of toolConfig, safetySettings and generationConfig (but its
// schemas) too. The error, wrapping ErrRequest, names a field sent under
// both names.
func (r *geminiRequest) fold() error {
	p := r.geminiProtoNames
	r.geminiProtoNames = geminiProtoNames{}
	if err := foldPtr(&r.SystemInstruction, &p.ProtoSystemInstruction, "systemInstruction"); err != nil {
		return requestErrorf("%v", err)
	}
	for _, f := range []struct {
		camel, proto *json.RawMessage
		name         string
	}{
		{&r.ToolConfig, &p.ProtoToolConfig, "toolConfig"},
		{&r.SafetySettings, &p.ProtoSafetySettings, "safetySettings"},
		{&r.CachedContent, &p.ProtoCachedContent, "cachedContent"},
	} {
		if err := foldRaw(f.camel, f.proto, f.name); err != nil {
			return requestErrorf("%v", err)
		}
		v, err := camelKeys(*f.camel)
		if err != nil {
			return requestErrorf("%s: %v", f.name, err)
		}
		*f.camel = v
	}
	if r.GenerationConfig != nil && p.ProtoGenerationConfig != nil {
		return requestErrorf("%v", bothSent("generationConfig"))
	}
	config := r.GenerationConfig
	if config == nil {
		config = p.ProtoGenerationConfig
	}
	config, err := camelConfig(config)
	if err != nil {
		return requestErrorf("generationConfig: %v", err)
	}
	r.GenerationConfig = config
	return nil
}

// camelConfig returns a generationConfig by its keys' JSON names, each
// value's keys too but a schema's; config itself when it names none by its
// proto name.
func camelConfig(config map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	plain := true
	for k, v := range config {
		if strings.Contains(k, "_") || !geminiSchemaKeys[k] && bytes.Contains(v, []byte("_")) {
			plain = false
			break
		}
	}
	if plain {
		return config, nil
	}
	out := make(map[string]json.RawMessage, len(config))
	for _, k := range slices.Sorted(maps.Keys(config)) {
		name := camelName(k)
		if _, ok := out[name]; ok {
			return nil, bothSent(name)
		}
		v := config[k]
		if !geminiSchemaKeys[name] {
			var err error
			if v, err = camelKeys(v); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		out[name] = v
	}
	return out, nil
}

// fold moves the fields p got by their proto names to their JSON names;
// the error names a field sent under both.
func (p *geminiPart) fold() error {
	if err := foldPtr(&p.FunctionCall, &p.ProtoFunctionCall, "functionCall"); err != nil {
		return err
	}
	if err := foldPtr(&p.FunctionResponse, &p.ProtoFunctionResponse, "functionResponse"); err != nil {
		return err
	}
	if p.ProtoThoughtSignature != "" {
		if p.ThoughtSignature != "" {
			return bothSent("thoughtSignature")
		}
		p.ThoughtSignature, p.ProtoThoughtSignature = p.ProtoThoughtSignature, ""
	}
	return nil
}

// foldPtr moves *proto to *camel, the field called name; an error when
// both were sent.
func foldPtr[T any](camel, proto **T, name string) error {
	if *proto == nil {
		return nil
	}
	if *camel != nil {
		return bothSent(name)
	}
	*camel, *proto = *proto, nil
	return nil
}

// foldSlice moves *proto to *camel, the field called name; an error when
// both were sent.
func foldSlice[T any](camel, proto *[]T, name string) error {
	if *proto == nil {
		return nil
	}
	if *camel != nil {
		return bothSent(name)
	}
	*camel, *proto = *proto, nil
	return nil
}

// foldRaw moves *proto to *camel, the field called name (null counting as
// not sent); an error when both were sent.
func foldRaw(camel, proto *json.RawMessage, name string) error {
	if compact(*proto) == nil {
		return nil
	}
	if compact(*camel) != nil {
		return bothSent(name)
	}
	*camel, *proto = *proto, nil
	return nil
}

// bothSent is the error of a field, named by its JSON name, sent under its
// proto name too.
func bothSent(name string) error {
	return fmt.Errorf("%s and %s both sent: one field given twice", name, protoName(name))
}

// camelName returns a proto field name's JSON name (max_output_tokens:
// maxOutputTokens); a name without an underscore is returned as it is.
func camelName(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// protoName returns a JSON field name's proto name (maxOutputTokens:
// max_output_tokens).
func protoName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// camelKeys returns raw with every object key in it (at any depth) by its
// JSON name, for a value whose keys are all field names, in their order
// and with the values as sent; raw itself when none is a proto name. The
// error names a key given under both names.
func camelKeys(raw json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(raw, []byte("_")) || !json.Valid(raw) {
		return raw, nil // not JSON: kept as sent, as compact keeps it
	}
	out, changed, err := camelValue(raw)
	if err != nil || !changed {
		return raw, err
	}
	return out, nil
}

// camelValue returns raw, valid JSON, with its objects' keys by their JSON
// names, and whether any was renamed.
func camelValue(raw json.RawMessage) (json.RawMessage, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' && raw[0] != '[' {
		return raw, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	open, _ := dec.Token()
	object := open == json.Delim('{')
	var b bytes.Buffer
	b.WriteByte(raw[0])
	seen := map[string]bool{}
	changed := false
	for n := 0; dec.More(); n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		if object {
			t, _ := dec.Token()
			k, _ := t.(string)
			name := camelName(k)
			if seen[name] {
				return nil, false, bothSent(name)
			}
			seen[name] = true
			changed = changed || name != k
			b.Write(marshal(name))
			b.WriteByte(':')
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw, false, nil
		}
		w, c, err := camelValue(v)
		if err != nil {
			return nil, false, err
		}
		changed = changed || c
		b.Write(w)
	}
	if object {
		b.WriteByte('}')
	} else {
		b.WriteByte(']')
	}
	return b.Bytes(), changed, nil
}
