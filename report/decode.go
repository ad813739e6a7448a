package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrResult is wrapped by every error about a file that is not a result
// tapeloop can read: not JSON, a field of the wrong type, an unknown format.
var ErrResult = errors.New("not a tapeloop result")

// maxResultBytes bounds a result file read whole: a larger file is refused
// before it is read. A variable so that a test can lower it.
var maxResultBytes int64 = 1 << 30

// FormatOf returns the format field of a JSON result ("" when absent).
func FormatOf(name string, data []byte) (string, error) {
	var head struct {
		Format string `json:"format"`
	}
	if err := decodeJSON(name, data, &head); err != nil {
		return "", err
	}
	return head.Format, nil
}

// ReadReplay reads the replay result at path.
func ReadReplay(path string) (*Replay, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeReplay(path, data)
}

func readFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading result: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrResult, path)
	}
	if info.Size() > maxResultBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the limit of %d", ErrResult, path, info.Size(), maxResultBytes)
	}
	return os.ReadFile(path)
}

// decodeJSON decodes data into v, and on failure returns an error wrapping
// ErrResult that names the file, the line and column, and the field.
func decodeJSON(name string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset-1) // the offending byte
		return fmt.Errorf("%w: %s:%d:%d: %v", ErrResult, name, line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return fmt.Errorf("%w: %s:%d:%d: %s: a JSON %s where %s belongs", ErrResult, name, line, col, typ.Field, typ.Value, typ.Type)
	default:
		return fmt.Errorf("%w: %s: %v", ErrResult, name, err)
	}
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = max(offset, 0)
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := string(data[:offset])
	line = strings.Count(before, "\n") + 1
	col = int(offset) - strings.LastIndexByte(before, '\n')
	return line, col
}

// Result is a result of any format of the family that the HTML and JUnit
// renderers take: a *Replay or an *Eval.
type Result interface {
	WriteJSON(io.Writer) error
	WriteHTML(io.Writer) error
	WriteJUnit(io.Writer) error
}

// Read reads the result at path, a replay result or an eval report by its
// format field.
func Read(path string) (Result, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	format, err := FormatOf(path, data)
	if err != nil {
		return nil, err
	}
	switch format {
	case ReplayFormat:
		return DecodeReplay(path, data)
	case EvalFormat:
		e, err := ReadEval(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return e, nil
	default:
		return nil, fmt.Errorf("%w: %s: format %q, want %s or %s", ErrResult, path, format, ReplayFormat, EvalFormat)
	}
}
