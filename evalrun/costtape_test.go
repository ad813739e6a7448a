package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// The requests rebuilt from a tape are, byte for byte in their JSON, the
// ones its replay sends, for every bundled scenario whose tape records
// them whole.
func TestTapeCallsAreTheReplaysRequests(t *testing.T) {
	files, err := filepath.Glob("../scenarios/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rebuilt := 0
	for _, f := range files {
		if filepath.Ext(filepath.Base(f[:len(f)-5])) == ".golden" {
			continue
		}
		s, err := scenario.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		calls, ok := tapeCalls(s)
		if !ok {
			continue
		}
		rebuilt++
		var col cost.Collector
		e := &env{}
		if _, err := e.run(context.Background(), s, &harness.RunOptions{Observer: col.Observe}); err != nil {
			t.Fatal(err)
		}
		sent := col.Calls()
		if len(sent) != len(calls) {
			t.Errorf("%s: %d requests rebuilt, the replay sent %d", s.Name, len(calls), len(sent))
			continue
		}
		for i := range sent {
			for j := range sent[i].Request.Messages {
				sent[i].Request.Messages[j].IsError = false // a tape does not keep it
			}
			a, _ := json.Marshal(calls[i].Request)
			b, _ := json.Marshal(sent[i].Request)
			if string(a) != string(b) {
				t.Errorf("%s: request %d rebuilt as\n%s\nthe replay sent\n%s", s.Name, i, a, b)
			}
		}
	}
	if rebuilt < 5 {
		t.Errorf("only %d bundled tapes record their requests whole", rebuilt)
	}
	t.Logf("%d of the bundled tapes rebuilt", rebuilt)
}

// rebase prints the tape's cacheable share before and after, and each
// agrees with what evalrun cost measures by replaying the scenario, the
// same file before the change and after the rebase.
func TestRebasePrintsShareBeforeAndAfter(t *testing.T) {
	path := pinnedNoteTaker(t)
	costShare := func() string {
		t.Helper()
		code, out, errOut := runCmd(t, "cost", path)
		m := regexp.MustCompile(`cacheable share (\d+%) \(\d+ of \d+ input tokens, estimated\)`).FindStringSubmatch(out)
		if code != exitOK || m == nil {
			t.Fatalf("cost: exit %d\n%s%s", code, out, errOut)
		}
		return m[1]
	}
	before := costShare()
	// The agent now repeats its whole system prompt in a second system
	// message with the day in it: the requests keep sharing their prefix,
	// but each is longer, so the share moves.
	edit(t, path, `content: "You read notes."`, `content: "You read notes."}`+"\n"+`  - {role: system, content: "Today is Sunday 2026-12-06; the notes are in notes.txt, one per line."`)
	code, out, errOut := runCmd(t, "rebase", path)
	m := regexp.MustCompile(`\n    cacheable share (\d+%) before, (\d+%) after \(estimated from the tape's requests; ` + "`evalrun cost`" + ` reads a scenario whole\)\n`).FindStringSubmatch(out)
	if code != exitOK || m == nil {
		t.Fatalf("rebase: exit %d\n%s%s", code, out, errOut)
	}
	after := costShare()
	t.Logf("rebase: %s -> %s; cost: %s -> %s", m[1], m[2], before, after)
	if m[1] != before || m[2] != after || before == after {
		t.Errorf("rebase says %s before, %s after; evalrun cost measured %s and %s (and they should differ)", m[1], m[2], before, after)
	}
}

// record prints the share of the tape it wrote, and with an old tape
// replaced, the share before too; each agrees with evalrun cost.
func TestRecordPrintsShareBeforeAndAfter(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	path := filepath.Join(dir, "files", "append.yaml")
	// costShare measures the share as evalrun cost does, by replaying the
	// file, but from the requests alone: the scripted answers' usage is
	// the script's, not what a cache would give these requests.
	costShare := func() string {
		t.Helper()
		s, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var col cost.Collector
		if _, err := (&env{}).run(context.Background(), s, &harness.RunOptions{Observer: col.Observe}); err != nil {
			t.Fatal(err)
		}
		calls := col.Calls()
		for i := range calls {
			calls[i].Usage = llm.Usage{}
		}
		run, err := cost.Analyze(calls)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%.0f%%", 100*run.Share())
	}
	code, out, _ := runRecordCmd(t, context.Background(), appendScript(), "--model", "fake/m", path)
	first := regexp.MustCompile(`\n    cacheable share (\d+%) \(estimated`).FindStringSubmatch(out)
	if code != exitOK || first == nil || strings.Contains(out, " before, ") {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	before := costShare()
	f := scripted(
		callResponse("call_a", "read_file", `{"path":"notes.txt"}`),
		callResponse("call_b", "write_file", `{"path":"notes.txt","content":"hello\nworld\n"}`),
		textResponse("Appended."))
	code, out, _ = runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--mode", "all", path)
	m := regexp.MustCompile(`\n    cacheable share (\d+%) before, (\d+%) after \(estimated`).FindStringSubmatch(out)
	if code != exitOK || m == nil {
		t.Fatalf("--mode all: exit %d\n%s", code, out)
	}
	after := costShare()
	t.Logf("record: %s, then %s -> %s; cost: %s -> %s", first[1], m[1], m[2], before, after)
	if first[1] != before || m[1] != before || m[2] != after {
		t.Errorf("record said %s, then %s before and %s after; the replayed requests measure %s, then %s", first[1], m[1], m[2], before, after)
	}
}

// TestShareNamesTheUsersProgram: the cacheable-share line of rebase
// points to the cost command of the program the user runs (Options.Command),
// not to evalrun.
func TestShareNamesTheUsersProgram(t *testing.T) {
	path := pinnedNoteTaker(t)
	edit(t, path, `content: "You read notes."`, `content: "You read notes, one per line."`)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"rebase", path}, &out, &errb, &Options{Command: "go run ./cmd/supportrun"})
	if want := "(estimated from the tape's requests; `go run ./cmd/supportrun cost` reads a scenario whole)"; code != exitOK || !strings.Contains(out.String(), want) {
		t.Errorf("rebase: exit %d, want the line to end %q:\n%s%s", code, want, out.String(), errb.String())
	}
}

