package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/textcalls"
)

func runExtractCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWithStdin(t, stdin, append([]string{"extract"}, args...)...)
}

func TestExtractCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{
			name:   "hermes",
			args:   []string{"--tools", "get_time,add"},
			stdin:  "Checking.\n<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n",
			stdout: `{"calls":[{"name":"get_time","arguments":{"city":"Paris"}}],"content":"Checking.","envelope":"hermes"}` + "\n",
		},
		{
			name:   "no call gives empty list",
			args:   []string{"--tools", "get_time"},
			stdin:  "Just prose.",
			stdout: `{"calls":[],"content":"Just prose.","envelope":""}` + "\n",
		},
		{
			name:   "not offered",
			stdin:  `<tool_call>{"name": "get_time", "arguments": {}}</tool_call>`,
			stdout: `{"calls":[],"content":"<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>","envelope":""}` + "\n",
		},
		{
			name:  "jsonl in order",
			args:  []string{"--jsonl", "--tools", "add"},
			stdin: `{"text": "[TOOL_CALLS]get_time[ARGS]{\"city\": \"Rome\"}", "tools": ["get_time"]}` + "\n\n" + `{"text": "<|tool_call_start|>[add(a=1)]<|tool_call_end|>"}` + "\n",
			stdout: `{"calls":[{"name":"get_time","arguments":{"city":"Rome"}}],"content":"","envelope":"mistral"}` + "\n" +
				`{"calls":[{"name":"add","arguments":{"a":1}}],"content":"","envelope":"pythonic"}` + "\n",
		},
		{
			name:   "jsonl malformed line",
			args:   []string{"--jsonl"},
			stdin:  `{"text": "hi", "tools": []}` + "\n" + `{"text": ` + "\n",
			code:   exitUsage,
			stdout: `{"calls":[],"content":"hi","envelope":""}` + "\n",
			stderr: "evalrun extract: stdin:2: malformed line: unexpected end of JSON input\n",
		},
		{
			name:   "jsonl missing text",
			args:   []string{"--jsonl"},
			stdin:  `{"tools": []}` + "\n",
			code:   exitUsage,
			stderr: "evalrun extract: stdin:1: malformed line: missing \"text\"\n",
		},
		{
			name:   "no family hint",
			args:   []string{"--tools", "get_time,add"},
			stdin:  hermesAndFence,
			stdout: hermesFirst,
		},
		{
			name:   "family hint",
			args:   []string{"--tools", "get_time", "--tools", "add", "--family", "fenced_json"},
			stdin:  hermesAndFence,
			stdout: `{"calls":[{"name":"add","arguments":{"a":1}}],"content":"<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>","envelope":"fenced_json"}` + "\n",
		},
		{
			name:   "unknown family hint",
			args:   []string{"--tools", "get_time,add", "--family", "bogus"},
			stdin:  hermesAndFence,
			stdout: hermesFirst,
		},
		{
			name:  "unknown flag",
			args:  []string{"--bogus"},
			code:  exitUsage,
			stdin: "",
		},
		{
			name:   "stray argument",
			args:   []string{"file.txt"},
			code:   exitUsage,
			stderr: "evalrun extract: unexpected argument \"file.txt\"\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runExtractCmd(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if tc.stderr != "" && stderr != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
			if tc.stderr == "" && tc.code == exitOK && stderr != "" {
				t.Errorf("stderr %q, want it empty", stderr)
			}
		})
	}
}

