package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// A Bedrock Converse answer holds a call's input as a JSON object, as
// Gemini's does: truncated, a call keeps the first half of its keys. A
// ConverseStream sends the input as text, in contentBlockDelta events'
// toolUse.input fragments: truncated, each call keeps the first half of
// that text, as the other streamed dialects do. Events that hold no
// fragment pass byte for byte.

// truncateBedrockJSON cuts the calls of a whole Converse answer.
func truncateBedrockJSON(data []byte) ([]byte, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	found := false
	output, _ := v["output"].(map[string]any)
	msg, _ := output["message"].(map[string]any)
	for _, b := range list(msg["content"]) {
		tu, _ := obj(b)["toolUse"].(map[string]any)
		if input, ok := tu["input"].(map[string]any); ok {
			halveKeys(input)
			found = true
		}
	}
	if !found {
		return data, nil
	}
	return json.Marshal(v)
}

// truncateBedrockStream cuts the calls of a ConverseStream answer, a
// binary AWS event stream.
func truncateBedrockStream(data []byte) ([]byte, error) {
	type event struct {
		raw   []byte
		msg   eventstream.Message
		data  map[string]any
		frags []fragment
	}
	var events []event
	var all []fragment
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(data)
	for r.Len() > 0 {
		start := len(data) - r.Len()
		msg, err := dec.Decode(r, nil)
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("reading the event stream: %w", err)
		}
		ev := event{raw: data[start : len(data)-r.Len()], msg: msg}
		if t, _ := msg.Headers.Get(":event-type").(eventstream.StringValue); t == "contentBlockDelta" {
			if v, err := decode(msg.Payload); err == nil {
				delta, _ := v["delta"].(map[string]any)
				tu, _ := delta["toolUse"].(map[string]any)
				if s, ok := tu["input"].(string); ok {
					ev.data = v
					ev.frags = []fragment{{key: fmt.Sprint(v["contentBlockIndex"]), text: s, set: func(t string) { tu["input"] = t }}}
					all = append(all, ev.frags...)
				}
			}
		}
		events = append(events, ev)
	}
	halveFragments(all)
	var out bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, ev := range events {
		if len(ev.frags) == 0 {
			out.Write(ev.raw)
			continue
		}
		payload, err := json.Marshal(ev.data)
		if err != nil {
			return nil, err
		}
		ev.msg.Payload = payload
		if err := enc.Encode(&out, ev.msg); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}
