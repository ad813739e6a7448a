package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
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
	Text  *string   `json:"text"`
	Tools *toolList `json:"tools"`
}

// toolList is a JSON list of offered tools, each a name ("get_time") or an
// object with the tool's JSON Schema ({"name": "add", "parameters": {...}}).
type toolList []llm.ToolDefinition

// UnmarshalJSON decodes the list, naming the position (from 1) of a malformed
// tool.
func (l *toolList) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(toolList, 0, len(raw))
	for i, r := range raw {
		t, err := decodeTool(r)
		if err != nil {
			return fmt.Errorf("tool %d%s", i+1, err)
		}
		out = append(out, t)
	}
	*l = out
	return nil
}

// decodeTool decodes one tool of a toolList; its error text follows the
// tool's position.
func decodeTool(r json.RawMessage) (llm.ToolDefinition, error) {
	var name string
	if json.Unmarshal(r, &name) == nil {
		if name == "" {
			return llm.ToolDefinition{}, errors.New(": empty name")
		}
		return llm.ToolDefinition{Name: name}, nil
	}
	var obj struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if len(bytes.TrimSpace(r)) == 0 || bytes.TrimSpace(r)[0] != '{' || json.Unmarshal(r, &obj) != nil {
		return llm.ToolDefinition{}, errors.New(`: want a name or {"name": ..., "parameters": {...}}`)
	}
	if obj.Name == "" {
		return llm.ToolDefinition{}, errors.New(`: missing "name"`)
	}
	p := bytes.TrimSpace(obj.Parameters)
	if len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return llm.ToolDefinition{}, fmt.Errorf(` (%s): "parameters" must be a JSON Schema object`, obj.Name)
	}
	if len(p) > 0 && p[0] == '{' {
		if _, err := tools.CompileSchema(json.RawMessage(p)); err != nil {
			return llm.ToolDefinition{}, fmt.Errorf(` (%s): "parameters" is not a valid JSON Schema: %v`, obj.Name, err)
		}
		var typ struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(p, &typ) == nil && typ.Type != nil && typ.Type != "object" {
			return llm.ToolDefinition{}, fmt.Errorf(` (%s): "parameters" must describe an object (the arguments), not type %v`, obj.Name, typ.Type)
		}
		return llm.ToolDefinition{Name: obj.Name, Parameters: json.RawMessage(p)}, nil
	}
	return llm.ToolDefinition{Name: obj.Name}, nil
}

// maxToolsFile caps the size of a --tools-file.
const maxToolsFile = 16 << 20

// maxStdinText caps the text read from stdin (without --jsonl).
const maxStdinText = 16 << 20

// readToolsFile reads a --tools-file: a JSON list as a line's "tools".
func readToolsFile(path string) (toolList, error) {
	data, err := regularfile.Read(path, maxToolsFile)
	if err != nil {
		return nil, fmt.Errorf("--tools-file: %w", err)
	}
	var l toolList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("--tools-file %s: %w", path, err)
	}
	return l, nil
}

// withSchemas returns tools with the schema of each tool offered by name
// alone taken from known, when known has one, each name once (see once).
func withSchemas(tools, known toolList) toolList {
	out := make(toolList, len(tools))
	for i, t := range tools {
		if len(t.Parameters) == 0 {
			for _, k := range known {
				if k.Name == t.Name {
					t.Parameters = k.Parameters
					break
				}
			}
		}
		out[i] = t
	}
	return once(out)
}

// once returns l with each name once, where it first appears; of a
// name's definitions the first with a schema wins (textcalls keeps the last
// definition of a name, so a name given alone after its schema would
// otherwise drop the schema).
func once(l toolList) toolList {
	out := make(toolList, 0, len(l))
	at := make(map[string]int, len(l))
	for _, t := range l {
		i, seen := at[t.Name]
		switch {
		case !seen:
			at[t.Name] = len(out)
			out = append(out, t)
		case len(out[i].Parameters) == 0 && len(t.Parameters) > 0:
			out[i] = t
		}
	}
	return out
}

// extractDoc is extract's --help text.
const extractDoc = `Prints {"calls": [...], "content": "...", "envelope": "..."} for the text. Exit 0
once the input was read, 2 on a usage, input or output error (a malformed or too
long --jsonl line is reported as stdin:N).

Tools are offered by name (--tools, or "tools": ["a", "b"] on a --jsonl line) or
with their JSON Schema, which types the values of XML envelopes ("3" becomes 3
for an integer): "tools": [{"name": "add", "parameters": {...}}], names and
objects mixed, or a --tools-file holding such a list. The file's schemas also
type the tools that a line names alone, and a tool both named and defined is
offered once, with its schema. A schema that does not compile, or does not
describe an object, is an input error naming the tool. The results go to
standard output, or with --json FILE to FILE (written whole once the input is
read; - is standard output); either way a secret in them is redacted.

--formats lists the only formats tried (a call in another one stays text), and
--families reads formats tapeloop does not know from a YAML file, a list of
{name, start, end, args} as setup.loop.text_calls.families takes (see
docs/scenario-format.md); a mistake in it is reported as file:line: key.`

