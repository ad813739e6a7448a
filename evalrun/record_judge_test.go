package evalrun

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
)

// judgeSecret is in the judged scenario's input, so in its transcript.
const judgeSecret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"

// unjudged is unrecorded, scored by a rubric on its transcript.
var unjudged = strings.Replace(unrecorded, "  files: {notes.txt: \"hello\\nworld\\n\"}\n",
	"  judge: {rubric: \"appends world on a line of its own\", on: transcript}\n", 1)

// TestRecordJudgeReplay: record asks the judge and writes its verdict into
// the file (redacted); replay re-uses it with no request at all; an edited
// final text fails closed until --mode judge records the verdict again;
// a verdict no item uses fails; eval --judge-model scores with the judge.
func TestRecordJudgeReplay(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	src := strings.Replace(unjudged, "Append 'world' to notes.txt.", "Append 'world' to notes.txt. My key is "+judgeSecret+".", 1)
	dir := newScenarios(t, map[string]string{"files/append.yaml": src})
	path := filepath.Join(dir, "files", "append.yaml")
	code, out, errOut := recordLive(context.Background(), "--model", "openai-compatible/right", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	if code != exitOK || !strings.Contains(out, "    judged: 1 judge call(s), 50 tokens in, 10 out\n") || !strings.Contains(out, "PASS  replaying the recording") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	_, judge, ok := strings.Cut(string(data), "\njudge:\n")
	if !ok || strings.Contains(judge, judgeSecret) || !strings.Contains(judge, "    model: openai-compatible/judge\n    on: transcript\n") || !strings.Contains(judge, "    pass: true\n") {
		t.Fatalf("the recorded file has no judge: section, or it keeps the secret:\n%s", data)
	}

	requests := srv.Requests()
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
	edited := strings.Replace(string(data), "content: done\n", "content: done, I think\n", 1)
	if edited == string(data) {
		t.Fatalf("no final text to edit:\n%s", data)
	}
	os.WriteFile(path, []byte(edited), 0o644)
	code, out, _ = runCmd(t, "replay", path)
	if code != exitFailed || !strings.Contains(out, ": judge[0]: the judged text changed: re-record the verdict with `evalrun record --mode judge --judge-model PROVIDER/MODEL "+path+"`") ||
		!strings.Contains(out, "+assistant: done, I think") {
		t.Errorf("replay of the edited tape: exit %d\n%s", code, out)
	}
	if n := srv.Requests() - requests; n != 0 {
		t.Errorf("the replays made %d requests; want none", n)
	}

	// --mode judge records the verdict on the tape as it now is.
	code, out, errOut = recordLive(context.Background(), "--mode", "judge", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	if code != exitOK || !strings.Contains(out, "    judged: 1 judge call(s)") || srv.Requests()-requests != 1 {
		t.Fatalf("--mode judge: exit %d, %d requests\n%s\n%s", code, srv.Requests()-requests, out, errOut)
	}
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay after --mode judge: exit %d\n%s", code, out)
	}

	// A tape that no longer replays (the input changed) is not judged: the
	// judge is not asked and the file stays as it was.
	data, _ = os.ReadFile(path)
	diverged := strings.Replace(string(data), "Append 'world' to notes.txt.", "Append 'earth' to notes.txt.", 1)
	if diverged == string(data) {
		t.Fatalf("no input to change:\n%s", data)
	}
	os.WriteFile(path, []byte(diverged), 0o644)
	before := srv.Requests()
	code, out, errOut = recordLive(context.Background(), "--mode", "judge", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	if after, _ := os.ReadFile(path); code != exitFailed || !strings.Contains(out, path+": the tape does not replay, so there is nothing to judge: ") || srv.Requests() != before || string(after) != diverged {
		t.Errorf("--mode judge of a tape that does not replay: exit %d, %d requests, file changed %v\n%s\n%s", code, srv.Requests()-before, string(after) != diverged, out, errOut)
	}
	os.WriteFile(path, data, 0o644)

	// The item removed: its verdict is left unused, and the replay fails.
	data, _ = os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "  judge: {rubric: \"appends world on a line of its own\", on: transcript}\n", "", 1)), 0o644)
	if code, out, _ := runCmd(t, "replay", path); code != exitFailed || !strings.Contains(out, ": judge[0]: no expect.judge item uses this recorded verdict") {
		t.Errorf("replay with the item removed: exit %d\n%s", code, out)
	}

	// eval: the judge scores live trials.
	os.WriteFile(path, []byte(src), 0o644)
	jsonOut := filepath.Join(t.TempDir(), "eval.json")
	code, out, errOut = runCmd(t, "eval", "--model", "openai-compatible/right", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, "--trials", "2", "--json", jsonOut, path)
	report, _ := os.ReadFile(jsonOut)
	if code != exitOK || !strings.Contains(string(report), `"judge": [`) || !strings.Contains(string(report), `"judge_pass": true`) || strings.Contains(string(report), judgeSecret) {
		t.Errorf("eval: exit %d\n%s\n%s\n%s", code, out, errOut, report)
	}
	if code, _, errOut := runCmd(t, "eval", "--model", "openai-compatible/right", "--base-url", srv.URL, path); code != exitUsage || !strings.Contains(errOut, "expect.judge[0]: no judge model") {
		t.Errorf("eval without a judge model: exit %d\n%s", code, errOut)
	}
}

