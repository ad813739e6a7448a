package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// askTimes is a Go agent on plain HTTP that asks the model n times in one
// growing Chat Completions conversation ("Say hello.", then "Again."
// after each answer) and reports the last answer as its final text.
func askTimes(n int) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		msgs := []map[string]string{{"role": "user", "content": r.Input[len(r.Input)-1].Content}}
		answer := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				msgs = append(msgs, map[string]string{"role": "assistant", "content": answer}, map[string]string{"role": "user", "content": "Again."})
			}
			var err error
			if answer, err = askChat(ctx, r, map[string]any{"model": "m", "messages": msgs}); err != nil {
				return fmt.Errorf("call %d: %w", i+1, err)
			}
		}
		r.Final(answer)
		return nil
	}
}

// updateAgents are the Go agents the --update cases switch between.
var updateAgents = map[string]harness.Runner{
	"once":   bridge.Runner(askTimes(1), nil),
	"twice":  bridge.Runner(askTimes(2), nil),
	"silent": bridge.Runner(silentAgent, nil),
}

// bridgedOnce is a bridged scenario whose agent asks once; the cases
// replace its agent line.
const bridgedOnce = `format: tapeloop/v1
setup:
  agent: {go: once}
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello."}
expect:
  termination: final_text
`

// bridgedTwice asks twice, with a tape of two answers.
var bridgedTwice = strings.Replace(strings.Replace(bridgedOnce, "{go: once}", "{go: twice}", 1),
	`  - response: {content: "Hello."}`, "  - response: {content: \"Hello.\"}\n  - response: {content: \"Hello again.\"}", 1)

// nativeEcho is a native scenario whose one tool echoes; the panic case
// replaces the tool with one that panics.
const nativeEcho = `format: tapeloop/v1
setup:
  tools:
    - {name: lookup, fixture: echo}
input:
  - {role: user, content: "Look it up."}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: lookup, arguments: {id: 7}}
  - response: {content: "Done."}
`

// TestUpdateLeavesGoldenOfRunThatCouldNotRun: replay --update (with or
// without --force) never writes a golden over a good one when the agent
// could not do its job: it could not be started, it exited before its
// first request, it made no model call while the tape has entries, it
// left entries unused (a bridged or a native run), or it asked for more
// than the tape holds. Each is
// a failure (exit 1) saying why and what to do, the golden byte for byte
// as it was. A native tool that panics is an outcome the golden holds
// (the panics fixture is how a scenario tests it): it is written.
func TestUpdateLeavesGoldenOfRunThatCouldNotRun(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the command agents with")
	}
	cases := []struct {
		name string
		// good is the scenario its golden is blessed from; broken replaces
		// old with new in it.
		good, old, new string
		// want are the texts the output holds; written says the golden
		// is rewritten (the run is blessed).
		want    []string
		written bool
	}{{
		name: "agent program missing", good: bridgedOnce, old: "{go: once}", new: "{command: [$SCENARIO_DIR/no-such-agent]}",
		want: []string{"the agent's program could not be started", "its golden is untouched", "check setup.agent.command", "no-such-agent: no such file or directory"},
	}, {
		name: "agent exits 1 before any request", good: bridgedOnce, old: "{go: once}", new: `{command: [sh, -c, "echo \"Error: Cannot find module 'openai'\" >&2; exit 1"]}`,
		want: []string{"the agent stopped before its first model request", "its golden is untouched", "install its dependencies", "Cannot find module 'openai'"},
	}, {
		name: "agent answers without a model call", good: bridgedOnce, old: "{go: once}", new: "{go: silent}",
		want: []string{"the agent made no model call, though the tape holds 1 entry", "its golden is untouched", "base URL"},
	}, {
		name: "agent asks less than the tape holds", good: bridgedTwice, old: "{go: twice}", new: "{go: once}",
		want: []string{"the run left tape entries unused", "its golden is untouched", "tape[1] at line 8 was never served", "record --mode all"},
	}, {
		name: "agent asks more than the tape holds", good: bridgedOnce, old: "{go: once}", new: "{go: twice}",
		want: []string{"tape exhausted after 1 entry", "record it again", "record --mode all"},
	}, {
		name: "native run stops before its tape ends", good: nativeEcho, old: "setup:\n  tools:", new: "setup:\n  loop: {max_iterations: 1}\n  tools:",
		want: []string{"the run left tape entries unused", "its golden is untouched", "tape[1] at line 12 was never served", "record --mode all"},
	}, {
		name: "native tool panics", good: nativeEcho, old: "{name: lookup, fixture: echo}", new: "{name: lookup, fixture: panics, with: {message: boom}}",
		want: []string{"PASS", "(golden updated)"}, written: true,
	}}
	for _, c := range cases {
		for _, force := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/force=%v", c.name, force), func(t *testing.T) {
				dir := newScenarios(t, map[string]string{"s.yaml": c.good})
				path := filepath.Join(dir, "s.yaml")
				golden := filepath.Join(dir, "s.golden.yaml")
				update := func() (int, string, string) {
					args := []string{"replay", "--update", path}
					if force {
						args = append(args, "--force")
					}
					var out, errb bytes.Buffer
					code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: updateAgents})
					return code, out.String(), errb.String()
				}
				if code, out, errOut := update(); code != exitOK {
					t.Fatalf("blessing the good run: exit %d\n%s%s", code, out, errOut)
				}
				before, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				broken := strings.Replace(c.good, c.old, c.new, 1)
				if broken == c.good {
					t.Fatalf("%q is not in the scenario", c.old)
				}
				if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
					t.Fatal(err)
				}
				code, out, errOut := update()
				after, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range c.want {
					if !strings.Contains(out, w) {
						t.Errorf("the output does not say %q:\n%s%s", w, out, errOut)
					}
				}
				switch {
				case c.written && (code != exitOK || bytes.Equal(after, before) || !bytes.Contains(after, []byte("failure: panic"))):
					t.Errorf("exit %d, want 0 with the golden rewritten to hold the panic:\n%s%s--- golden:\n%s", code, out, errOut, after)
				case !c.written && code != exitFailed:
					t.Errorf("exit %d, want %d (the scenario failed):\n%s%s", code, exitFailed, out, errOut)
				case !c.written && !bytes.Equal(after, before):
					t.Errorf("the golden was rewritten:\n--- before\n%s--- after\n%s", before, after)
				case !c.written && (strings.Contains(out, "golden written") || strings.Contains(out, "golden updated")):
					t.Errorf("the output says the golden was written:\n%s", out)
				}
			})
		}
	}
}

