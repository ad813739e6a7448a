package nodeagent_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/openai" // registers openai-compatible/
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var recordFlag = flag.Bool("record", false, "record scenarios/*.yaml again against the scripted local server")

// needNode skips when node or the installed npm package is missing, except
// under CI, where the test must run (.ci/run installs them).
func needNode(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat("node_modules/openai/package.json"); err != nil {
		missing = "the openai npm package is not installed (run: cd examples/nodeagent && npm ci)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set and %s", missing)
	}
	t.Skip(missing)
}

// TestScenarios replays the committed scenarios with agent.mjs through the
// bridge: no model, no network.
func TestScenarios(t *testing.T) {
	needNode(t)
	if *recordFlag {
		recordAll(t)
	}
	harness.Test(t, "scenarios", &harness.TestOptions{Commands: bridge.Runner(nil, nil)})
}

// recordAll records each committed scenario again against the scripted
// local server (go test -record, then -update for the goldens).
func recordAll(t *testing.T) {
	paths, err := scenario.Discover("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		recordOne(t, p)
	}
}

// recordOne records the scenario at path with agent.mjs against a scripted
// local server speaking the OpenAI wire format (llm/wire/wiretest, whose
// model steps-3 reads notes.txt, writes it, and says done), writes the tape
// in place, and closes the server.
func recordOne(t *testing.T, path string) {
	t.Helper()
	srv := wiretest.New(nil)
	defer srv.Close()
	model, err := llm.Open(t.Context(), "openai-compatible/steps-3", &llm.OpenOptions{BaseURL: srv.URL, APIKey: "sk-local-test"})
	if err != nil {
		t.Fatal(err)
	}
	s := load(t, path)
	o, tape, err := bridge.Record(t.Context(), s, bridge.Command(s), model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("%s: the recording ended with %s: %s", path, o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
}

// TestRecordReplayFailClosed records agent.mjs (Chat Completions) and
// agent-responses.mjs (the Responses API), JSON and streamed, into a copy
// of a scenario, replays each with the server closed, and fails closed
// when the program's system prompt or a tool's description changes.
func TestRecordReplayFailClosed(t *testing.T) {
	needNode(t)
	src, err := os.ReadFile("scenarios/append.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The committed scenario, recorded again below.
	text := string(src)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ program, stream string }{
		{"agent.mjs", "0"}, {"agent.mjs", "1"}, {"agent-responses.mjs", "0"}, {"agent-responses.mjs", "1"},
	} {
		stream := tc.stream
		t.Run(tc.program+"/stream="+stream, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "scenarios")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "append.yaml")
			body := strings.ReplaceAll(text, "$SCENARIO_DIR/..", here)
			body = strings.Replace(body, "/agent.mjs]", "/"+tc.program+"]", 1)
			body = strings.Replace(body, "NOTES_STREAM: \"0\"", "NOTES_STREAM: \""+stream+"\"", 1)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			recordOne(t, path)
			if v := verify(t, path, true); !v.Passed() {
				t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
			}
			if v := verify(t, path, false); !v.Passed() {
				t.Fatalf("the replay with the server gone fails:\n%s", fmt.Sprint(v.Failure()))
			}
			for _, c := range []struct{ what, env, want string }{
				{"system prompt", "NOTES_SYSTEM: Be brief.", "Be brief."},
				{"tool description", "NOTES_READ_DESC: Read any text file.", "Read any text file."},
			} {
				recorded, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				changed := strings.Replace(string(recorded), "      NOTES_STREAM:", "      "+c.env+"\n      NOTES_STREAM:", 1)
				if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
					t.Fatal(err)
				}
				v := verify(t, path, false)
				all := fmt.Sprint(v.Failure())
				if v.Passed() || !strings.Contains(all, "append.yaml:") || !strings.Contains(all, c.want) {
					t.Errorf("%s changed: passed %v; want a failure naming append.yaml and showing %q:\n%s", c.what, v.Passed(), c.want, all)
				}
				if err := os.WriteFile(path, recorded, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func load(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verify(t *testing.T, path string, update bool) *harness.Verdict {
	t.Helper()
	s := load(t, path)
	v := harness.VerifyScenario(t.Context(), s, &harness.VerifyOptions{Update: update, Commands: bridge.Runner(nil, nil)})
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	return v
}
