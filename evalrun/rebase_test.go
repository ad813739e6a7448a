package evalrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noteTaker is a scenario whose requests rebase pins: a system prompt, a
// fixture and a recorded stand-in with a schema.
const noteTaker = `format: tapeloop/v1
# A note taker.
setup:
  workspace:
    files: {notes.txt: "hello\n"}
  tools:
    - read_file
    - name: lookup
      fixture: recorded
      with:
        description: Look a word up.
        parameters:
          type: object
          properties: {word: {type: string}}
          required: [word]
        results:
          - arguments: {word: hello}
            content: a greeting
input:
  - {role: system, content: "You read notes."}
  - {role: user, content: "What does notes.txt say?"}
tape:
  # the read
  - response:
      tool_calls:
        - {id: call_1, name: read_file, arguments: {path: notes.txt}}
  - response:
      tool_calls:
        - {id: call_2, name: lookup, arguments: {word: hello}}
  - response: {content: "It says hello, a greeting."}
expect:
  termination: final_text
`

// pinnedNoteTaker writes noteTaker, blesses its golden and pins its
// requests with rebase --all; it returns the scenario's path.
func pinnedNoteTaker(t *testing.T) string {
	t.Helper()
	dir := newScenarios(t, map[string]string{"notes/read.yaml": noteTaker})
	path := filepath.Join(dir, "notes", "read.yaml")
	if code, out, errOut := runCmd(t, "replay", "--update", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "rebase", "--all", path)
	if code != exitOK || !strings.HasPrefix(out, "rebased  notes/read  (offered, the request of tape[0], tape[1], tape[2])\n") {
		t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# A note taker.\n", "  # the read\n", "offered:\n  system: You read notes.\n  tools:\n    - name: lookup\n      description: Look a word up.\n      parameters:\n",
		"    - name: read_file\n      description: Read a text file", "    request:\n      new:\n        - role: user\n          content: What does notes.txt say?\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the pinned scenario lacks %q:\n%s", want, data)
		}
	}
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Fatalf("replay after pinning: exit %d\n%s", code, out)
	}
	return path
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebaseAcceptsWhatTheAgentSends: each change teams make most often
// fails a pinned scenario with its diff, and rebase accepts it offline.
func TestRebaseAcceptsWhatTheAgentSends(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		fails    []string // what the failing replay says
		rebased  string   // rebase's summary of the change
	}{
		{"system prompt", `content: "You read notes."`, `content: "You read notes aloud."`,
			[]string{"tape[0] at notes/read.yaml:", "offered.system differs", "-You read notes.\n", "+You read notes aloud.\n"},
			"(offered)"},
		{"tool description", "description: Look a word up.", "description: Look a word up in the dictionary.",
			[]string{"offered.tools differs", "  tool lookup: description changed:\n", "    -Look a word up.\n", "    +Look a word up in the dictionary.\n"},
			"(offered)"},
		{"tool schema", "properties: {word: {type: string}}", "properties: {word: {type: string}, lang: {type: string}}",
			[]string{"  tool lookup: parameters (schema) changed, as JSON:\n", "    +    \"lang\": {\n"},
			"(offered)"},
		{"tool result", `files: {notes.txt: "hello\n"}`, `files: {notes.txt: "hello there\n"}`,
			[]string{"tape[1] at notes/read.yaml:", "new differs", "    -      hello\n    +      hello there\n"},
			"(the request of tape[1])"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := pinnedNoteTaker(t)
			edit(t, path, c.old, c.new)
			code, out, _ := runCmd(t, "replay", path)
			if code != exitFailed {
				t.Fatalf("replay after the change: exit %d, want 1\n%s", code, out)
			}
			for _, w := range c.fails {
				if !strings.Contains(out, w) {
					t.Errorf("the failure lacks %q:\n%s", w, out)
				}
			}
			before, _ := os.ReadFile(path)
			code, out, _ = runCmd(t, "rebase", "--dry-run", path)
			if after, _ := os.ReadFile(path); code != exitOK || !strings.HasPrefix(out, "would rebase  notes/read  "+c.rebased) || string(after) != string(before) {
				t.Fatalf("rebase --dry-run: exit %d (file changed: %v)\n%s", code, string(after) != string(before), out)
			}
			code, out, _ = runCmd(t, "rebase", path)
			if code != exitOK || !strings.HasPrefix(out, "rebased  notes/read  "+c.rebased+"\n    --- "+path+"\n    +++ "+path+" (rebased)\n") ||
				!strings.HasSuffix(out, "1 rebased, 0 unchanged, 0 refused, 0 failed\n") {
				t.Fatalf("rebase: exit %d\n%s", code, out)
			}
			if code, out, _ := runCmd(t, "replay", path); code != exitOK {
				t.Errorf("replay after the rebase: exit %d\n%s", code, out)
			}
			if code, out, _ := runCmd(t, "rebase", path); code != exitOK || !strings.HasPrefix(out, "unchanged  notes/read\n") {
				t.Errorf("a second rebase: exit %d\n%s", code, out)
			}
		})
	}
}