// TestReplayOfAgentThatStoppedEarlyFails: a replay in which the agent
// stopped with an error before its first model request fails whatever its
// golden says, saying what to do, and compares neither the golden nor the
// expectations: here a scenario that expects no model call (tape: [])
// whose golden was written from such a run (as --update did before it
// refused them), which the run matches byte for byte.
func TestReplayOfAgentThatStoppedEarlyFails(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the command agent with")
	}
	const text = `format: tapeloop/v1
setup:
  agent: {command: [sh, -c, "echo \"Error: Cannot find module 'openai'\" >&2; exit 1"]}
input:
  - {role: user, content: "Say hello."}
tape: []
expect:
  iterations: 0
`
	dir := newScenarios(t, map[string]string{"s.yaml": text})
	path := filepath.Join(dir, "s.yaml")
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	o, err := e.run(context.Background(), s, &harness.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(golden, []byte("termination: agent_error")) {
		t.Fatalf("the run did not end with agent_error:\n%s", golden)
	}
	if err := os.WriteFile(scenario.GoldenPath(path), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay", path}, {"replay", "--update", path}, {"replay", "--update", "--force", path}} {
		out.Reset()
		errb.Reset()
		code := run(context.Background(), args, e)
		if code != exitFailed || !strings.Contains(out.String(), "the agent stopped before its first model request") ||
			!strings.Contains(out.String(), "install its dependencies") || strings.Contains(out.String(), "expect.") {
			t.Errorf("%q: exit %d, want 1 saying the agent stopped before its first model request, no expectation compared:\n%s%s", args, code, out.String(), errb.String())
		}
		if after, _ := os.ReadFile(scenario.GoldenPath(path)); !bytes.Equal(after, golden) {
			t.Errorf("%q rewrote the golden:\n%s", args, after)
		}
	}
}

