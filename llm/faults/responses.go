package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// truncateResponsesJSON cuts the arguments of every function_call item of
// a whole Responses API answer.
func truncateResponsesJSON(data []byte) ([]byte, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	for _, it := range list(v["output"]) {
		item := obj(it)
		if args, ok := item["arguments"].(string); ok && item["type"] == "function_call" {
			item["arguments"] = half(args)
		}
	}
	return json.Marshal(v)
}

// truncateResponsesStream cuts the arguments of a streamed Responses API
// answer to half of each call's, consistently: the
// response.function_call_arguments.delta events keep the first half of
// the text (later ones emptied), and the events that repeat the whole
// arguments (response.function_call_arguments.done, the call's
// response.output_item.done, and the response.completed or
// response.incomplete response) hold that half. Other events pass byte
// for byte.
func truncateResponsesStream(data []byte) ([]byte, error) {
	type event struct {
		raw  []byte
		data map[string]any
	}
	var events []event
	whole := map[string]string{} // by output_index: the call's arguments
	deltas := map[string]string{}
	for len(data) > 0 {
		end := eventEnd(data)
		if end < 0 {
			end = len(data)
		}
		ev := event{raw: data[:end]}
		data = data[end:]
		if payload, ok := dataLine(ev.raw); ok {
			if v, err := decode([]byte(payload)); err == nil {
				ev.data = v
				key := fmt.Sprint(v["output_index"])
				switch v["type"] {
				case "response.function_call_arguments.delta":
					s, _ := v["delta"].(string)
					deltas[key] += s
				case "response.function_call_arguments.done":
					whole[key], _ = v["arguments"].(string)
				}
			}
		}
		events = append(events, ev)
	}
	cut := func(key string) (string, bool) {
		w, ok := whole[key]
		if !ok {
			w, ok = deltas[key]
		}
		return half(w), ok
	}
	kept := map[string]int{}
	var out bytes.Buffer
	for _, ev := range events {
		v := ev.data
		if v == nil {
			out.Write(ev.raw)
			continue
		}
		key := fmt.Sprint(v["output_index"])
		changed := true
		switch v["type"] {
		case "response.function_call_arguments.delta":
			h, _ := cut(key)
			s, _ := v["delta"].(string)
			budget := len(h) - kept[key]
			piece := ""
			if budget > 0 {
				piece = h[kept[key]:min(len(h), kept[key]+len(s))]
			}
			kept[key] += len(piece)
			v["delta"] = piece
		case "response.function_call_arguments.done":
			v["arguments"], _ = cut(key)
		case "response.output_item.done":
			item := obj(v["item"])
			if _, ok := item["arguments"].(string); ok && item["type"] == "function_call" {
				item["arguments"], _ = cut(key)
			} else {
				changed = false
			}
		case "response.completed", "response.incomplete":
			for i, it := range list(obj(v["response"])["output"]) {
				item := obj(it)
				if h, ok := cut(fmt.Sprint(i)); ok && item["type"] == "function_call" {
					item["arguments"] = h
				}
			}
		default:
			changed = false
		}
		if !changed {
			out.Write(ev.raw)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out.WriteString(replaceData(ev.raw, b))
	}
	return out.Bytes(), nil
}