// runExtract reads a model's text on stdin and prints the calls found in it.
// Exit 0 once every text was read, 2 on a usage, input or output error.
//
//	evalrun extract --tools get_time,add [--family hermes] < text
//	evalrun extract --tools-file tools.json < text   # [{"name": "add", "parameters": {...}}, "get_time"]
//	evalrun extract --jsonl [--tools ...] < lines   # {"text": ..., "tools": [...]} a line
//	evalrun extract --tools echo --families fams.yaml --formats bolt < text
func runExtract(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "extract", "evalrun extract [--tools a,b] [--tools-file tools.json] [--family name] [--formats a,b] [--families FILE] [--jsonl] [--json FILE] < input", extractDoc)
	var names stringList
	fs.Var(&names, "tools", "names of the offered tools (repeatable, or comma-separated; with --jsonl: the default for lines without \"tools\")")
	toolsFile := fs.String("tools-file", "", `a JSON list of offered tools, each a name or {"name": ..., "parameters": {JSON Schema}}`)
	family := fs.String("family", "", "optional model family or envelope name tried first")
	var formats stringList
	fs.Var(&formats, "formats", "the only formats tried (repeatable, or comma-separated): known envelope names or declared families; default all")
	familiesFile := fs.String("families", "", "a YAML file declaring formats tapeloop does not know, as setup.loop.text_calls.families")
	jsonl := fs.Bool("jsonl", false, `read one {"text": ..., "tools": [...]} object a line and write one result a line`)
	var jsonPath string
	addJSONFlag(fs, &jsonPath, "the results, one a line")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "evalrun extract: unexpected argument %q\n", args[0])
		return exitUsage
	}
	var known toolList
	if *toolsFile != "" {
		var err error
		if known, err = readToolsFile(*toolsFile); err != nil {
			fmt.Fprintf(e.stderr, "evalrun extract: %v\n", err)
			return exitUsage
		}
	}
	defaults := append(toolList(nil), known...)
	for _, n := range names {
		defaults = append(defaults, llm.ToolDefinition{Name: n})
	}
	defaults = once(defaults)
	opts := &textcalls.Options{Family: *family, Formats: formats}
	if *familiesFile != "" {
		fams, err := scenario.ReadFamilies(*familiesFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun extract: %v\n", err)
			return exitUsage
		}
		opts.Families = fams
	}
	for _, f := range formats {
		if !slices.Contains(textcalls.Envelopes(), f) && !slices.ContainsFunc(opts.Families, func(d textcalls.Family) bool { return d.Name == f }) {
			fmt.Fprintf(e.stderr, "evalrun extract: --formats: unknown format %q: name a declared family or one of %s\n", f, strings.Join(textcalls.Envelopes(), ", "))
			return exitUsage
		}
	}
	return jsonResults(e, "extract", jsonPath, func(w io.Writer) int {
		if *jsonl {
			return extractLines(ctx, e, w, defaults, known, opts)
		}
		text, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinText+1))
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun extract: reading stdin: %v\n", err)
			return exitUsage
		}
		if len(text) > maxStdinText {
			fmt.Fprintf(e.stderr, "evalrun extract: stdin is larger than %d MiB, the limit for one text\n", maxStdinText>>20)
			return exitUsage
		}
		if err := writeJSONLine(w, extractOne(string(text), defaults, opts)); err != nil {
			fmt.Fprintf(e.stderr, "evalrun extract: %v\n", err)
			return exitUsage
		}
		return exitOK
	})
}

// extractLines handles --jsonl, each line's tools defaulting to defaults
// and typed by known's schemas.
func extractLines(ctx context.Context, e *env, w io.Writer, defaults, known toolList, opts *textcalls.Options) int {
	return eachJSONLine(ctx, e, "extract", w, func(_ int, line []byte) (any, error) {
		var in extractInput // other fields are ignored, so corpus records pipe in as they are
		if err := json.Unmarshal(line, &in); err != nil {
			return nil, err
		}
		if in.Text == nil {
			return nil, errors.New(`missing "text"`)
		}
		tools := defaults
		if in.Tools != nil {
			tools = withSchemas(*in.Tools, known)
		}
		return extractOne(*in.Text, tools, opts), nil
	})
}

func extractOne(text string, tools toolList, opts *textcalls.Options) extractOutput {
	res := textcalls.Extract(text, tools, opts)
	o := extractOutput{Calls: []extractCall{}, Content: res.Content, Envelope: res.Envelope}
	for _, c := range res.Calls {
		o.Calls = append(o.Calls, extractCall{Name: c.Name, Arguments: json.RawMessage(c.Arguments), Fixes: c.Fixes})
	}
	return o
}