// TestReplayOfFewerCallsSaysWhatToDo: a plain replay whose run left tape
// entries unused (a bridged agent that now asks once where it asked twice,
// a native loop cut to one iteration, a bridged agent that makes no model
// call) fails naming the entry never served and says what to do: record
// again when the agent changed on purpose (rebase cannot drop entries),
// otherwise it is the regression.
func TestReplayOfFewerCallsSaysWhatToDo(t *testing.T) {
	cases := []struct {
		name, good, old, new string
		want                 []string
	}{
		{"bridged agent asks once", bridgedTwice, "{go: twice}", "{go: once}",
			[]string{"tape[1] at line 8 was never served", "the agent made fewer model calls than the tape holds", "record it again: `evalrun record --mode all --model PROVIDER/MODEL ", "rebase cannot drop entries", "otherwise the agent stops early, and that is the regression"}},
		{"native loop cut", nativeEcho, "setup:\n  tools:", "setup:\n  loop: {max_iterations: 1}\n  tools:",
			[]string{"tape[1] at line 12 was never served", "the agent made fewer model calls than the tape holds", "record --mode all"}},
		{"no model call", bridgedOnce, "{go: once}", "{go: silent}",
			[]string{"tape[0] at line 7 was never served", "the agent made no model call, though the tape holds 1 entry", "base URL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"s.yaml": c.good})
			path := filepath.Join(dir, "s.yaml")
			var out, errb bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: updateAgents}
			if code := run(context.Background(), []string{"replay", "--update", path}, e); code != exitOK {
				t.Fatalf("blessing the good run: exit %d\n%s%s", code, out.String(), errb.String())
			}
			os.WriteFile(path, []byte(strings.Replace(c.good, c.old, c.new, 1)), 0o644)
			out.Reset()
			errb.Reset()
			code := run(context.Background(), []string{"replay", path}, e)
			if code != exitFailed {
				t.Errorf("exit %d, want %d\n%s%s", code, exitFailed, out.String(), errb.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the output does not say %q:\n%s%s", w, out.String(), errb.String())
				}
			}
		})
	}
}

// TestReplayOfAgentThatCouldNotStart: a replay whose agent command could
// not be started (no such program in PATH, no such file, a file that is
// not executable) fails saying to check setup.agent.command and PATH; one
// whose command started and exited at once says to make it run here
// instead. Each keeps the golden the good run blessed.
func TestReplayOfAgentThatCouldNotStart(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the command agents with")
	}
	notStarted := []string{"the agent's program could not be started", "check setup.agent.command", "PATH"}
	cases := []struct {
		name, command string
		want, not     []string
	}{
		{"no such program in PATH", "[tapeloop-no-such-agent-program]", append(notStarted, `"tapeloop-no-such-agent-program": executable file not found in $PATH`), []string{"install its dependencies"}},
		{"no such file", "[$SCENARIO_DIR/no-such-agent]", append(notStarted, "no-such-agent: no such file or directory"), []string{"install its dependencies"}},
		{"not executable", "[$SCENARIO_DIR/agent.sh]", append(notStarted, "agent.sh: permission denied"), []string{"install its dependencies"}},
		{"exits at once", `[sh, -c, "echo \"Error: Cannot find module 'openai'\" >&2; exit 1"]`, []string{"the agent stopped before its first model request", "install its dependencies", "Cannot find module 'openai'"}, []string{"could not be started", "PATH"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"s.yaml": bridgedOnce, "agent.sh": "#!/bin/sh\nexit 0\n"})
			path := filepath.Join(dir, "s.yaml")
			var out, errb bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: updateAgents}
			if code := run(context.Background(), []string{"replay", "--update", path}, e); code != exitOK {
				t.Fatalf("blessing the good run: exit %d\n%s%s", code, out.String(), errb.String())
			}
			golden, _ := os.ReadFile(scenario.GoldenPath(path))
			os.WriteFile(path, []byte(strings.Replace(bridgedOnce, "{go: once}", "{command: "+c.command+"}", 1)), 0o644)
			for _, args := range [][]string{{"replay", path}, {"replay", "--update", path}} {
				out.Reset()
				errb.Reset()
				if code := run(context.Background(), args, e); code != exitFailed {
					t.Errorf("%q: exit %d, want %d\n%s%s", args, code, exitFailed, out.String(), errb.String())
				}
				for _, w := range c.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("%q: the output does not say %q:\n%s%s", args, w, out.String(), errb.String())
					}
				}
				for _, w := range c.not {
					if strings.Contains(out.String(), w) {
						t.Errorf("%q: the output says %q:\n%s%s", args, w, out.String(), errb.String())
					}
				}
				if after, _ := os.ReadFile(scenario.GoldenPath(path)); !bytes.Equal(after, golden) {
					t.Errorf("%q rewrote the golden:\n%s", args, after)
				}
			}
		})
	}
}
