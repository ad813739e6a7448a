package evalrun

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
)

var update = flag.Bool("update", false, "rewrite testdata/simuser's recorded scenario and golden")

// simUserScenario is a conversation whose user is a model: the scripted
// server's user-3 writes three messages, then its stop text.
const simUserScenario = `# A conversation whose user is a model.
format: tapeloop/v1
setup:
  user:
    model: openai-compatible/user-3
    instructions: |
      You are Mia. Ask the assistant three things, one at a time.
    max_turns: 5   # a bound; user-3 stops after three
input:
  - {role: user, content: "Hello."}
tape: []   # recorded by evalrun record
expect:
  termination: final_text
  iterations: 4
  final: {equals: "You said: message 3"}
`

// TestRecordSimulatedUser records a conversation of three simulated user
// turns from the scripted local server, writes exactly the reviewed
// scenario and golden of testdata/simuser, and replays it with the server
// gone, byte for byte; a changed conversation fails closed.
func TestRecordSimulatedUser(t *testing.T) {
	srv := wiretest.New(nil)
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := newScenarios(t, map[string]string{"chat.yaml": simUserScenario})
	path := filepath.Join(dir, "chat.yaml")
	golden := filepath.Join(dir, "chat.golden.yaml")
	code, out, errOut := recordLive(context.Background(), "--model", "openai-compatible/echo", "--base-url", srv.URL, dir)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	want := "recorded  chat  4 model calls, 200 tokens in, 40 out, $T\n" +
		"    PASS  replaying the recording (golden written: " + golden + ")\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("stdout\n%s\nwant it to start\n%s", out, want)
	}
	// The agent was asked 4 times, the user model 4 (three messages and
	// the stop, which is not sent).
	if srv.RequestsFor("echo") != 4 || srv.RequestsFor("user-3") != 4 {
		t.Errorf("requests: echo %d, user-3 %d; want 4 and 4", srv.RequestsFor("echo"), srv.RequestsFor("user-3"))
	}
	recorded, _ := os.ReadFile(path)
	blessed, _ := os.ReadFile(golden)
	for _, f := range []struct {
		name string
		data []byte
	}{{"chat.yaml", recorded}, {"chat.golden.yaml", blessed}} {
		ref := filepath.Join("testdata", "simuser", f.name)
		if *update {
			if err := os.WriteFile(ref, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want, err := os.ReadFile(ref); err != nil || !bytes.Equal(f.data, want) {
			t.Errorf("%s differs from %s (%v); go test ./evalrun -run TestRecordSimulatedUser -update rewrites it, for review:\n%s", f.name, ref, err, f.data)
		}
	}
	// Recorded again (--mode all) from a tape holding one user turn more,
	// the user model speaks anew and the old recording's user turns are
	// dropped, not spoken again nor kept: the same server gives the same
	// scenario, byte for byte.
	longer := bytes.Replace(recorded, []byte("  - user: message 3\n"), []byte("  - user: message 3\n  - user: an old turn\n"), 1)
	if bytes.Equal(longer, recorded) {
		t.Fatal("the recording has no third user turn")
	}
	if err := os.WriteFile(path, longer, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = recordLive(context.Background(), "--mode", "all", "--model", "openai-compatible/echo", "--base-url", srv.URL, dir)
	if again, _ := os.ReadFile(path); code != exitOK || !bytes.Equal(again, recorded) {
		t.Fatalf("record --mode all: exit %d\n%s%s\nthe scenario, recorded again:\n%s", code, out, errOut, again)
	}
	// Replay offline: no request reaches the server (the user model is
	// never called), it passes, and the golden stays byte for byte.
	requests := srv.Requests()
	defer srv.Close()
	for range 2 {
		code, out, errOut = runCmd(t, "replay", dir)
		if code != exitOK || !strings.Contains(out, "1 passed, 0 failed") {
			t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
		}
		if again, _ := os.ReadFile(golden); !bytes.Equal(again, blessed) {
			t.Errorf("the replay rewrote the golden")
		}
	}
	if srv.Requests() != requests {
		t.Errorf("the replays made %d requests", srv.Requests()-requests)
	}
	// The conversation diverges (the user's opening changed): the replay
	// fails closed, naming the entry.
	if err := os.WriteFile(path, bytes.Replace(recorded, []byte(`content: "Hello."`), []byte(`content: "Hi."`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "replay", dir)
	if code != exitFailed || !strings.Contains(out, "chat.yaml:") || !strings.Contains(out, "Hi.") {
		t.Errorf("a diverged conversation: exit %d\n%s", code, out)
	}
}

// TestRecordSimulatedUserErrors: a user model that fails makes the
// recording fail, naming it, and writes nothing; --mode extend is refused
// for a recorded simulated conversation.
func TestRecordSimulatedUserErrors(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	failing := strings.Replace(simUserScenario, "user-3", "user-fail", 1)
	dir := newScenarios(t, map[string]string{"chat.yaml": failing})
	path := filepath.Join(dir, "chat.yaml")
	code, out, errOut := recordLive(context.Background(), "--model", "openai-compatible/echo", "--base-url", srv.URL, path)
	if code != exitFailed || !strings.Contains(out, "the recording failed: the run ended with model_error: user model openai-compatible/user-fail failed after turn 1: ") {
		t.Errorf("a failing user model: exit %d\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != failing {
		t.Errorf("a failed recording wrote the file:\n%s", data)
	}
	recorded, err := os.ReadFile(filepath.Join("testdata", "simuser", "chat.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, recorded, 0o644); err != nil {
		t.Fatal(err)
	}
	requests := srv.Requests()
	code, out, _ = recordLive(context.Background(), "--model", "openai-compatible/echo", "--base-url", srv.URL, "--mode", "extend", path)
	if code != exitUsage || !strings.Contains(out, "chat.yaml:5: --mode extend: the scenario's user is a model (setup.user)") || srv.Requests() != requests {
		t.Errorf("--mode extend: exit %d, %d requests\n%s", code, srv.Requests()-requests, out)
	}
}

// TestEvalSimulatedUserSavesTrials runs the command's eval with a
// simulated user on the scripted server: every trial passes, the report
// says what the user model spent, and the saved trials replay with no
// request to the server.
func TestEvalSimulatedUserSavesTrials(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := newScenarios(t, map[string]string{"chat.yaml": simUserScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, out, errOut := runCmd(t, "eval", "--model", "openai-compatible/echo", "--trials", "2", "--save-trials", saved,
		"--price", "openai-compatible/user-3=1,2", "--json", jsonPath, dir)
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	r := readReport(t, jsonPath)
	for _, tr := range r.Scenarios[0].TrialsDetail {
		u := tr.User
		if tr.Status != "pass" || tr.Saved == "" || u == nil || u.Model != "openai-compatible/user-3" || u.Calls != 4 || u.Turns != 3 || u.Cost == nil || tr.Cost == nil || *tr.Cost != *u.Cost {
			t.Errorf("trial %d: %s, saved %q, user %+v, cost %v", tr.Trial, tr.Status, tr.Saved, u, tr.Cost)
		}
	}
	requests := srv.Requests()
	code, out, errOut = runCmd(t, "replay", saved)
	if code != exitOK || !strings.Contains(out, "2 passed, 0 failed") || srv.Requests() != requests {
		t.Errorf("replaying the saved trials: exit %d, %d requests\n%s%s", code, srv.Requests()-requests, out, errOut)
	}
}

// TestBridgedSimulatedUser: a bridged agent (converseAgent, asking
// Run.NextUser after each answer) whose user is a model: record writes
// the three simulated turns, the recording replays through the agent with
// no request to the server, and eval's saved trials replay too.
func TestBridgedSimulatedUser(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	bridged := strings.Replace(simUserScenario, "setup:\n", "setup:\n  agent: {go: echo}\n", 1)
	dir := newScenarios(t, map[string]string{"chat.yaml": bridged})
	path := filepath.Join(dir, "chat.yaml")
	code, out, errOut := runAgentCmd(t, converseAgent, "record", "--model", "openai-compatible/echo", "--base-url", srv.URL, path)
	if code != exitOK || !strings.Contains(out, "PASS  replaying the recording") {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	if got := strings.Count(string(data), "\n  - user: message "); got != 3 || srv.RequestsFor("user-3") != 4 {
		t.Errorf("%d user turns recorded, %d user model calls; want 3 and 4:\n%s", got, srv.RequestsFor("user-3"), data)
	}
	requests := srv.Requests()
	code, out, errOut = runAgentCmd(t, converseAgent, "replay", dir)
	if code != exitOK || !strings.Contains(out, "1 passed, 0 failed") || srv.Requests() != requests {
		t.Errorf("replay: exit %d, %d requests\n%s%s", code, srv.Requests()-requests, out, errOut)
	}
	saved := filepath.Join(t.TempDir(), "trials")
	code, out, errOut = runAgentCmd(t, converseAgent, "eval", "--model", "openai-compatible/echo", "--base-url", srv.URL, "--trials", "2", "--save-trials", saved, path)
	if code != exitOK || !strings.Contains(out, "2/2 pass") {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	requests = srv.Requests()
	code, out, errOut = runAgentCmd(t, converseAgent, "replay", saved)
	if code != exitOK || !strings.Contains(out, "2 passed, 0 failed") || srv.Requests() != requests {
		t.Errorf("replaying the saved trials: exit %d, %d requests\n%s%s", code, srv.Requests()-requests, out, errOut)
	}
}
