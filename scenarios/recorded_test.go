package scenarios_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/evalrun"
	_ "github.com/tapeloop/tapeloop/llm/openai" // openai-compatible/, the models record opens
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/scenario"
)

// recordedExamples are bundled scenarios whose tapes, user turns and judge
// verdicts evalrun record wrote, from the scripted models of
// llm/wire/wiretest over HTTP: each one's seed as written by hand (its
// tape empty), and the flags it is recorded with.
var recordedExamples = []struct {
	path, seed string
	args       []string
}{
	{
		path: "scoring/judged-append.yaml",
		args: []string{"--model", "openai-compatible/right", "--judge-model", "openai-compatible/judge"},
		seed: `# A scenario graded by a judge model (expect.judge, docs/scoring.md): its
# verdict was recorded with the tape, so a replay re-checks it offline and
# fails closed when the judged transcript changes. Recorded by
# scenarios/recorded_test.go from the scripted models of llm/wire/wiretest:
#   evalrun record --model openai-compatible/right --judge-model openai-compatible/judge
format: tapeloop/v1
description: The model appends a line; a judge grades the transcript against a rubric.
tags: [scoring, judge]
setup:
  workspace:
    files: {notes.txt: "hello\n"}
  tools: [read_file, write_file]
input:
  - {role: user, content: "Append 'world' to notes.txt."}
tape: []
expect:
  termination: final_text
  files: {notes.txt: "hello\nworld\n"}
  judge:
    - {rubric: "Appends world on a line of its own, keeping the first line.", on: transcript}
`,
	},
	{
		path: "conversations/simulated-user.yaml",
		args: []string{"--model", "openai-compatible/echo"},
		seed: `# A conversation whose user is a model (setup.user, docs/conversations.md):
# record and eval ask the user model for each next message; what it said
# is kept as the tape's user: turns, so the replay needs no model at all.
# Recorded by scenarios/recorded_test.go from the scripted models of
# llm/wire/wiretest (user-2 writes two messages, then its stop text):
#   evalrun record --model openai-compatible/echo
format: tapeloop/v1
description: A model plays the user for two more messages after the opening.
tags: [conversations, simulated-user]
setup:
  user:
    model: openai-compatible/user-2
    instructions: |
      You are Mia. Ask the assistant two things, one at a time.
    max_turns: 4   # a bound; user-2 stops after two
input:
  - {role: user, content: "Hello."}
tape: []
expect:
  termination: final_text
  iterations: 3
  said:
    - {equals: "You said: message 1"}
  final: {equals: "You said: message 2"}
`,
	},
}

// TestRecordedExamples records each of recordedExamples' seeds again from
// the scripted server and requires exactly the bundled scenario and
// golden: what the folder holds is what evalrun record writes, not a
// hand-typed tape or verdict. go test ./scenarios -run TestRecordedExamples
// -update rewrites them, for review.
func TestRecordedExamples(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	update := flag.Lookup("update").Value.String() == "true"
	for _, ex := range recordedExamples {
		t.Run(ex.path, func(t *testing.T) {
			// Under a folder named scenarios, as here: the default name, and
			// so the golden, is the path below it.
			path := filepath.Join(t.TempDir(), "scenarios", filepath.FromSlash(ex.path))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(ex.seed), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			args := append(append([]string{"record"}, ex.args...), "--base-url", srv.URL, path)
			if code := evalrun.Main(context.Background(), args, &out, &errb, nil); code != 0 {
				t.Fatalf("record: exit %d\n%s%s", code, out.String(), errb.String())
			}
			for _, pair := range [][2]string{{path, ex.path}, {scenario.GoldenPath(path), scenario.GoldenPath(ex.path)}} {
				got, err := os.ReadFile(pair[0])
				if err != nil {
					t.Fatal(err)
				}
				if update {
					if err := os.MkdirAll(filepath.Dir(pair[1]), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(pair[1], got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if want, err := os.ReadFile(pair[1]); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s is not what evalrun record writes (%v); go test ./scenarios -run TestRecordedExamples -update rewrites it:\n%s", pair[1], err, got)
				}
			}
		})
	}
}
