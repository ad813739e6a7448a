package evalrun

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// readResult reads a replay result written by a command, with the times
// zeroed (they differ from run to run).
func readResult(t *testing.T, path string) *report.Replay {
	t.Helper()
	r, err := report.ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Summary.Seconds = 0
	for i := range r.Scenarios {
		r.Scenarios[i].Seconds = 0
	}
	return r
}

// replayToFile runs replay with args and writes its --json output to a file.
func replayToFile(t *testing.T, path string, args ...string) {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"replay", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("replay %v: exit %d\n%s", args, code, errOut)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShardsMergedEqualUnsharded replays the bundled suite whole and as
// shards 1/3, 2/3 and 3/3, merges the shards, and compares.
func TestShardsMergedEqualUnsharded(t *testing.T) {
	const suite = "../scenarios"
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("no bundled suite at %s: %v", suite, err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	replayToFile(t, whole, suite)
	var shards []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, "shard"+s[:1]+".json")
		replayToFile(t, p, "--shard", s, suite)
		if n := len(readResult(t, p).Scenarios); n == 0 {
			t.Fatalf("shard %s is empty: the test would prove little", s)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "all.json")
	html, junit := filepath.Join(dir, "all.html"), filepath.Join(dir, "all.xml")
	// Shards in another order than their indices.
	code, out, errOut := runCmd(t, "merge", shards[2], shards[0], shards[1], "--json", merged, "--html", html, "--junit", junit)
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	want, got := readResult(t, whole), readResult(t, merged)
	if len(want.Scenarios) < 10 {
		t.Fatalf("the bundled suite has %d scenarios", len(want.Scenarios))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the merged result differs from the unsharded one: summary %+v, want %+v", got.Summary, want.Summary)
	}
	if !strings.Contains(out, "merged 3 shards: ") {
		t.Errorf("stdout %q", out)
	}
	for _, p := range []string{html, junit} {
		if info, err := os.Stat(p); err != nil || info.Size() == 0 {
			t.Errorf("%s was not written: %v", p, err)
		}
	}

	// An Indexed Job's environment chooses the same shard as --shard.
	t.Setenv(report.JobIndexVar, "1")
	t.Setenv(report.ShardTotalVar, "3")
	fromEnv := filepath.Join(dir, "env.json")
	replayToFile(t, fromEnv, suite)
	if a, b := readResult(t, fromEnv), readResult(t, shards[1]); !reflect.DeepEqual(a, b) {
		t.Errorf("JOB_COMPLETION_INDEX=1 of 3 chose %d scenarios, --shard 2/3 %d", len(a.Scenarios), len(b.Scenarios))
	}

	// A missing shard is refused.
	code, _, errOut = runCmd(t, "merge", shards[0], shards[2], "--json", merged)
	if want := "evalrun merge: cannot merge: missing shard 2/3 of 3\n"; code != exitUsage || errOut != want {
		t.Errorf("merge without shard 2: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

func TestReplayShardFlagErrors(t *testing.T) {
	code, _, errOut := runCmd(t, "replay", "--shard", "4/3", "../scenarios")
	if want := "evalrun replay: --shard: invalid shard \"4/3\": want 1 <= i <= n\n"; code != exitUsage || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}

func TestReportRendersSavedResults(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	runCmd(t, "replay", "--update", dir)
	res := filepath.Join(t.TempDir(), "r.json")
	replayToFile(t, res, dir)
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, errOut := runCmd(t, "report", "--html", html, res); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(page), `data-name="math/add"`) {
		t.Errorf("the page lacks the scenario (err %v)", err)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"format": "tapeloop-replay/v9"}`), 0o644)
	code, _, errOut := runCmd(t, "report", "--html", html, bad)
	if want := `evalrun report: not a tapeloop result: ` + bad + `: format "tapeloop-replay/v9", want tapeloop-replay/v1 or tapeloop-eval/v1` + "\n"; code != exitUsage || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// TestMergeReplayWithEvalSaysSo: a replay result merged with an eval
// report, in either order, is refused saying which file is which kind
// (issue 39, minor list).
func TestMergeReplayWithEvalSaysSo(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("blessing: exit %d\n%s%s", code, out, errOut)
	}
	tmp := t.TempDir()
	replayJSON, evalJSON := filepath.Join(tmp, "r.json"), filepath.Join(tmp, "e.json")
	if code, out, errOut := runCmd(t, "replay", "--json", replayJSON, dir); code != exitOK {
		t.Fatalf("replay --json: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(evalJSON, []byte(`{"format":"tapeloop-eval/v1","models":[],"scenarios":[],"summary":{"trials_per_scenario":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{replayJSON, evalJSON}, {evalJSON, replayJSON}} {
		code, out, errOut := runCmd(t, append([]string{"merge", "--json", filepath.Join(tmp, "all.json")}, args...)...)
		want := fmt.Sprintf("%s is a replay result and %s an eval report: merge results of one kind", replayJSON, evalJSON)
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("merge %v: exit %d, want 2 saying %q\n%s%s", args, code, want, out, errOut)
		}
	}
}

// merge writes whichever outputs are asked for: --junit alone is enough,
// and without any output it is a usage error.
func TestMergeWithOnlyJUnit(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	tmp := t.TempDir()
	result, junit := filepath.Join(tmp, "r.json"), filepath.Join(tmp, "all.xml")
	replayToFile(t, result, dir)
	if code, out, errOut := runCmd(t, "merge", result, "--junit", junit); code != exitOK {
		t.Errorf("merge --junit only: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if data, err := os.ReadFile(junit); err != nil || !strings.Contains(string(data), "<testsuite") {
		t.Errorf("merge --junit wrote no JUnit file: %v\n%s", err, data)
	}
	if code, _, _ := runCmd(t, "merge", result); code != exitUsage {
		t.Errorf("merge without an output: exit %d, want 2", code)
	}
}
