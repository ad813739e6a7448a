package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

const whereScenario = `format: tapeloop/v1
description: An agent that tells the model its working directory.
setup:
  agent: {go: where}
input:
  - {role: user, content: "Save hi in notes.txt."}
tape: []
expect:
  termination: final_text
  files:
    notes.txt: "hi\n"
`

// whereAgent is an in-process agent that tells the model the folder it
// works in (r.Dir, or claimed when set) and takes absolute paths: its one
// tool writes a file, and refuses a path outside r.Dir.
func whereAgent(claimed string) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		dir := r.Dir
		if claimed != "" {
			dir = claimed
		}
		a := newNotesAgent()
		tools := []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "write_file", "description": "Write a file; the path is absolute.",
			"parameters": json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
		}}}
		msgs := []chatMessage{{Role: "system", Content: "You work in " + dir + ". Name files by absolute paths."}, {Role: "user", Content: r.Input[len(r.Input)-1].Content}}
		for range 5 {
			body, _ := json.Marshal(map[string]any{"model": "gpt-test", "messages": msgs, "tools": tools})
			var resp struct {
				Choices []struct {
					Message chatMessage `json:"message"`
				} `json:"choices"`
			}
			if err := a.post(ctx, r.HTTPClient, r.OpenAIBaseURL+"/chat/completions", body, &resp); err != nil {
				return err
			}
			if len(resp.Choices) == 0 {
				return errors.New("no choices")
			}
			m := resp.Choices[0].Message
			msgs = append(msgs, m)
			if len(m.ToolCalls) == 0 {
				r.Final(m.Content)
				return nil
			}
			for _, c := range m.ToolCalls {
				var args struct{ Path, Content string }
				result := ""
				switch err := json.Unmarshal([]byte(c.Function.Arguments), &args); {
				case err != nil:
					result = "error: " + err.Error()
				case !strings.HasPrefix(args.Path, r.Dir+string(filepath.Separator)):
					result = "refused: " + args.Path + " is outside " + dir
				default:
					if err := os.WriteFile(args.Path, []byte(args.Content), 0o644); err != nil {
						result = "error: " + err.Error()
					} else {
						result = "wrote " + args.Path
					}
				}
				msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: c.ID, Content: result})
			}
		}
		return errors.New("too many steps")
	}
}

// inTempDir makes TMPDIR, where a run makes its workspace, a new folder
// named name under root.
func inTempDir(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	return dir
}

// TestWorkspaceReplaysFromAnyFolder: an in-process agent that tells the
// model its working directory, recorded with its workspace in one folder,
// replays with it in others. The model and the tape see the workspace as
// bridge.WorkPlaceholder, in the prompt and in the tool result: a model
// given the decoded request, and a vendor given the agent's own request
// (forwarded, as evalrun record does). The tool call the model made with
// that path reaches the agent as a path in its own workspace, where the
// file is written; and the golden is the same from every folder, naming
// the workspace $WORK. A replay whose agent names another folder than its
// workspace still diverges.
func TestWorkspaceReplaysFromAnyFolder(t *testing.T) {
	want := "You work in " + bridge.WorkPlaceholder + ". Name files by absolute paths."
	for _, forwarded := range []bool{false, true} {
		t.Run(map[bool]string{false: "decoded", true: "forwarded"}[forwarded], func(t *testing.T) {
			root := t.TempDir()
			one := inTempDir(t, root, "one")
			var mu sync.Mutex
			var seen []string // the system prompts the model got
			model := script(
				call("call_1", "write_file", `{"path":"`+bridge.WorkPlaceholder+`/notes.txt","content":"hi\n"}`),
				text("Saved in "+bridge.WorkPlaceholder+"/notes.txt."))
			var live llm.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
				mu.Lock()
				seen = append(seen, req.Messages[0].Content)
				mu.Unlock()
				return model.Generate(ctx, req)
			})
			var vendor wireLog
			if forwarded {
				srv := httptest.NewServer(vendor.vendor(bridge.Handler(live, nil)))
				defer srv.Close()
				var err error
				live, err = llm.Open(t.Context(), "openai/gpt-test", &llm.OpenOptions{BaseURL: srv.URL + "/v1", APIKey: liveKey, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
			}
			path := record(t, whereScenario, whereAgent(""), live)
			if len(seen) != 2 || seen[0] != want || seen[1] != want {
				t.Errorf("the model got the system prompts %q, want %q twice", seen, want)
			}
			for i, e := range vendor.got {
				if bytes.Contains(e.body, []byte(one)) {
					t.Errorf("request %d: the vendor got the recording's folder %s: %s", i+1, one, e.body)
				}
			}
			recorded, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{want, "wrote " + bridge.WorkPlaceholder + "/notes.txt"} {
				if !strings.Contains(string(recorded), w) {
					t.Errorf("the tape does not hold %q:\n%s", w, recorded)
				}
			}
			if strings.Contains(string(recorded), one) {
				t.Errorf("the tape names the recording's folder %s:\n%s", one, recorded)
			}

			inTempDir(t, root, "two")
			if v := verify(t, path, whereAgent(""), true); !v.Passed() {
				t.Fatalf("the replay from another folder fails:\n%s", fmt.Sprint(v.Failure()))
			}
			golden, err := os.ReadFile(scenario.GoldenPath(path))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{`"path":"$WORK/notes.txt"`, "result: wrote $WORK/notes.txt", "final: Saved in $WORK/notes.txt."} {
				if !strings.Contains(string(golden), w) {
					t.Errorf("the golden does not hold %q:\n%s", w, golden)
				}
			}
			if strings.Contains(string(golden), root) || strings.Contains(string(golden), bridge.WorkPlaceholder) {
				t.Errorf("the golden names a folder of the machine or the placeholder, not $WORK:\n%s", golden)
			}
			inTempDir(t, root, "three/deeper")
			if v := verify(t, path, whereAgent(""), false); !v.Passed() {
				t.Errorf("the second replay, from a third folder, fails:\n%s", fmt.Sprint(v.Failure()))
			}

			for _, claimed := range []string{"/srv/elsewhere", filepath.Join(root, "three")} {
				t.Run("claims "+claimed, func(t *testing.T) {
					failsClosed(t, verify(t, path, whereAgent(claimed), false), "You work in "+claimed+".")
				})
			}
		})
	}
}

