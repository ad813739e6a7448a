package replay

import (
	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
)

// DecodeMessages decodes a sequence of messages, such as a scenario's `input:`,
// with the same strictness as a tape: errors name the file, line and key, the
// key path starting at key. A nil node is an error.
func DecodeMessages(filename, key string, node *yaml.Node) ([]llm.Message, error) {
	d := &decoder{file: filename}
	if node == nil {
		return nil, &FormatError{File: filename, Key: key, Problem: "missing (want a sequence of messages)"}
	}
	if err := d.want(node, key, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]llm.Message, 0, len(node.Content))
	for i, c := range node.Content {
		m, err := d.message(c, index(key, i))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