// TestExtractCommandFormats: --families declares formats from a file and
// --formats keeps only the ones listed; a mistake in either is a usage
// error naming the file, the line and the key.
func TestExtractCommandFormats(t *testing.T) {
	dir := t.TempDir()
	fams := filepath.Join(dir, "fams.yaml")
	if err := os.WriteFile(fams, []byte("- {name: bolt, start: \"@@call \", end: \" @@\", args: xml}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("- name: bolt\n  start: \"@@\"\n  args: toml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const bolt = "Echoing.\n@@call get_time<city>Oslo</city> @@"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "declared family", args: []string{"--tools", "get_time", "--families", fams}, stdin: bolt,
			stdout: `{"calls":[{"name":"get_time","arguments":{"city":"Oslo"}}],"content":"Echoing.","envelope":"bolt"}` + "\n"},
		{name: "known format left out", args: []string{"--tools", "get_time", "--families", fams, "--formats", "bolt"},
			stdin:  `<tool_call>{"name": "get_time", "arguments": {}}</tool_call>`,
			stdout: `{"calls":[],"content":"<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>","envelope":""}` + "\n"},
		{name: "unknown format", args: []string{"--formats", "hermes,bolt"}, code: exitUsage,
			stderr: `evalrun extract: --formats: unknown format "bolt": name a declared family or one of ` + strings.Join(textcalls.Envelopes(), ", ") + "\n"},
		{name: "bad families file", args: []string{"--families", bad}, code: exitUsage,
			stderr: "evalrun extract: " + bad + `:3: families[0].args: unknown value "toml" (want json | xml | pythonic)` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runExtractCmd(t, tc.stdin, tc.args...)
			if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// hermesAndFence holds both a Hermes tag and a fenced block: the family hint
// decides which is tried first.
const hermesAndFence = "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\n" +
	"```json\n{\"name\":\"add\",\"arguments\":{\"a\":1}}\n```"

// hermesFirst is what extract prints for hermesAndFence when the Hermes tag is
// tried first: the fenced block stays as content.
const hermesFirst = `{"calls":[{"name":"get_time","arguments":{"city":"Paris"}}],"content":"` +
	"```" + `json\n{\"name\":\"add\",\"arguments\":{\"a\":1}}\n` + "```" + `","envelope":"hermes"}` + "\n"

func TestExtractCommandHugeInput(t *testing.T) {
	huge := strings.Repeat("<tool_call>{\"name\":[[[[", 20000) + strings.Repeat("<|tool_call>call:x{a:[", 20000)
	code, stdout, stderr := runExtractCmd(t, huge, "--tools", "get_time")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var got extractOutput
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout %.80q…: %v", stdout, err)
	}
	if got.Calls == nil || len(got.Calls) != 0 || got.Content != huge || got.Envelope != "" {
		t.Errorf("extract = %d calls, envelope %q, content %.40q… (%d bytes); want no calls, no envelope, the whole text as content",
			len(got.Calls), got.Envelope, got.Content, len(got.Content))
	}
}

// addXML is a qwen3_coder_xml call whose values are untyped text.
const addXML = "<function=add>\n<parameter=a>\n3\n</parameter>\n<parameter=b>\n2.5\n</parameter>\n</function>"

// addSchema types add's arguments: a integer, b number, a required.
const addSchema = `{"type":"object","required":["a"],"properties":{"a":{"type":"integer"},"b":{"type":"number"}}}`

func TestExtractCommandSchemas(t *testing.T) {
	dir := t.TempDir()
	toolsFile := dir + "/tools.json"
	if err := os.WriteFile(toolsFile, []byte(`[{"name": "add", "parameters": `+addSchema+`}, "get_time"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := dir + "/bad.json"
	if err := os.WriteFile(bad, []byte(`[{"parameters": {}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	badSchema := dir + "/bad-schema.json"
	if err := os.WriteFile(badSchema, []byte(`["get_time", {"name": "add", "parameters": {"type": "objekt"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(tools string) string {
		b, _ := json.Marshal(addXML)
		return `{"text": ` + string(b) + `, "tools": ` + tools + `}` + "\n"
	}
	typed := `{"calls":[{"name":"add","arguments":{"a":3,"b":2.5}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	untyped := `{"calls":[{"name":"add","arguments":{"a":"3","b":"2.5"}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "names alone leave XML values strings", args: []string{"--jsonl"}, stdin: line(`["add"]`), stdout: untyped},
		{name: "a schema on the line types them", args: []string{"--jsonl"}, stdin: line(`[{"name": "add", "parameters": ` + addSchema + `}]`), stdout: typed},
		{name: "names and schemas mixed", args: []string{"--jsonl"}, stdin: line(`["get_time", {"name": "add", "parameters": ` + addSchema + `}]`), stdout: typed},
		{name: "tools file", args: []string{"--tools-file", toolsFile}, stdin: addXML, stdout: typed},
		{name: "tools file types a line's names", args: []string{"--jsonl", "--tools-file", toolsFile}, stdin: line(`["add"]`), stdout: typed},
		{name: "tools file is the default for lines without tools", args: []string{"--jsonl", "--tools-file", toolsFile}, stdin: `{"text": "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>"}` + "\n",
			stdout: `{"calls":[{"name":"get_time","arguments":{}}],"content":"","envelope":"hermes"}` + "\n"},
		{name: "tools file and --tools together", args: []string{"--tools-file", toolsFile, "--tools", "note"}, stdin: `<tool_call>{"name": "note", "arguments": {}}</tool_call>`,
			stdout: `{"calls":[{"name":"note","arguments":{}}],"content":"","envelope":"hermes"}` + "\n"},
		{name: "missing tools file", args: []string{"--tools-file", dir + "/none.json"}, code: exitUsage,
			stderr: "evalrun extract: --tools-file: reading " + dir + "/none.json: no such file or directory\n"},
		{name: "tool without a name in the file", args: []string{"--tools-file", bad}, code: exitUsage,
			stderr: "evalrun extract: --tools-file " + bad + ": tool 1: missing \"name\"\n"},
		{name: "tool without a name on a line", args: []string{"--jsonl"}, stdin: line(`[{"parameters": {}}]`), code: exitUsage,
			stderr: "evalrun extract: stdin:1: malformed line: tool 1: missing \"name\"\n"},
		{name: "parameters not an object", args: []string{"--jsonl"}, stdin: line(`[{"name": "add", "parameters": 3}]`), code: exitUsage,
			stderr: "evalrun extract: stdin:1: malformed line: tool 1 (add): \"parameters\" must be a JSON Schema object\n"},
		{name: "tool neither name nor object", args: []string{"--jsonl"}, stdin: line(`[3]`), code: exitUsage,
			stderr: "evalrun extract: stdin:1: malformed line: tool 1: want a name or {\"name\": ..., \"parameters\": {...}}\n"},
		// A tool both named by --tools (or twice on a line) and defined with
		// its schema is offered once, with the schema.
		{name: "tools file and --tools naming the same tool", args: []string{"--tools-file", toolsFile, "--tools", "add"}, stdin: addXML, stdout: typed},
		{name: "tools file and --tools naming the same tool, jsonl default", args: []string{"--jsonl", "--tools", "add", "--tools-file", toolsFile}, stdin: `{"text": ` + jsonString(addXML) + `}` + "\n", stdout: typed},
		{name: "a line naming a tool it also defines", args: []string{"--jsonl"}, stdin: line(`[{"name": "add", "parameters": ` + addSchema + `}, "add"]`), stdout: typed},
		// A schema that does not compile is an error naming the tool and
		// where it came from, not a tool offered untyped.
		{name: "invalid schema in the tools file", args: []string{"--tools-file", badSchema}, stdin: addXML, code: exitUsage,
			stderr: "evalrun extract: --tools-file " + badSchema + ": tool 2 (add): \"parameters\" is not a valid JSON Schema: " + objektError + "\n"},
		{name: "invalid schema on a line", args: []string{"--jsonl"}, stdin: line(`["get_time"]`) + line(`["get_time", {"name": "add", "parameters": {"type": "objekt"}}]`), code: exitUsage,
			stdout: `{"calls":[],"content":` + jsonString(addXML) + `,"envelope":""}` + "\n",
			stderr: "evalrun extract: stdin:2: malformed line: tool 2 (add): \"parameters\" is not a valid JSON Schema: " + objektError + "\n"},
		{name: "schema not of an object", args: []string{"--jsonl"}, stdin: line(`[{"name": "add", "parameters": {"type": "string"}}]`), code: exitUsage,
			stderr: "evalrun extract: stdin:1: malformed line: tool 1 (add): \"parameters\" must describe an object (the arguments), not type string\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runExtractCmd(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if stderr != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
		})
	}
}

// jsonString returns s as a JSON string, as extract writes it (without
// HTML escaping).
func jsonString(s string) string {
	var b bytes.Buffer
	if err := writeJSONLine(&b, s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// objektError is the JSON Schema compiler's complaint about {"type": "objekt"}.
const objektError = `not a valid schema: anyOf: did not validate against any of [<anonymous schema> <anonymous schema>]: ` +
	`validating /properties/type/anyOf/0: validating /$defs/simpleTypes: enum: objekt does not equal any of: [array boolean integer null number object string]; ` +
	`validating /properties/type/anyOf/1: type: objekt has type "string", want "array"`

// TestExtractStdinLimit: a text over the limit is refused with the limit
// named, not read whole.
func TestExtractStdinLimit(t *testing.T) {
	code, out, errOut := runExtractCmd(t, strings.Repeat("x", maxStdinText+1), "--tools", "get_time")
	if code != exitUsage || out != "" || errOut != "evalrun extract: stdin is larger than 16 MiB, the limit for one text\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// extract reads a text of exactly the stdin limit (16 MiB) whole; only a
// longer one is refused.
func TestExtractStdinAtTheLimit(t *testing.T) {
	code, out, errOut := runExtractCmd(t, strings.Repeat("x", maxStdinText), "--tools", "get_time")
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, `{"calls":[],"content":"xxx`) || strings.Count(out, "x") != maxStdinText {
		t.Errorf("a text of exactly %d bytes: exit %d, %d bytes of stdout, stderr %q; want it extracted", maxStdinText, code, len(out), errOut)
	}
}

// An extract tool given as an object without "parameters", or with
// "parameters": null, is a tool named alone: its XML values stay strings,
// and a --tools-file schema of that name types them as for a bare name.
func TestExtractToolObjectWithoutSchema(t *testing.T) {
	toolsFile := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(toolsFile, []byte(`[{"name": "add", "parameters": `+addSchema+`}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(addXML)
	untyped := `{"calls":[{"name":"add","arguments":{"a":"3","b":"2.5"}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	typed := `{"calls":[{"name":"add","arguments":{"a":3,"b":2.5}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	for _, tool := range []string{`{"name": "add"}`, `{"name": "add", "parameters": null}`} {
		stdin := `{"text": ` + string(text) + `, "tools": [` + tool + `]}` + "\n"
		if code, out, errOut := runExtractCmd(t, stdin, "--jsonl"); code != exitOK || out != untyped {
			t.Errorf("tool %s: exit %d, stdout %q, stderr %q; want %q", tool, code, out, errOut, untyped)
		}
		if code, out, errOut := runExtractCmd(t, stdin, "--jsonl", "--tools-file", toolsFile); code != exitOK || out != typed {
			t.Errorf("tool %s with a --tools-file schema: exit %d, stdout %q, stderr %q; want %q", tool, code, out, errOut, typed)
		}
	}
}

// TestExtractJSONLStopsWhenInterrupted: extract --jsonl reads no further
// line once it is interrupted, and says at which line it stopped.
func TestExtractJSONLStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	stdin := `{"text": "hi", "tools": ["get_time"]}` + "\n" + `{"text": "again", "tools": ["get_time"]}` + "\n"
	code := run(ctx, []string{"extract", "--jsonl"}, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	if code != exitUsage || out.Len() != 0 || !strings.Contains(errb.String(), "stdin:1: context canceled") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 at stdin:1 and no output", code, out.String(), errb.String())
	}
}
