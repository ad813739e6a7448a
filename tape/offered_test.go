package tape_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

func TestDecodeOfferedSystemList(t *testing.T) {
	for src, want := range map[string][]string{"[Be terse., Use tools.]": {"Be terse.", "Use tools."}, "[]": {}} {
		tp, err := tape.Decode(strings.NewReader("format: tapeloop/v1\noffered:\n  system: "+src+"\ntape:\n  - response: {content: hi}\n"), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if tp.Offered == nil || tp.Offered.System == nil || !slices.Equal(tp.Offered.System, want) {
			t.Errorf("system: %s decoded as %+v, want %q", src, tp.Offered, want)
		}
	}
}

// Several system prompts are written as a block sequence, one a line; an
// empty list as [].
func TestEncodeOfferedSystemLists(t *testing.T) {
	for _, tc := range []struct {
		system []string
		want   string
	}{
		{[]string{"one", "two"}, "system:\n    - one\n    - two\n"},
		{[]string{}, "system: []\n"},
	} {
		out, err := yaml.Marshal(tape.EncodeOffered(&tape.Offered{System: tc.system}))
		if err != nil || string(out) != tc.want {
			t.Errorf("system %q: %q, %v; want %q", tc.system, out, err, tc.want)
		}
	}
}

// offeredTape is a tape whose offered block states every part: one system
// prompt, a tool with a description and a schema and one with a name
// alone, no response schema (null), and parameters with the model that
// answered instead.
func offeredTape() *tape.Tape {
	return &tape.Tape{
		Offered: &tape.Offered{
			System: []string{"You keep notes."},
			Tools: []llm.ToolDefinition{
				{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
				{Name: "list_files"},
			},
			ResponseSchema: json.RawMessage{},
			Params:         map[string]json.RawMessage{"model": json.RawMessage(`"gpt-4.1"`), "temperature": json.RawMessage(`0.2`)},
			AnsweredBy:     "gpt-4.1-2025-04-14",
		},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}},
	}
}

// TestOfferedRoundTrip: an offered block encodes as its documented
// canonical form (reviewed) and decodes back to the same block, whether it
// states every part or states each as empty.
func TestOfferedRoundTrip(t *testing.T) {
	empty := &tape.Tape{Offered: &tape.Offered{System: []string{}, Tools: []llm.ToolDefinition{}, Params: map[string]json.RawMessage{}},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}}}
	for _, tc := range []struct {
		name string
		tp   *tape.Tape
		want string
	}{
		{"every part", offeredTape(), `format: tapeloop/v1
offered:
  system: You keep notes.
  tools:
    - name: read_file
      description: Read a file.
      parameters:
        type: object
        properties:
          path:
            type: string
        required:
          - path
    - name: list_files
  response_schema: null
  params:
    model: "gpt-4.1" # answered by gpt-4.1-2025-04-14: the recording sent it instead (--model)
    temperature: 0.2
tape:
  - response:
      content: done
`},
		{"each part empty", empty, `format: tapeloop/v1
offered:
  system: []
  tools: []
  params: {}
tape:
  - response:
      content: done
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(encode(t, tc.tp))
			if out != tc.want {
				t.Fatalf("encoded:\n%s", lineDiff(tc.want, out))
			}
			back, err := tape.Decode(strings.NewReader(out), "o.yaml")
			if err != nil {
				t.Fatal(err)
			}
			back.Offered.Line = 0
			if got := zeroLines(back); !reflect.DeepEqual(got.Offered, tc.tp.Offered) {
				t.Errorf("decoded %+v\nwant    %+v", got.Offered, tc.tp.Offered)
			}
		})
	}
}

// TestOfferedOf: what a request offers is its leading system messages
// alone, and copies of its tools and response schema that the request's
// later changes do not reach.
func TestOfferedOf(t *testing.T) {
	req := &llm.Request{
		Messages:       []llm.Message{llm.SystemMessage("one"), llm.SystemMessage("two"), llm.UserMessage("Go."), llm.SystemMessage("late")},
		Tools:          []llm.ToolDefinition{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}},
		ResponseSchema: json.RawMessage(`{"type":"string"}`),
	}
	o := tape.OfferedOf(req)
	req.Tools[0].Parameters[2] = 'X'
	req.ResponseSchema[2] = 'X'
	if !slices.Equal(o.System, []string{"one", "two"}) || string(o.Tools[0].Parameters) != `{"type":"object"}` || string(o.ResponseSchema) != `{"type":"string"}` {
		t.Errorf("OfferedOf = system %q, parameters %s, response schema %s", o.System, o.Tools[0].Parameters, o.ResponseSchema)
	}
}

// TestOfferedDecodeErrors: each part of an offered block that is not of
// its documented shape is refused, naming its file, line and key.
func TestOfferedDecodeErrors(t *testing.T) {
	const tail = "tape:\n  - response: {content: hi}\n"
	for _, tc := range []struct{ name, block, want string }{
		{"tools not a sequence", "  tools: read_file\n", `o.yaml:3: offered.tools: want a sequence, got a string ("read_file")`},
		{"tool without a name", "  tools:\n    - description: Read a file.\n", `o.yaml:4: offered.tools[0]: missing required key "name"`},
		{"tool offered twice", "  tools:\n    - name: f\n    - name: f\n", `o.yaml:5: offered.tools[1].name: tool "f" is offered twice`},
		{"cache not a sequence", "  cache: tools\n", `o.yaml:3: offered.cache: want a sequence, got a string ("tools")`},
		{"params not a mapping", "  params: temperature\n", `o.yaml:3: offered.params: want a mapping, got a string ("temperature")`},
		{"params key not text", "  params:\n    1: 0.5\n", `o.yaml:4: offered.params: want a string, got an integer (1); quote it`},
		{"parameters not JSON", "  tools:\n    - name: f\n      parameters: '{\"type\":'\n", `o.yaml:5: offered.tools[0].parameters: want a JSON schema (a mapping, or its JSON text), got text that is not JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tape.Decode(strings.NewReader("format: tapeloop/v1\noffered:\n"+tc.block+tail), "o.yaml")
			if err == nil || err.Error() != tc.want || !errors.Is(err, tape.ErrFormat) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestAnsweredByReadAsWritten: the model named in a params comment is read
// without the spaces a hand edit may leave around it, and written back in
// the canonical form; an entry's offered change is written in its request.
func TestAnsweredByReadAsWritten(t *testing.T) {
	const src = "format: tapeloop/v1\noffered:\n  params:\n    model: \"gpt-4.1\" # answered by  gpt-4.1-2025-04-14 : the recording sent it instead (--model)\ntape:\n  - response: {content: one}\n  - response: {content: two}\n    request:\n      offered: {params: {temperature: 0.5}}\n"
	tp, err := tape.Decode(strings.NewReader(src), "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if tp.Offered.AnsweredBy != "gpt-4.1-2025-04-14" {
		t.Errorf("answered by %q", tp.Offered.AnsweredBy)
	}
	out := string(encode(t, tp))
	for _, want := range []string{
		`    model: "gpt-4.1" # answered by gpt-4.1-2025-04-14: the recording sent it instead (--model)` + "\n",
		"    request:\n      offered:\n        params:\n          temperature: 0.5\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("encoded tape lacks %q:\n%s", want, out)
		}
	}
}