// TestRecordJudgeWithoutATape: --mode judge of a scenario with no recorded
// model answer is an error saying to record it first: exit 2, no judge
// asked, the file as it was.
func TestRecordJudgeWithoutATape(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	dir := newScenarios(t, map[string]string{"files/append.yaml": unjudged})
	path := filepath.Join(dir, "files", "append.yaml")
	code, out, errOut := recordLive(context.Background(), "--mode", "judge", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	want := "ERROR     files/append\n    " + path + ": --mode judge judges a recorded tape, and it has none: record it first (--mode once)\n"
	if code != exitUsage || !strings.HasPrefix(out, want) || srv.Requests() != 0 {
		t.Errorf("exit %d, %d requests, stdout:\n%s\nstderr:\n%s\nwant exit 2, no request, stdout starting:\n%s", code, srv.Requests(), out, errOut, want)
	}
	if data, _ := os.ReadFile(path); string(data) != unjudged {
		t.Errorf("the file changed:\n%s", data)
	}
}

// TestRecordJudgeOfARunThatCannotStart: --mode judge replays the tape
// before it asks the judge; a replay that cannot start (here the bridged
// scenario's Go agent is not registered) is an ERROR naming why: exit 2,
// no judge asked, the file as it was.
func TestRecordJudgeOfARunThatCannotStart(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	src := strings.Replace(silentScenario, "go: silent", "go: missing", 1)
	src = strings.Replace(src, "tape: []\n", "tape: [{response: {content: Hello.}}]\n", 1) +
		"  judge: {rubric: \"greets the user\", on: final}\n"
	dir := newScenarios(t, map[string]string{"s.yaml": src})
	path := filepath.Join(dir, "s.yaml")
	code, out, errOut := recordLive(context.Background(), "--mode", "judge", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	want := "ERROR     s\n    " + path + `:3: setup.agent.go: no Go agent "missing"`
	if code != exitUsage || !strings.HasPrefix(out, want) || srv.Requests() != 0 {
		t.Errorf("exit %d, %d requests, stdout:\n%s\nstderr:\n%s\nwant exit 2, no request, stdout starting:\n%s", code, srv.Requests(), out, errOut, want)
	}
	if data, _ := os.ReadFile(path); string(data) != src {
		t.Errorf("the file changed:\n%s", data)
	}
}

// TestRecordJudgeKeepsAnEditMadeMeanwhile: a scenario file edited while
// --mode judge asks the judge is not overwritten: the verdict is an ERROR
// saying the file changed and nothing was written, exit 2, and the edit
// stays.
func TestRecordJudgeKeepsAnEditMadeMeanwhile(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	dir := newScenarios(t, map[string]string{"files/append.yaml": unjudged})
	path := filepath.Join(dir, "files", "append.yaml")
	if code, out, errOut := recordLive(context.Background(), "--model", "openai-compatible/right", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path); code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := append(slices.Clone(recorded), "# edited while the judge was asked\n"...)
	// The judge's server: the file is edited when the judge is asked.
	target, _ := url.Parse(srv.Server.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var once sync.Once
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			if err := os.WriteFile(path, edited, 0o644); err != nil {
				t.Error(err)
			}
		})
		proxy.ServeHTTP(w, r)
	}))
	defer judge.Close()
	requests := srv.Requests()
	code, out, errOut := recordLive(context.Background(), "--mode", "judge", "--judge-model", "openai-compatible/judge", "--base-url", judge.URL+"/v1", path)
	want := "ERROR     files/append\n    " + path + " changed while it was being recorded; nothing written (record it again)\n"
	if code != exitUsage || !strings.HasPrefix(out, want) || srv.Requests()-requests != 1 {
		t.Errorf("exit %d, %d judge requests, stdout:\n%s\nstderr:\n%s\nwant exit 2, one judge request, stdout starting:\n%s", code, srv.Requests()-requests, out, errOut, want)
	}
	if data, _ := os.ReadFile(path); string(data) != string(edited) {
		t.Errorf("the edit was lost; the file reads:\n%s", data)
	}
}

