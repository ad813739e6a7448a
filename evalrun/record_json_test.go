package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
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

// record's --json document of an interrupted run counts as not started the
// scenario it stopped in and every one it did not get to, as its text does,
// and gives each scenario's wall time in milliseconds (no more than the
// whole command took).
func TestRecordJSONOfAnInterruptedRun(t *testing.T) {
	other := strings.Replace(unrecorded, "Append 'world'", "Append 'there'", 1)
	dir := newScenarios(t, map[string]string{"a/first.yaml": unrecorded, "b/second.yaml": other, "c/third.yaml": other})
	jsonPath := filepath.Join(t.TempDir(), "record.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The second scenario's first call: the user presses Ctrl-C.
	f := interruptedAfter(cancel, callResponse("call_1", "write_file", `{"path": "notes.txt", "content": "hello\nworld\n"}`), textResponse("Done."))
	start := time.Now()
	code, out, errOut := runRecordCmd(t, ctx, f, "--model", "fake/m", "--json", jsonPath, dir)
	took := float64(time.Since(start).Microseconds()) / 1000
	if code != exitFailed || !strings.Contains(out, "1 recorded, 0 skipped, 0 failed; interrupted, 2 not started\n") {
		t.Fatalf("exit %d, want 1 and 2 not started\n%s%s", code, out, errOut)
	}
	d, data := readRecordJSON(t, jsonPath)
	if !d.Interrupted || d.Recorded != 1 || d.Failed != 0 || d.NotStarted != 2 {
		t.Errorf("interrupted %v, recorded %d, failed %d, not started %d; want true, 1, 0, 2\n%s", d.Interrupted, d.Recorded, d.Failed, d.NotStarted, data)
	}
	for _, sc := range d.Scenarios {
		if sc.WallMS < 0 || sc.WallMS > took {
			t.Errorf("%s: wall_ms %g, want from 0 to the %g ms the command took", sc.Name, sc.WallMS, took)
		}
	}
}

// record --json counts a failed recording as failed.
func TestRecordJSONCountsAFailure(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	failing := &fakeLive{answer: func(context.Context, int, *llm.Request) (*llm.Response, error) {
		return nil, errors.New("503 overloaded")
	}}
	out := filepath.Join(t.TempDir(), "record.json")
	code, text, errOut := runRecordCmd(t, context.Background(), failing, "--model", "fake/m", "--json", out, dir)
	d, data := readRecordJSON(t, out)
	if code != exitFailed || d.Failed != 1 || d.Recorded != 0 || d.Skipped != 0 {
		t.Errorf("exit %d, document:\n%s\nwant 1 failed\nstdout:\n%s\nstderr:\n%s", code, data, text, errOut)
	}
}
