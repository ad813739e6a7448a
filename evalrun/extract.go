package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/textcalls"
)

func init() {
	register(&command{name: "extract", summary: "extract tool calls written as text (stdin) as JSON", run: runExtract})
}

// extractOutput is what extract prints for one text.
type extractOutput struct {
	Calls    []extractCall `json:"calls"`
	Content  string        `json:"content"`
	Envelope string        `json:"envelope"`
}

type extractCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Fixes     []string        `json:"fixes,omitempty"`
}

// extractInput is one line of --jsonl input.
type extractInput struct {
	Text  *string  `json:"text"`
	Tools []string `json:"tools"`
}

// extractDoc is extract's --help text.
const extractDoc = `Prints {"calls": [...], "content": "...", "envelope": "..."} for the text. Exit 0
once the input was read, 2 on a usage, input or output error (a malformed or too
long --jsonl line is reported as stdin:N).`

// runExtract reads a model's text on stdin and prints the calls found in it.
// Exit 0 once every text was read, 2 on a usage, input or output error.
//
//	evalrun extract --tools get_time,add [--family hermes] < text
//	evalrun extract --jsonl [--tools ...] < lines   # {"text": ..., "tools": [...]} a line
func runExtract(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "extract", "evalrun extract [--tools a,b] [--family name] [--jsonl] < input", extractDoc)
	var defaults stringList
	fs.Var(&defaults, "tools", "names of the offered tools (repeatable, or comma-separated; with --jsonl: the default for lines without \"tools\")")
	family := fs.String("family", "", "optional model family or envelope name tried first")
	jsonl := fs.Bool("jsonl", false, `read one {"text": ..., "tools": [...]} object a line and write one result a line`)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "evalrun extract: unexpected argument %q\n", args[0])
		return exitUsage
	}
	opts := &textcalls.Options{Family: *family}
	if *jsonl {
		return eachJSONLine(ctx, e, "extract", func(_ int, line []byte) (any, error) {
			var in extractInput // other fields are ignored, so corpus records pipe in as they are
			if err := json.Unmarshal(line, &in); err != nil {
				return nil, err
			}
			if in.Text == nil {
				return nil, errors.New(`missing "text"`)
			}
			tools := []string(defaults)
			if in.Tools != nil {
				tools = in.Tools
			}
			return extractOne(*in.Text, tools, opts), nil
		})
	}
	text, err := io.ReadAll(e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun extract: reading stdin: %v\n", err)
		return exitUsage
	}
	if err := writeJSONLine(e.stdout, extractOne(string(text), defaults, opts)); err != nil {
		fmt.Fprintf(e.stderr, "evalrun extract: %v\n", err)
		return exitUsage
	}
	return exitOK
}

func extractOne(text string, names []string, opts *textcalls.Options) extractOutput {
	tools := make([]llm.ToolDefinition, 0, len(names))
	for _, n := range names {
		tools = append(tools, llm.ToolDefinition{Name: n})
	}
	res := textcalls.Extract(text, tools, opts)
	o := extractOutput{Calls: []extractCall{}, Content: res.Content, Envelope: res.Envelope}
	for _, c := range res.Calls {
		o.Calls = append(o.Calls, extractCall{Name: c.Name, Arguments: json.RawMessage(c.Arguments), Fixes: c.Fixes})
	}
	return o
}