// TestRebaseRefusesStaleResponses: where a recorded response no longer
// applies, rebase writes nothing and names the entry to record again.
func TestRebaseRefusesStaleResponses(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		why      string
	}{
		{"removed tool", "    - name: lookup\n      fixture: recorded\n", "    - name: lookup\n      fixture: recorded\n",
			"response.tool_calls[0] calls lookup, which the agent no longer offers"},
		{"arguments the schema now refuses", "required: [word]", "required: [word, lang]",
			`response.tool_calls[0]: the arguments of lookup {"word":"hello"} passed the recorded schema but fail the current one`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := pinnedNoteTaker(t)
			if c.name == "removed tool" {
				data, _ := os.ReadFile(path)
				s := string(data)
				start := strings.Index(s, "    - name: lookup\n")
				end := strings.Index(s, "input:\n")
				if err := os.WriteFile(path, []byte(s[:start]+s[end:]), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				edit(t, path, c.old, c.new)
			}
			before, _ := os.ReadFile(path)
			line := entryLine(t, string(before), 1)
			code, out, _ := runCmd(t, "rebase", path)
			want := fmt.Sprintf("REFUSED  notes/read\n    %s:%d: tape[1] must be recorded again (`evalrun record --mode all --model PROVIDER/MODEL %s`): %s\n", path, line, path, c.why)
			if code != exitFailed || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "0 rebased, 0 unchanged, 1 refused, 0 failed\n") {
				t.Errorf("rebase: exit %d\n%s\nwant it to start\n%s", code, out, want)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("a refused rebase changed the file:\n%s", after)
			}
		})
	}
}

// entryLine returns the line of tape entry i in a scenario's text.
func entryLine(t *testing.T, text string, i int) int {
	t.Helper()
	at := strings.Index(text, "\ntape:\n")
	lines := strings.Split(text[at+1:], "\n")
	n := -1
	for j, l := range lines {
		if strings.HasPrefix(l, "  - ") {
			n++
			if n == i {
				return strings.Count(text[:at+1], "\n") + j + 1
			}
		}
	}
	t.Fatalf("no tape[%d]", i)
	return 0
}

func TestRebaseUsage(t *testing.T) {
	if code, _, errOut := runCmd(t, "rebase"); code != exitUsage || errOut != "evalrun rebase: name the scenario files or folders to rebase\n" {
		t.Errorf("no paths: exit %d, %q", code, errOut)
	}
	dir := newScenarios(t, map[string]string{"notes/read.yaml": noteTaker})
	if code, _, errOut := runCmd(t, "rebase", "--run", "nothing", dir); code != exitUsage || errOut != "evalrun rebase: no scenario matches\n" {
		t.Errorf("--run matching nothing: exit %d, %q", code, errOut)
	}
}

