package tape

import (
	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/llm"
)

// DecodeMessages decodes a sequence of messages, such as a scenario's `input:`,
// with the same strictness as a tape: errors name the file, line and key, the
// key path starting at key. A nil node is an error.
func DecodeMessages(filename, key string, node *yaml.Node) ([]llm.Message, error) {
	if node == nil {
		return nil, &fileerr.Error{Kind: ErrFormat, File: filename, Key: key, Problem: "missing (want a sequence of messages)"}
	}
	out, err := newDecoder(filename).messages(node, key)
	return out, formatError(err)
}
