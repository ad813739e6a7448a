package evalrun

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/report"
)

// TestReplayJSONTakesAFile: --json FILE writes the file beside the text,
// --json - prints the JSON instead of the text, and the old switch (--json
// followed by a path that is not a .json file) still prints to stdout.
func TestReplayJSONTakesAFile(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "r.json")
	code, out, errOut := runCmd(t, "replay", "--json", file, dir)
	if code != exitOK || !strings.Contains(out, "1 passed") || strings.Contains(out, "{") {
		t.Fatalf("--json FILE: exit %d; want 0 and the text on stdout\n%s%s", code, out, errOut)
	}
	if r, err := report.ReadReplay(file); err != nil || r.Summary.Passed != 1 {
		t.Errorf("--json FILE wrote %+v, %v", r, err)
	}
	for _, args := range [][]string{{"replay", "--json", "-", dir}, {"replay", "--json", dir}, {"replay", dir, "--json"}} {
		code, out, errOut := runCmd(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "{\n  \"format\": \"tapeloop-replay/v1\"") {
			t.Errorf("%v: exit %d; want 0 and the JSON on stdout\n%s%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "replay", "--json", "-", "--html", "-", dir); code != exitUsage || !strings.Contains(errOut, "only one of --json, --junit and --html may be -") {
		t.Errorf("two outputs on stdout: exit %d, stderr %s", code, errOut)
	}
	// report --json - writes the saved result again.
	if code, out, errOut := runCmd(t, "report", "--json", "-", file); code != exitOK || !strings.Contains(out, `"format": "tapeloop-replay/v1"`) {
		t.Errorf("report --json -: exit %d\n%s%s", code, out, errOut)
	}
}

// TestEvalBaseURLAndJSONStdout: --base-url points every model at the
// scripted local server, ahead of OPENAI_BASE_URL (here a closed port), and
// --json - prints the report instead of the text.
func TestEvalBaseURLAndJSONStdout(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_BASE_URL", "http://"+l.Addr().String())
	l.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	code, out, errOut := runCmd(t, "eval", "--model", "openai-compatible/right", "--trials", "2", "--shard", "1/1", "--base-url", srv.URL, "--json", "-", dir)
	if code != exitOK {
		t.Fatalf("exit %d; want 0\n%s%s", code, out, errOut)
	}
	r, err := report.ReadEval(strings.NewReader(out))
	if err != nil || r.Summary.Passed != 2 {
		t.Fatalf("stdout is not the report (%v): %s", err, out)
	}
	// merge --json - prints the merged report; its summary line moves to
	// stderr.
	file := filepath.Join(t.TempDir(), "e.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, mout, merr := runCmd(t, "merge", "--json", "-", file)
	if code != exitOK || !strings.HasPrefix(mout, "{\n  \"format\": \"tapeloop-eval/v1\"") || !strings.Contains(merr, "merged 1 shard: 2 trials passed") {
		t.Errorf("merge --json -: exit %d\nstdout:\n%s\nstderr:\n%s", code, mout, merr)
	}
}

// TestOutputsNeverOverwriteScenarioFiles: --html, --json or --junit given
// a golden or a scenario file is refused with exit 2, and the file stays
// as it was; --json followed by a scenario file is the old switch, which
// replays it (issue 39, minor list).
func TestOutputsNeverOverwriteScenarioFiles(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	for _, target := range []string{filepath.Join(dir, "math", "add.golden.yaml"), filepath.Join(dir, "math", "add.yaml")} {
		for _, flag := range []string{"--html", "--json", "--junit"} {
			before, _ := os.ReadFile(target)
			code, out, errOut := runCmd(t, "replay", flag, target, dir)
			oldSwitch := flag == "--json" && strings.HasSuffix(target, "add.yaml") // JSON to stdout, the scenario replayed
			if !oldSwitch && (code != exitUsage || !strings.Contains(errOut, "tapeloop")) {
				t.Errorf("replay %s %s: exit %d, want 2 refusing a tapeloop file\n%s%s", flag, target, code, out, errOut)
			}
			if now, _ := os.ReadFile(target); string(now) != string(before) {
				t.Errorf("replay %s %s overwrote it", flag, target)
			}
		}
	}
}

// TestReplayJSONToAYAMLName: --json NAME writes the JSON to NAME whatever
// its extension when NAME is no scenario file or folder; only an existing
// scenario path after --json is the old switch's path (issue 39, minor
// list).
func TestReplayJSONToAYAMLName(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "out.yaml")
	code, out, errOut := runCmd(t, "replay", "--json", file, dir)
	if code != exitOK || !strings.Contains(out, "1 passed") {
		t.Fatalf("--json out.yaml: exit %d\n%s%s", code, out, errOut)
	}
	if r, err := report.ReadReplay(file); err != nil || r.Summary.Passed != 1 {
		t.Errorf("--json out.yaml wrote %+v, %v", r, err)
	}
}

// The argument after --json is its file when it ends in .json, even when
// it names a folder (which cannot be written); a folder whose name only
// holds ".json" is the old switch's scenarios path.
func TestReplayJSONNameEndsInDotJSON(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	named := filepath.Join(filepath.Dir(dir), "cases.json.d")
	if err := os.Rename(dir, named); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "replay", "--update", named); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "replay", "--json", named); code != exitOK || !strings.HasPrefix(out, "{\n  \"format\": \"tapeloop-replay/v1\"") || !strings.Contains(out, `"passed": 1`) {
		t.Errorf("--json cases.json.d: exit %d; want 0, the folder replayed and the JSON on stdout\n%s%s", code, out, errOut)
	}
	folder := filepath.Join(t.TempDir(), "res.json")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "replay", "--json", folder, named); code != exitUsage || !strings.Contains(errOut, "--json: writing "+folder+": ") || !strings.Contains(out, "1 passed") {
		t.Errorf("--json FOLDER.json: exit %d; want 2, the text on stdout and the folder refused\n%s%s", code, out, errOut)
	}
}
