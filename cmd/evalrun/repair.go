package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/tapeloop/tapeloop/llm/repair"
)

func init() {
	register(&command{
		name:    "repair",
		summary: "repair broken JSON from stdin with the repair cascade (--jsonl: one {\"input\": …} a line)",
		run:     runRepair,
	})
}

// repairResult is one result: the repaired output and its fixes, or the
// refusal's message.
type repairResult struct {
	output string
	fixes  []string
	err    error
}

// newRepairResult runs the cascade on input.
func newRepairResult(input string) repairResult {
	out, fixes, err := repair.Repair(input)
	if fixes == nil {
		fixes = []string{}
	}
	return repairResult{output: out, fixes: fixes, err: err}
}

// line is what the result prints: {"output": …, "fixes": […]} or {"error": …}.
func (r repairResult) line() any {
	if r.err != nil {
		return struct {
			Error string `json:"error"`
		}{r.err.Error()}
	}
	return struct {
		Output string   `json:"output"`
		Fixes  []string `json:"fixes"`
	}{r.output, r.fixes}
}

// runRepair repairs standard input: the whole of it, or with --jsonl one
// {"input": "…"} object a line, writing one result a line in input order.
// Exit 0 when every input was repaired, 1 when one was refused, 2 on a usage or
// input error.
func runRepair(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("evalrun repair", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	jsonl := fs.Bool("jsonl", false, `read one {"input": "..."} object a line and write one result a line`)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: evalrun repair [--jsonl] < input")
		fmt.Fprintln(e.stderr, `
Repairs broken JSON with the repair cascade. Prints {"output": "...", "fixes": [...]}
or, when the input cannot be repaired, {"error": "..."} (and the message on stderr).`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "evalrun repair: unexpected argument %q (input is read from stdin)\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if *jsonl {
		return repairLines(ctx, e)
	}
	data, err := io.ReadAll(e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun repair: reading stdin: %v\n", err)
		return exitUsage
	}
	res := newRepairResult(string(data))
	if err := writeJSONLine(e.stdout, res.line()); err != nil {
		fmt.Fprintf(e.stderr, "evalrun repair: %v\n", err)
		return exitUsage
	}
	if res.err != nil {
		fmt.Fprintf(e.stderr, "evalrun repair: %v\n", res.err)
		return exitFailed
	}
	return exitOK
}

// repairLines handles --jsonl.
func repairLines(ctx context.Context, e *env) int {
	r := bufio.NewReaderSize(e.stdin, 1<<16)
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	code := exitOK
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(e.stderr, "evalrun repair: %v\n", err)
			return exitUsage
		}
		text, err := r.ReadBytes('\n')
		if len(text) > 0 && !isBlank(text) {
			var in struct {
				Input *string `json:"input"`
			}
			if jerr := json.Unmarshal(text, &in); jerr != nil || in.Input == nil {
				if jerr == nil {
					jerr = errors.New(`no "input" field`)
				}
				w.Flush()
				fmt.Fprintf(e.stderr, "evalrun repair: stdin:%d: malformed line: %v\n", line, jerr)
				return exitUsage
			}
			res := newRepairResult(*in.Input)
			if res.err != nil {
				code = exitFailed
			}
			if werr := writeJSONLine(w, res.line()); werr != nil {
				fmt.Fprintf(e.stderr, "evalrun repair: %v\n", werr)
				return exitUsage
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Flush()
			fmt.Fprintf(e.stderr, "evalrun repair: reading stdin: %v\n", err)
			return exitUsage
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "evalrun repair: %v\n", err)
		return exitUsage
	}
	return code
}

// isBlank reports a line of whitespace only.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// writeJSONLine writes v as one line of JSON without HTML escaping.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
