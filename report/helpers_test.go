package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// hostile is model-controlled text that must render as text, never as markup.
const hostile = `<script>window.pwned=1;document.title="pwned"</script><img src=x onerror="window.pwned=2">`

// passingScenario appends a line to a file; its golden is blessed, so it passes.
const passingScenario = `format: tapeloop/v1
tags: [files]
setup:
  workspace: {files: {notes.txt: "hello\n"}}
  tools: [write_file]
input:
  - {role: user, content: "Append world to notes.txt."}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: write_file, arguments: '{"path": "notes.txt", "content": "hello\nworld\n",}'}
  - response: {content: "Done."}
expect:
  termination: final_text
  repairs: {call_1: [trailing_comma]}
  files: {notes.txt: "hello\nworld\n"}
`

// failingScenario writes the hostile string, reads it back and answers; its
// final-text expectation fails, and its golden is edited after blessing so
// the outcome differs from it.
var failingScenario = `format: tapeloop/v1
tags: [hostile, files]
setup:
  workspace: {files: {page.html: "<p>old</p>\n"}}
  tools: [read_file, write_file]
input:
  - {role: user, content: "Put a script in page.html."}
tape:
  - response:
      content: 'Writing ` + strings.ReplaceAll(hostile, "'", "''") + `'
      tool_calls:
        - {id: call_1, name: write_file, arguments: {path: page.html, content: '` + strings.ReplaceAll(hostile, "'", "''") + `'}}
  - response:
      tool_calls:
        - {id: call_2, name: read_file, arguments: {path: page.html}}
  - response: {content: "It is in."}
expect:
  termination: final_text
  final: {contains: "goodbye"}
`

// fixtureSuite writes a suite of two scenarios (files/append passes,
// hostile/script fails both its golden and an expectation) and returns the
// folder.
func fixtureSuite(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("files/append.yaml", passingScenario)
	write("hostile/script.yaml", failingScenario)
	for _, rel := range []string{"files/append.yaml", "hostile/script.yaml"} {
		v := harness.Verify(context.Background(), filepath.Join(dir, rel), &harness.VerifyOptions{Root: dir, Update: true})
		if v.Err != nil {
			t.Fatalf("blessing %s: %v", rel, v.Err)
		}
	}
	golden := filepath.Join(dir, "hostile", "script.golden.yaml")
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "final: It is in.", "final: It was in.", 1)
	if edited == string(b) {
		t.Fatalf("the golden has no line %q to edit:\n%s", "final: It is in.", b)
	}
	if err := os.WriteFile(golden, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// replayOf verifies every scenario under dir and returns the replay result,
// each scenario taking a fixed time so results compare equal.
func replayOf(t testing.TB, dir string, shard *Shard) *Replay {
	t.Helper()
	paths, err := scenario.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var results []ScenarioResult
	for _, p := range paths {
		v := harness.Verify(context.Background(), p, &harness.VerifyOptions{Root: dir})
		if !shard.Contains(v.Name) {
			continue
		}
		results = append(results, FromVerdict(v, 2*time.Millisecond))
	}
	return NewReplay(results, shard)
}

func llmUsage(in, out int) llm.Usage { return llm.Usage{InputTokens: in, OutputTokens: out} }
