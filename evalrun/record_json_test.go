package evalrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordJSON: record --json writes each scenario's recording (its
// calls, tokens, the replay that wrote its golden) and the totals; with
// --json - the document is standard output and the text standard error.
func TestRecordJSON(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	out := filepath.Join(t.TempDir(), "record.json")
	code, text, errOut := runRecordCmd(t, context.Background(), appendScript(), "--model", "fake/m1", "--json", out, dir)
	if code != exitOK || !strings.Contains(text, "1 recorded, 0 skipped, 0 failed") {
		t.Fatalf("exit %d\n%s%s", code, text, errOut)
	}
	d, data := readRecordJSON(t, out)
	path := filepath.Join(dir, "files", "append.yaml")
	if d.Format != recordFormat || d.Model != "fake/m1" || d.Mode != "once" || d.Recorded != 1 || d.Failed != 0 || d.Interrupted || len(d.Scenarios) != 1 || d.Redacted == nil {
		t.Fatalf("document:\n%s", data)
	}
	s := d.Scenarios[0]
	if s.Name != "files/append" || s.File != path || s.Status != "recorded" || !s.Written || s.Calls != 2 || s.Tokens.Input != 250 || s.Tokens.Output != 25 ||
		s.Replay == nil || !s.Replay.Passed || !s.Replay.Updated || s.Replay.Golden != filepath.Join(dir, "files", "append.golden.yaml") {
		t.Errorf("scenario: %+v (replay %+v)", s, s.Replay)
	}
	// Once more: skipped, and the document on standard output.
	code, stdout, stderr := runRecordCmd(t, context.Background(), appendScript(), "--model", "fake/m1", "--json", "-", dir)
	if err := json.Unmarshal([]byte(stdout), &d); code != exitOK || err != nil || d.Skipped != 1 || d.Scenarios[0].Replay != nil || !strings.Contains(d.Scenarios[0].Reason, "it has a tape") {
		t.Errorf("--json -: exit %d, %v, stdout:\n%s", code, err, stdout)
	}
	if !strings.Contains(stderr, "0 recorded, 1 skipped") {
		t.Errorf("--json -: the text is not on stderr:\n%s", stderr)
	}
}

// readRecordJSON reads the --json document record wrote to path, and its
// bytes for failure messages.
func readRecordJSON(t *testing.T, path string) (recordDocument, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d recordDocument
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d, data
}

// TestRecordJSONDoc: the example in docs/record.md decodes into the
// document with no key left over, and the doc names every key.
func TestRecordJSONDoc(t *testing.T) {
	const doc = "../docs/record.md"
	var d recordDocument
	block := docBlock(t, doc, "json", `"format": "`+recordFormat+`"`)
	dec := json.NewDecoder(strings.NewReader(block))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("the documented example: %v", err)
	}
	docNamesJSONKeys(t, doc, d)
	if len(d.Scenarios) == 0 || d.Scenarios[0].Replay == nil {
		t.Errorf("the example shows no recorded scenario: %+v", d)
	}
}
