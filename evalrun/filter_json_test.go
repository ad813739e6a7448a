package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runWithStdin runs evalrun with stdin as its standard input.
func runWithStdin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// docLines returns the lines of the doc's jsonl block holding marker,
// each decoded with no key left over into a new value of the type new
// returns.
func docLines(t *testing.T, path, marker string, newValue func() any) string {
	t.Helper()
	block := docBlock(t, path, "jsonl", marker)
	for i, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(newValue()); err != nil {
			t.Errorf("%s: line %d of the documented block holding %q: %v", path, i+1, marker, err)
		}
	}
	return block
}

// repairLine is the shape of a line of repair's results.
type repairLine struct {
	Output *string  `json:"output"`
	Fixes  []string `json:"fixes"`
	Error  *string  `json:"error"`
}

// TestFilterJSONDoc: repair and extract write the documented lines for
// the documented input to --json FILE, and nothing to standard output.
func TestFilterJSONDoc(t *testing.T) {
	const doc = "../docs/reports.md"
	tmp := t.TempDir()
	for _, tc := range []struct {
		cmd, input, marker string
		newValue           func() any
		code               int
	}{
		{"repair", docBlock(t, doc, "text", `{"input": "}}}"}`), `"fixes":["trailing_comma"`, func() any { return &repairLine{} }, exitFailed},
		{"extract", docBlock(t, doc, "text", `<tool_call>`), `"envelope":"hermes"`, func() any { return &extractOutput{} }, exitOK},
	} {
		want := docLines(t, doc, tc.marker, tc.newValue)
		path := filepath.Join(tmp, tc.cmd+".jsonl")
		code, out, errOut := runWithStdin(t, tc.input, tc.cmd, "--jsonl", "--json", path)
		if code != tc.code || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want %d and nothing\n%s", tc.cmd, code, out, tc.code, errOut)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s writes:\n%s\n%s shows:\n%s", tc.cmd, got, doc, want)
		}
		// Standard output, by default and with -, holds the same lines.
		for _, args := range [][]string{{tc.cmd, "--jsonl"}, {tc.cmd, "--jsonl", "--json", "-"}} {
			if _, out, _ := runWithStdin(t, tc.input, args...); out != want {
				t.Errorf("%v: stdout:\n%s\nwant:\n%s", args, out, want)
			}
		}
	}
}

// TestFilterJSONFileOnlyWhenInputRead: a malformed input line leaves the
// --json file as it was (exit 2); standard output keeps the lines before it.
func TestFilterJSONFileOnlyWhenInputRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := "{\"input\": \"[1,]\"}\nnot json\n"
	code, out, errOut := runWithStdin(t, input, "repair", "--jsonl", "--json", path)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "stdin:2: malformed line") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 naming stdin:2", code, out, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("the file was replaced after a malformed line: %q", got)
	}
	code, out, _ = runWithStdin(t, input, "repair", "--jsonl")
	if code != exitUsage || out != "{\"output\":\"[1]\",\"fixes\":[\"trailing_comma\"]}\n" {
		t.Errorf("stdout: exit %d, %q; want the first line's result", code, out)
	}
}

// TestFilterJSONRedacted: a key in the input does not reach the results,
// in a file or on standard output.
func TestFilterJSONRedacted(t *testing.T) {
	const key = "sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
	path := filepath.Join(t.TempDir(), "out.json")
	input := `{key: "` + key + `",}`
	if code, _, errOut := runWithStdin(t, input, "repair", "--json", path); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	_, out, _ := runWithStdin(t, input, "repair")
	_, extracted, _ := runWithStdin(t, `<tool_call>{"name": "login", "arguments": {"key": "`+key+`"}}</tool_call>`, "extract", "--tools", "login")
	for what, text := range map[string]string{"repair --json FILE": string(got), "repair": out, "extract": extracted} {
		if strings.Contains(text, key) || !strings.Contains(text, "[REDACTED]") {
			t.Errorf("%s: the key is not redacted:\n%s", what, text)
		}
	}
}
