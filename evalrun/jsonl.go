package evalrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxJSONLine caps one line of --jsonl input.
const maxJSONLine = 64 << 20

// eachJSONLine is the --jsonl loop of a filter command: it calls fn on each
// non-blank line of stdin (lineNo counts from 1, blank lines included) and
// writes each result fn returns as one line of JSON, in input order. An error
// from fn means the line is malformed. It returns exitOK once stdin is read,
// or exitUsage, after writing the results so far and the diagnostic
// "evalrun cmd: stdin:N: …", when a line is malformed or too long, stdin or
// stdout fails, or ctx is cancelled.
func eachJSONLine(ctx context.Context, e *env, cmd string, fn func(lineNo int, line []byte) (any, error)) int {
	out := bufio.NewWriter(e.stdout)
	enc := newJSONEncoder(out)
	fail := func(format string, args ...any) int {
		out.Flush() // the results before the failure still count
		fmt.Fprintf(e.stderr, "evalrun %s: "+format+"\n", append([]any{cmd}, args...)...)
		return exitUsage
	}
	sc := bufio.NewScanner(e.stdin)
	sc.Buffer(make([]byte, 0, 64<<10), maxJSONLine)
	n := 0
	for sc.Scan() {
		n++
		if err := ctx.Err(); err != nil {
			return fail("stdin:%d: %v", n, err)
		}
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := fn(n, line)
		if err != nil {
			return fail("stdin:%d: malformed line: %v", n, err)
		}
		if err := enc.Encode(v); err != nil {
			return fail("stdin:%d: writing the result: %v", n, err)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fail("stdin:%d: line longer than %d MiB", n+1, maxJSONLine>>20)
	} else if err != nil {
		return fail("stdin:%d: reading: %v", n+1, err)
	}
	if err := out.Flush(); err != nil {
		return fail("writing stdout: %v", err)
	}
	return exitOK
}

// writeJSONLine writes v as one line of JSON without HTML escaping.
func writeJSONLine(w io.Writer, v any) error { return newJSONEncoder(w).Encode(v) }

// newJSONEncoder returns an encoder that writes one value a line without HTML
// escaping, as every filter command prints.
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