const whereConversation = `format: tapeloop/v1
description: An agent that names its folder in its answer, and a user who quotes it.
setup:
  agent: {go: where}
input:
  - {role: user, content: "Where are my notes?"}
tape: []
expect:
  termination: final_text
`

// talkingAgent is an in-process agent that tells the model its folder,
// reports each answer (naming the folder, as the model's text does once
// it reaches the agent) and goes on with each user message.
func talkingAgent(ctx context.Context, r *bridge.Run) error {
	msgs := []chatMessage{{Role: "system", Content: "You work in " + r.Dir + "."}, {Role: "user", Content: r.Input[len(r.Input)-1].Content}}
	for range 5 {
		body, _ := json.Marshal(map[string]any{"model": "gpt-test", "messages": msgs})
		var resp struct {
			Choices []struct {
				Message chatMessage `json:"message"`
			} `json:"choices"`
		}
		if err := newNotesAgent().post(ctx, r.HTTPClient, r.OpenAIBaseURL+"/chat/completions", body, &resp); err != nil {
			return err
		}
		if len(resp.Choices) == 0 {
			return errors.New("no choices")
		}
		m := resp.Choices[0].Message
		msgs = append(msgs, m)
		r.Final(m.Content)
		next, ok := r.NextUser(ctx)
		if !ok {
			return nil
		}
		if !strings.Contains(next.Content, r.Dir+"/notes.txt") {
			return fmt.Errorf("the user's message %q does not name %s", next.Content, r.Dir)
		}
		msgs = append(msgs, chatMessage{Role: "user", Content: next.Content})
	}
	return errors.New("too many steps")
}

// TestWorkspaceInUserTurns: a user model (recording) that quotes the
// path the agent's answer named sees the placeholder, as the model does;
// its turn is kept in the tape with the placeholder and reaches the agent
// with the agent's own folder, recording and replaying; so the recording
// replays from other folders, the golden naming $WORK.
func TestWorkspaceInUserTurns(t *testing.T) {
	const mark = "Zqx"
	root := t.TempDir()
	inTempDir(t, root, mark+"-rec")
	model := script(text("They are in "+bridge.WorkPlaceholder+"/notes.txt."), text("Yes, that one."))
	var saw []string // what the user model saw
	user := func(_ context.Context, conversation []llm.Message) (llm.Message, bool, error) {
		for _, m := range conversation {
			saw = append(saw, m.Content)
		}
		if len(conversation) > 2 {
			return llm.Message{}, false, nil
		}
		path := strings.TrimSuffix(strings.TrimPrefix(conversation[len(conversation)-1].Content, "They are in "), ".")
		return llm.Message{Content: "Is it " + path + "?"}, true, nil
	}
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "where.yaml")
	if err := os.WriteFile(path, []byte(whereConversation), 0o644); err != nil {
		t.Fatal(err)
	}
	o, tp, err := bridge.Record(t.Context(), load(t, path), talkingAgent, model, &bridge.RecordOptions{Run: &harness.RunOptions{User: user}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tp); err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(saw, " | "); strings.Contains(s, mark) || !strings.Contains(s, "They are in "+bridge.WorkPlaceholder+"/notes.txt.") {
		t.Errorf("the user model saw %q; want the placeholder, not the folder", s)
	}
	recorded, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(recorded, []byte(mark)) || !bytes.Contains(recorded, []byte("user: Is it "+bridge.WorkPlaceholder+"/notes.txt?")) {
		t.Errorf("the tape's user turn does not name the placeholder, or the tape names the folder:\n%s", recorded)
	}
	inTempDir(t, root, mark+"-two")
	if v := verify(t, path, talkingAgent, true); !v.Passed() {
		t.Fatalf("the replay from another folder fails:\n%s", fmt.Sprint(v.Failure()))
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(golden, []byte("user: Is it $WORK/notes.txt?")) || bytes.Contains(golden, []byte(mark)) || bytes.Contains(golden, []byte(bridge.WorkPlaceholder)) {
		t.Errorf("the golden does not show the user's turn with $WORK alone:\n%s", golden)
	}
	inTempDir(t, root, mark+"-three")
	if v := verify(t, path, talkingAgent, false); !v.Passed() {
		t.Errorf("the replay from a third folder fails:\n%s", fmt.Sprint(v.Failure()))
	}
}