// shiftingScenario is bridged to shiftingAgent, whose second request
// offers another system prompt and one more tool.
const shiftingScenario = `format: tapeloop/v1
setup:
  agent: {go: shifting}
input:
  - {role: user, content: "Say hello."}
tape: []
expect:
  termination: final_text
`

// shiftingAgent asks the model twice over Chat Completions; its second
// request offers another system prompt (system), one more tool (tools),
// or both: a change mid-run, which a tape records in that entry's
// request.offered.
func shiftingAgent(system, tools bool) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		lookup := map[string]any{"type": "function", "function": map[string]any{"name": "lookup", "description": "Look a word up.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string"}}}}}
		spell := map[string]any{"type": "function", "function": map[string]any{"name": "spell",
			"description": "Spell a word out, letter by letter, in the alphabet of the language it is written in. " + strings.Repeat("Each letter is named as a child learns it. ", 12),
			"parameters":  map[string]any{"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string"}, "lang": map[string]any{"type": "string"}}}}}
		msgs := []map[string]any{{"role": "system", "content": "You greet."}, {"role": "user", "content": r.Input[0].Content}}
		ask := func(tools ...any) (string, error) {
			body, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs, "tools": tools})
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.OpenAIBaseURL+"/chat/completions", bytes.NewReader(body))
			if err != nil {
				return "", err
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := r.HTTPClient.Do(req)
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			var answer struct {
				Choices []struct {
					Message struct{ Content string }
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || len(answer.Choices) != 1 {
				return "", fmt.Errorf("HTTP %d: %v", resp.StatusCode, err)
			}
			return answer.Choices[0].Message.Content, nil
		}
		first, err := ask(lookup)
		if err != nil {
			return err
		}
		if system {
			msgs[0]["content"] = "You greet, then spell what you said. " + strings.Repeat("Spell slowly and clearly. ", 20)
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": first}, map[string]any{"role": "user", "content": "Spell it."})
		offered := []any{lookup}
		if tools {
			offered = append(offered, spell)
		}
		final, err := ask(offered...)
		if err != nil {
			return err
		}
		r.Final(final)
		return nil
	}
}

// TestRecordShareFollowsOfferedChanges: the cacheable share record prints
// for a tape whose agent changed its system prompt, its tools, or both
// mid-run is the share of the requests the replay sends, the changed ones
// included.
func TestRecordShareFollowsOfferedChanges(t *testing.T) {
	for _, c := range []struct {
		name          string
		system, tools bool
	}{{"system", true, false}, {"tools", false, true}, {"both", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"s.yaml": shiftingScenario})
			path := filepath.Join(dir, "s.yaml")
			agents := map[string]harness.Runner{"shifting": bridge.Runner(shiftingAgent(c.system, c.tools), nil)}
			var out, errb bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: agents}
			code := recordCommand(context.Background(), e, []string{"--model", "fake/m", path}, scripted(textResponse("Hello."), textResponse("H-e-l-l-o.")).open)
			m := regexp.MustCompile(`\n    cacheable share (\d+%) \(estimated`).FindStringSubmatch(out.String())
			if code != exitOK || m == nil {
				t.Fatalf("record: exit %d\n%s%s", code, out.String(), errb.String())
			}
			s, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tape) != 2 || s.Tape[1].Request == nil || s.Tape[1].Request.Offered == nil ||
				(s.Tape[1].Request.Offered.System != nil) != c.system || (s.Tape[1].Request.Offered.Tools != nil) != c.tools {
				data, _ := os.ReadFile(path)
				t.Fatalf("the tape does not record just what the second request changed:\n%s", data)
			}
			var col cost.Collector
			if _, err := (&env{agents: agents}).run(context.Background(), s, &harness.RunOptions{Observer: col.Observe}); err != nil {
				t.Fatal(err)
			}
			calls := col.Calls()
			for i := range calls {
				calls[i].Usage = llm.Usage{} // the script's, not what a cache would give
			}
			run, err := cost.Analyze(calls)
			if err != nil {
				t.Fatal(err)
			}
			replayed := fmt.Sprintf("%.0f%%", 100*run.Share())
			t.Logf("record: %s, replayed: %s", m[1], replayed)
			if m[1] != replayed {
				t.Errorf("record says cacheable share %s; the replayed requests measure %s", m[1], replayed)
			}
		})
	}
}