// TestLintSaysWhatIsPinned: lint says which request parts a tape pins;
// --strict-requests makes an unpinned part an error, until rebase --all
// pins them.
func TestLintSaysWhatIsPinned(t *testing.T) {
	dir := newScenarios(t, map[string]string{"notes/read.yaml": noteTaker})
	path := filepath.Join(dir, "notes", "read.yaml")
	code, out, errOut := runCmd(t, "lint", path)
	if code != exitOK || !strings.Contains(out, "ok    notes/read\n      requests: system prompt not pinned, tools not pinned, messages pinned on 0 of 3 model calls\n") {
		t.Errorf("lint: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCmd(t, "lint", "--strict-requests", path)
	for _, want := range []string{
		path + ": offered.system: the system prompt is not pinned; it is not compared on replay (evalrun rebase --all pins it)\n",
		path + ": offered.tools: the tools' descriptions and schemas are not pinned;",
		fmt.Sprintf("%s:%d: tape[2].request.new: the messages of this model call are not pinned;", path, entryLine(t, noteTaker, 2)),
	} {
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("lint --strict-requests: exit %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
	if want := path + ": setup.loop.request.model: the model is not pinned: a recording of any model replays;"; !strings.Contains(errOut, want) {
		t.Errorf("lint --strict-requests: stderr lacks %q:\n%s", want, errOut)
	}
	pinnedPath := pinnedNoteTaker(t)
	code, _, errOut = runCmd(t, "lint", "--strict-requests", pinnedPath)
	if want := pinnedPath + ": setup.loop.request.model: the model is not pinned"; code != exitUsage || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("lint --strict-requests after rebase --all, naming no model: exit %d, want %d naming only %q\n%s", code, exitUsage, want, errOut)
	}
	// Naming the model, rebase --all pins it, and nothing is left unpinned.
	edit(t, pinnedPath, "setup:\n", "setup:\n  loop:\n    request: {model: openai/gpt-4.1-mini}\n")
	if code, out, errOut := runCmd(t, "rebase", "--all", pinnedPath); code != exitOK {
		t.Fatalf("rebase --all with the model named: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "lint", "--strict-requests", pinnedPath)
	if code != exitOK || !strings.Contains(out, "      requests: system prompt pinned, tools pinned, messages pinned on 3 of 3 model calls, parameters pinned\n") {
		t.Errorf("lint --strict-requests after rebase --all: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRebaseRefusesAResultThatChangedKind: a tool result that turned from
// a success into a failure, or back, changes what the recorded answers
// after it stand on: rebase refuses, naming the call, and writes nothing
// (issue 39, item 15).
func TestRebaseRefusesAResultThatChangedKind(t *testing.T) {
	for _, c := range []struct{ name, pinned, now string }{
		{"success to failure", `files: {notes.txt: "hello\n"}`, `files: {other.txt: "hello\n"}`},
		{"failure to success", `files: {other.txt: "hello\n"}`, `files: {notes.txt: "hello\n"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"notes/read.yaml": strings.Replace(noteTaker, `files: {notes.txt: "hello\n"}`, c.pinned, 1)})
			path := filepath.Join(dir, "notes", "read.yaml")
			if code, out, errOut := runCmd(t, "replay", "--update", path); code != exitOK {
				t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, errOut := runCmd(t, "rebase", "--all", path); code != exitOK {
				t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
			}
			edit(t, path, c.pinned, c.now)
			before, _ := os.ReadFile(path)
			code, out, errOut := runCmd(t, "rebase", path)
			if code != exitFailed || !strings.Contains(out, "REFUSED") || !strings.Contains(out, "call_1") || !strings.Contains(out, "record") {
				t.Errorf("rebase of a result that changed kind: exit %d, want 1, refused, naming call_1 and saying to record again\n%s%s", code, out, errOut)
			}
			if now, _ := os.ReadFile(path); string(now) != string(before) {
				t.Errorf("the refused rebase rewrote the scenario:\n%s", now)
			}
		})
	}
}

// TestRebaseKeepsCommentsInOffered: rebasing a changed system prompt
// rewrites offered: and keeps every comment in it (issue 39, item 15).
func TestRebaseKeepsCommentsInOffered(t *testing.T) {
	path := pinnedNoteTaker(t)
	edit(t, path, "offered:\n  system: You read notes.\n", "offered:\n  # the prompt, from prompts/notes.md\n  system: You read notes.  # short on purpose\n")
	edit(t, path, "    - name: lookup\n      description: Look a word up.\n", "    # our dictionary\n    - name: lookup  # stand-in\n      description: Look a word up.\n")
	edit(t, path, `content: "You read notes."`, `content: "You read notes aloud."`)
	code, out, errOut := runCmd(t, "rebase", path)
	if code != exitOK || !strings.Contains(out, "rebased") {
		t.Fatalf("rebase: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# the prompt, from prompts/notes.md\n", "# short on purpose", "# our dictionary\n", "# stand-in", "You read notes aloud."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the rebased scenario lost %q:\n%s", want, data)
		}
	}
}

// rebase counts a scenario file that does not load as failed in its summary
// line, beside the scenarios it tried (here one without a golden, failed
// too), and exits 2.
func TestRebaseCountsAFileThatDoesNotLoad(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "math/broken.yaml": "format: tapeloop/v1\nsetup: [\n"})
	code, out, errOut := runCmd(t, "rebase", dir)
	if code != exitUsage || !strings.Contains(out, "ERROR     ") || !strings.Contains(out, ", 2 failed\n") || strings.Contains(errOut, "no scenario matches") {
		t.Errorf("rebase of a folder with a broken file: exit %d, want 2, the file named and counted as failed\n%s%s", code, out, errOut)
	}
}

// TestRebaseRefusesABadRedactPattern: a --redact that is not a regular
// expression is a usage error, before any scenario is touched.
func TestRebaseRefusesABadRedactPattern(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	code, out, errOut := runCmd(t, "rebase", "--redact", "(", dir)
	if code != exitUsage || !strings.HasPrefix(errOut, "evalrun rebase: ") || !strings.Contains(errOut, "--redact") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming --redact", code, out, errOut)
	}
}

// TestRebaseSkipsAYAMLFileThatIsNoScenario: a YAML file under a folder
// that is not a scenario (no format: key) is skipped with a note on
// stderr, neither rebased nor counted; the scenario beside it is.
func TestRebaseSkipsAYAMLFileThatIsNoScenario(t *testing.T) {
	path := pinnedNoteTaker(t)
	other := filepath.Join(filepath.Dir(path), "owners.yaml")
	if err := os.WriteFile(other, []byte("owners: [ana, bo]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "rebase", filepath.Dir(filepath.Dir(path)))
	if code != exitOK || !strings.HasSuffix(out, "\n0 rebased, 1 unchanged, 0 refused, 0 failed\n") || strings.Contains(out, "owners") ||
		!strings.HasPrefix(errOut, "evalrun rebase: skipping "+other) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0, the scenario alone counted, the other file skipped on stderr", code, out, errOut)
	}
	if data, _ := os.ReadFile(other); string(data) != "owners: [ana, bo]\n" {
		t.Errorf("the file that is no scenario changed:\n%s", data)
	}
}

// jsonNoteReader is a scenario written as JSON, which YAML reads as one
// flow mapping: its offered block pins the system prompt only, and the
// agent now sends another.
const jsonNoteReader = `{"format": "tapeloop/v1",
 "setup": {"tools": ["read_file"], "workspace": {"files": {"notes.txt": "hello\n"}}},
 "input": [{"role": "system", "content": "You read notes aloud."}, {"role": "user", "content": "What does notes.txt say?"}],
 "offered": {"system": "You read notes."},
 "tape": [{"response": {"tool_calls": [{"id": "call_1", "name": "read_file", "arguments": {"path": "notes.txt"}}]}},
          {"response": {"content": "It says hello."}}],
 "expect": {"termination": "final_text"}}
`

// TestRebaseRefusesAScenarioWrittenAsJSON: rebase edits a scenario in
// place, which a file written as one flow mapping (JSON) does not allow:
// it says so at the file's first line and how to make it editable, shows
// no change and leaves the file as it was, whether the change is the
// offered block alone or the entries' requests too (--all).
func TestRebaseRefusesAScenarioWrittenAsJSON(t *testing.T) {
	for _, args := range [][]string{{"rebase"}, {"rebase", "--all"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"notes/read.yaml": jsonNoteReader})
			path := filepath.Join(dir, "notes", "read.yaml")
			code, out, errOut := runCmd(t, append(args, path)...)
			want := path + ":1: the file is one flow mapping ({...}); write it as a block to edit it in place"
			if code != exitUsage || !strings.HasPrefix(out, "ERROR  notes/read\n") || !strings.Contains(out, want) || strings.Contains(out, "--- ") ||
				!strings.HasSuffix(out, "\n0 rebased, 0 unchanged, 0 refused, 1 failed\n") {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 2, no diff, and %q", code, out, errOut, want)
			}
			if data, _ := os.ReadFile(path); string(data) != jsonNoteReader {
				t.Errorf("the scenario changed:\n%s", data)
			}
		})
	}
}
