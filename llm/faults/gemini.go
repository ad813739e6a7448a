package faults

import (
	"bytes"
	"encoding/json"
	"slices"
)

// A Gemini call's args are a JSON object, not text: there is no half of
// its text to send. Truncated, a call keeps the first half of its keys
// (in sorted order, rounded down), as a model cut short mid-call leaves
// the keys it had not written out, and a stream, which carries each call
// whole in one chunk, says the same. Values holding no call pass byte for
// byte.

// truncateGeminiJSON cuts the calls of a whole Gemini answer.
func truncateGeminiJSON(data []byte) ([]byte, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	if !halveGeminiCalls(v) {
		return data, nil
	}
	return json.Marshal(v)
}

// truncateGeminiStream cuts the calls of each chunk of a Gemini stream.
func truncateGeminiStream(data []byte) ([]byte, error) {
	var out bytes.Buffer
	for len(data) > 0 {
		end := eventEnd(data)
		if end < 0 {
			end = len(data)
		}
		ev := data[:end]
		data = data[end:]
		payload, ok := dataLine(ev)
		if !ok {
			out.Write(ev)
			continue
		}
		v, err := decode([]byte(payload))
		if err != nil || !halveGeminiCalls(v) {
			out.Write(ev)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out.WriteString(replaceData(ev, b))
	}
	return out.Bytes(), nil
}

// halveGeminiCalls keeps the first half of the keys of each functionCall's
// args in v's candidates; false when v holds no call with args.
func halveGeminiCalls(v map[string]any) bool {
	found := false
	for _, c := range list(v["candidates"]) {
		content, _ := obj(c)["content"].(map[string]any)
		for _, p := range list(content["parts"]) {
			fc, _ := obj(p)["functionCall"].(map[string]any)
			args, ok := fc["args"].(map[string]any)
			if !ok {
				continue
			}
			found = true
			halveKeys(args)
		}
	}
	return found
}

// halveKeys keeps the first half of obj's keys (sorted, rounded down).
func halveKeys(obj map[string]any) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys[len(keys)/2:] {
		delete(obj, k)
	}
}
