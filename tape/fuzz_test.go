package tape_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/tape"
)

// FuzzDecode checks that any input decodes to a tape or an ErrFormat error,
// never a panic, and that a decoded tape re-encodes and re-decodes to an
// equal tape, whose encoding is then stable.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"format: tapeloop/v1\ntape: []\n",
		"format: tapeloop/v1\ntape:\n  - error: x\n",
		"format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n        - {name: f, arguments: {a: [1, 2.5, true, null, x]}}\n",
		"format: tapeloop/v1\ntape:\n  - response: {content: !!binary aGk=}\n    request: {tools: [a], last_message: {role: user}}\n",
		"format: tapeloop/v1\ntape:\n  - response: &a {}\n  - response: *a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := tape.Decode(bytes.NewReader(data), "f.yaml")
		if err != nil {
			if !errors.Is(err, tape.ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := tape.Encode(&out, tp); err != nil {
			t.Fatalf("decoded tape does not encode: %v", err)
		}
		back, err := tape.Decode(bytes.NewReader(out.Bytes()), "f.yaml")
		if err != nil {
			t.Fatalf("encoding does not decode: %v\n%s", err, out.Bytes())
		}
		if !reflect.DeepEqual(zeroLines(back), zeroLines(tp)) {
			t.Fatalf("round trip changed the tape\n%s\ngot  %#v\nwant %#v", out.Bytes(), back.Entries, tp.Entries)
		}
		var again bytes.Buffer
		if err := tape.Encode(&again, back); err != nil || !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("encoding is not stable (%v):\n%s", err, lineDiff(out.String(), again.String()))
		}
	})
}
