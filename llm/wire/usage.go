package wire

import (
	"bytes"
	"encoding/json"
)

// hasKey reports whether the JSON object b holds a non-null value at path,
// each step a key of an object: a vendor's usage states a count it
// reports, even zero, and leaves out one it does not.
func hasKey(b []byte, path ...string) bool {
	for _, k := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return false
		}
		v, ok := m[k]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return false
		}
		b = v
	}
	return true
}
