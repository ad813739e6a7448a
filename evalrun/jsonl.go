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
// writes each result fn returns to w as one line of JSON, in input order, in
// one write each. An error from fn means the line is malformed. It returns
// exitOK once stdin is read, or exitUsage, after the diagnostic
// "evalrun cmd: stdin:N: …", when a line is malformed or too long, stdin or
// w fails, or ctx is cancelled; the results before it have been written.
func eachJSONLine(ctx context.Context, e *env, cmd string, w io.Writer, fn func(lineNo int, line []byte) (any, error)) int {
	enc := newJSONEncoder(w)
	fail := func(format string, args ...any) int {
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
	return exitOK
}

// errInputFailed stops the writing of a filter command's results when its
// input failed (the diagnostic is already printed).
var errInputFailed = errors.New("the input failed")

// jsonResults runs a filter command (repair, extract) whose results are
// JSON lines: produce writes them to w and returns the exit code. They go
// to --json's FILE, or to standard output when path is "" or "-"; either
// way redacted and buffered (writeJSONOutput). A FILE is written only when
// produce returns something other than exitUsage; standard output keeps
// the results written before an input error.
func jsonResults(e *env, cmd, path string, produce func(w io.Writer) int) int {
	if path == "" {
		path = "-"
	}
	code := exitOK
	err := writeJSONOutput(e, path, func(w io.Writer) error {
		if code = produce(w); code == exitUsage {
			return errInputFailed
		}
		return nil
	})
	if err != nil && !errors.Is(err, errInputFailed) {
		fmt.Fprintf(e.stderr, "evalrun %s: --json: %v\n", cmd, err)
		return exitUsage
	}
	return code
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
