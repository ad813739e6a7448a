package scenario

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSetupMCP: each setup.mcp entry decodes into the server a live run
// connects to, with its line; timeout left out means the default.
func TestSetupMCP(t *testing.T) {
	const text = `format: tapeloop/v1
setup:
  mcp:
    - name: notes
      command: [notes-server, --root, .]
      env: {NOTES_DIR: ./data}
      timeout: 5s
      replace: [search]
    - {name: web, url: "https://mcp.example.test/mcp"}
input: [{role: user, content: hi}]
`
	s, err := Parse([]byte(text), "x.yaml", "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []MCPSetup{
		{Name: "notes", Command: []string{"notes-server", "--root", "."}, Env: map[string]string{"NOTES_DIR": "./data"}, Timeout: 5 * time.Second, Replace: []string{"search"}, Line: 4},
		{Name: "web", URL: "https://mcp.example.test/mcp", Line: 9},
	}
	if !reflect.DeepEqual(s.Setup.MCP, want) {
		t.Errorf("setup.mcp = %+v, want %+v", s.Setup.MCP, want)
	}
}

// TestSetupMCPErrors: a wrong setup.mcp entry is refused when the scenario
// loads, with its file, line and key.
func TestSetupMCPErrors(t *testing.T) {
	const input = "input: [{role: user, content: hi}]\n"
	mcp := func(items string) string { return "format: tapeloop/v1\nsetup:\n  mcp:\n" + items + input }
	cases := []struct{ name, text, want string }{
		{"not a list", "format: tapeloop/v1\nsetup:\n  mcp: {name: a, url: \"http://h\"}\n" + input,
			`x.yaml:3: setup.mcp: want a sequence`},
		{"no name", mcp("    - {url: \"http://h/mcp\"}\n"),
			`x.yaml:4: setup.mcp[0]: missing required key "name"`},
		{"bad name", mcp("    - {name: \"my notes\", url: \"http://h/mcp\"}\n"),
			`x.yaml:4: setup.mcp[0].name: invalid connection name "my notes"`},
		{"neither command nor url", mcp("    - {name: a}\n"),
			`x.yaml:4: setup.mcp[0]: give exactly one of command and url`},
		{"both command and url", mcp("    - {name: a, command: [s], url: \"http://h/mcp\"}\n"),
			`x.yaml:4: setup.mcp[0]: give exactly one of command and url`},
		{"empty command", mcp("    - {name: a, command: []}\n"),
			`x.yaml:4: setup.mcp[0].command: empty command (want [program, args...])`},
		{"url not http", mcp("    - {name: a, url: \"ftp://h/mcp\"}\n"),
			`x.yaml:4: setup.mcp[0].url: "ftp://h/mcp" is not an http or https URL`},
		{"url without host", mcp("    - {name: a, url: \"http:///mcp\"}\n"),
			`x.yaml:4: setup.mcp[0].url: "http:///mcp" is not an http or https URL`},
		{"env without command", mcp("    - {name: a, url: \"http://h/mcp\", env: {K: v}}\n"),
			`x.yaml:4: setup.mcp[0]: env goes with command`},
		{"env value not a string", mcp("    - {name: a, command: [s], env: {K: [v]}}\n"),
			`x.yaml:4: setup.mcp[0].env.K: want a string`},
		{"zero timeout", mcp("    - {name: a, command: [s], timeout: 0s}\n"),
			`x.yaml:4: setup.mcp[0].timeout: 0s: want a positive duration like 30s`},
		{"timeout not a duration", mcp("    - {name: a, command: [s], timeout: soon}\n"),
			`x.yaml:4: setup.mcp[0].timeout: want a duration such as 100ms or 2s, got "soon"`},
		{"unknown key", mcp("    - {name: a, command: [s], args: [x]}\n"),
			`x.yaml:4: setup.mcp[0]: unknown key "args"`},
		{"same name twice", mcp("    - {name: a, command: [s]}\n    - {name: a, url: \"http://h/mcp\"}\n"),
			`x.yaml:5: setup.mcp[1]: a second server named "a"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text), "x.yaml", "x")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("err = %v\nwant it to start %q", err, c.want)
			}
		})
	}
}
