package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/redact"
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

// repairDoc is repair's --help text.
const repairDoc = `Repairs broken JSON with the repair cascade. Prints {"output": "...", "fixes": [...]}
or, when the input cannot be repaired, {"error": "..."} (and, without --jsonl, the
message on stderr). Exit 0 when every input was repaired, 1 when one was refused,
2 on a usage, input or output error (a malformed or too long --jsonl line is
reported as stdin:N). The results go to standard output, or with --json FILE
to FILE (written whole once the input is read; - is standard output); either
way a secret in them (a key, a variable named like one) is redacted.`

// runRepair repairs standard input: the whole of it, or with --jsonl one
// {"input": "…"} object a line, writing one result a line in input order.
// Exit 0 when every input was repaired, 1 when one was refused, 2 on a usage,
// input or output error.
func runRepair(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "repair", "evalrun repair [--jsonl] [--json FILE] < input", repairDoc)
	jsonl := fs.Bool("jsonl", false, `read one {"input": "..."} object a line and write one result a line`)
	var jsonPath string
	addJSONFlag(fs, &jsonPath, "the results, one a line")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "evalrun repair: unexpected argument %q (input is read from stdin)\n", args[0])
		return exitUsage
	}
	return jsonResults(e, "repair", jsonPath, func(w io.Writer) int {
		if *jsonl {
			return repairLines(ctx, e, w)
		}
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun repair: reading stdin: %v\n", err)
			return exitUsage
		}
		res := newRepairResult(string(data))
		if err := writeJSONLine(w, res.line()); err != nil {
			fmt.Fprintf(e.stderr, "evalrun repair: %v\n", err)
			return exitUsage
		}
		if res.err != nil {
			fmt.Fprintf(e.stderr, "evalrun repair: %v\n", redact.Default().Quiet(res.err.Error()))
			return exitFailed
		}
		return exitOK
	})
}

// repairLines handles --jsonl: exit 1 when an input was refused.
func repairLines(ctx context.Context, e *env, w io.Writer) int {
	refused := false
	code := eachJSONLine(ctx, e, "repair", w, func(_ int, line []byte) (any, error) {
		var in struct {
			Input *string `json:"input"`
		}
		if err := json.Unmarshal(line, &in); err != nil {
			return nil, err
		}
		if in.Input == nil {
			return nil, errors.New(`missing "input"`)
		}
		res := newRepairResult(*in.Input)
		refused = refused || res.err != nil
		return res.line(), nil
	})
	if code == exitOK && refused {
		return exitFailed
	}
	return code
}