// TestReplayJudgeRubricWithAPasswordItsPolicyKnows: a rubric and a judged
// transcript holding a password written with characters no key holds, from
// a secret-named variable, are recorded as [REDACTED]; a replay (and lint)
// under the policy that knows the password pairs the recorded verdict with
// its item, as a replay matches a prompt (issue 39, item 4).
func TestReplayJudgeRubricWithAPasswordItsPolicyKnows(t *testing.T) {
	const pw = "hunter2!&x#pw(1)"
	t.Setenv("APP_DB_PASSWORD", pw)
	srv := wiretest.New(nil)
	defer srv.Close()
	src := strings.Replace(unjudged, "appends world on a line of its own", "appends world and never says "+pw, 1)
	src = strings.Replace(src, "Append 'world' to notes.txt.", "Append 'world' to notes.txt. The password is "+pw+".", 1)
	dir := newScenarios(t, map[string]string{"files/append.yaml": src})
	path := filepath.Join(dir, "files", "append.yaml")
	code, out, errOut := recordLive(context.Background(), "--model", "openai-compatible/right", "--judge-model", "openai-compatible/judge", "--base-url", srv.URL, path)
	data, _ := os.ReadFile(path)
	_, judge, _ := strings.Cut(string(data), "\njudge:\n")
	if code != exitOK || strings.Contains(judge, pw) || !strings.Contains(judge, "  - rubric: appends world and never says [REDACTED]\n") ||
		!strings.Contains(judge, "user: Append 'world' to notes.txt. The password is [REDACTED].\n") {
		t.Fatalf("record: exit %d, or the judge: section does not hold the password redacted\n%s\n%s\n%s", code, out, errOut, data)
	}
	if code, out, errOut := runCmd(t, "replay", path); code != exitOK || strings.Contains(out+errOut, pw) {
		t.Errorf("replay: exit %d, want %d without the password\n%s%s", code, exitOK, out, errOut)
	}
	if code, out, errOut := runCmd(t, "lint", path); code != exitOK || strings.Contains(errOut, "judge") {
		t.Errorf("lint: exit %d, want %d with no warning about the verdict\n%s%s", code, exitOK, out, errOut)
	}
	// Another rubric still has no verdict.
	os.WriteFile(path, []byte(strings.Replace(string(data), "never says "+pw, "never says "+pw+" twice", 1)), 0o644)
	if code, out, _ := runCmd(t, "replay", path); code != exitFailed || !strings.Contains(out, "expect.judge[0]: no verdict recorded for this rubric") {
		t.Errorf("replay of another rubric: exit %d, want %d naming expect.judge[0]\n%s", code, exitFailed, out)
	}
}
