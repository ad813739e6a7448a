package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DecodeArguments decodes JSON object arguments into v, which must be a pointer.
// Unknown fields and trailing data are errors; empty arguments decode as {}.
// The error names the offending field so that the model can fix it.
func DecodeArguments(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Kind: KindValidation, Err: fmt.Errorf("decoding arguments: %w", err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Kind: KindValidation, Err: fmt.Errorf("decoding arguments: unexpected data after the object")}
	}
	return nil
}
