package sdkagents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SystemPrompt is what every agent tells the model first.
const SystemPrompt = "You keep the user's notes in files. Read a note before you change it."

// MaxSteps bounds the model calls of one request.
const MaxSteps = 10

// tool is one function the model may call, described once for every SDK.
type tool struct {
	Name, Description string
	// Params are its string parameters, all required.
	Params []string
}

// tools are the two functions the model may call.
var tools = []tool{
	{Name: "read_note", Description: "Read a note by its name.", Params: []string{"name"}},
	{Name: "write_note", Description: "Replace a note's text, creating the note if needed.", Params: []string{"name", "text"}},
}

// schema is t's parameters as a JSON Schema object.
func (t tool) schema() map[string]any {
	props := map[string]any{}
	for _, p := range t.Params {
		props[p] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": props, "required": t.Params}
}

// runTool runs the tool name with its JSON arguments on the notes in dir
// (NAME.md files) and returns what the model reads: the note, "saved
// NAME", or an error text.
func runTool(dir, name, arguments string) string {
	var args struct{ Name, Text string }
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "error: the arguments are not JSON: " + err.Error()
	}
	if args.Name == "" || strings.ContainsAny(args.Name, `/\`) || strings.HasPrefix(args.Name, ".") {
		return fmt.Sprintf("error: %q is not a note name", args.Name)
	}
	path := filepath.Join(dir, args.Name+".md")
	switch name {
	case "read_note":
		b, err := os.ReadFile(path)
		if err != nil {
			return "error: there is no note " + args.Name
		}
		return string(b)
	case "write_note":
		if err := os.WriteFile(path, []byte(args.Text), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return "saved " + args.Name
	}
	return "error: no tool " + name
}
