package dated_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/dated"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var record = flag.Bool("record", false, "record the scenarios' tapes against the scripted model")

// TestScenarios replays scenarios/: the agent before its fix and after,
// goldens and expectations as for any scenario (go test -update rewrites
// the goldens).
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Agents: dated.Agents()})
}

// script stands in for a live model when the tapes are recorded (go test
// -record): the same answers for the agent before and after its fix.
var script = []*llm.Response{
	call("call_1", `{"name":"calendar"}`),
	call("call_2", `{"name":"todo"}`),
	{Message: llm.AssistantMessage("Tomorrow, Monday: the dentist at 09:30 and the team review at 14:00. Send the review notes before 14:00, and book the train to Lyon."),
		FinishReason: llm.FinishStop},
}

func call(id, args string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "read_note", Arguments: args}), FinishReason: llm.FinishToolCalls}
}

// TestRecord records each scenario's tape in place, the scripted model
// answering through the bridge as a live one would (bridge.Record).
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("go test -record records the tapes")
	}
	for _, name := range []string{"before", "after"} {
		path := filepath.Join("scenarios", name+".yaml")
		s, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			r := script[min(n, len(script)-1)]
			n++
			return r, nil
		})
		_, tape, err := bridge.Record(t.Context(), s, dated.Bridged(name == "before"), model, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bridge.WriteRecording(path, tape); err != nil {
			t.Fatal(err)
		}
	}
}

// The agent before its fix, held to the share its fix reaches, fails its
// replay, naming the place its prefix breaks on each request.
func TestBeforeFailsTheGate(t *testing.T) {
	s, err := scenario.Load(filepath.Join("scenarios", "before.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := scenario.Load(filepath.Join("scenarios", "after.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if after.Expect.Cache == nil {
		t.Fatal("after.yaml has no expect.cache")
	}
	s.Expect.Cache = after.Expect.Cache
	o, err := harness.Run(t.Context(), s, &harness.RunOptions{Agents: dated.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range harness.Failures(s, o) {
		got = append(got, f.Error())
	}
	want := regexp.MustCompile(`^scenarios/before.yaml(:\d+)?: expect.cache: expected a cacheable share of at least 50% under openai's cache rules, found 0% \(0 of \d+ input tokens, estimated\); the prefix broke at request 1: system\[0\] changed, request 2: system\[0\] changed$`)
	if len(got) != 1 || !want.MatchString(got[0]) {
		t.Errorf("failures %q, want one matching %s", got, want)
	}
}

// TestCostDoc: every "$ go run ./examples/dated/cmd/datedrun" block of
// docs/cost.md prints what the command prints, run from the repository's
// root, so the worked example's figures stay true.
func TestCostDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cost.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```\n\\$ go run ./examples/dated/cmd/datedrun ([^\n]*)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 2 {
		t.Fatalf("docs/cost.md shows %d datedrun commands, want the example before and after", len(blocks))
	}
	src, err := os.ReadFile("dated.go")
	if err != nil {
		t.Fatal(err)
	}
	trim := regexp.MustCompile(`(?m)^\s+`)
	for _, b := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if !strings.Contains(trim.ReplaceAllString(string(src), ""), trim.ReplaceAllString(b[1], "")) {
			t.Errorf("this Go block of docs/cost.md is not in dated.go:\n%s", b[1])
		}
	}
	for _, b := range blocks {
		var args []string
		for _, a := range strings.Fields(b[1]) {
			if strings.HasPrefix(a, "examples/") {
				a = filepath.Join("../..", a)
			}
			args = append(args, a)
		}
		var out, errb bytes.Buffer
		code := evalrun.Main(t.Context(), args, &out, &errb, &evalrun.Options{Agents: dated.Agents()})
		if got := strings.ReplaceAll(out.String(), "../../examples/", "examples/"); got != b[2] {
			t.Errorf("datedrun %s: exit %d, stderr %q; stdout:\n%s\nthe doc shows:\n%s", b[1], code, errb.String(), got, b[2])
		}
	}
}
