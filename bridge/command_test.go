package bridge_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// commandScenario runs testdata/cmdagent, a program built by the test, as
// a setup.agent.command; AGENT and MODE are filled in.
const commandScenario = `format: tapeloop/v1
description: A program in its own process appends a line to a file.
setup:
  agent:
    command: [AGENT, MODE]
    env: {NOTES_SYSTEM: "You keep notes in files."}
    timeout: TIMEOUT
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
expect:
  termination: final_text
  iterations: 3
  calls:
    match: in_order
    list:
      - {name: read_file, arguments: {path: notes.txt}}
      - {name: write_file, arguments: {path: notes.txt, content: "hello\nworld\n"}}
  final: {equals: "Done: notes.txt now says hello and world."}
  files:
    notes.txt: "hello\nworld\n"
`

// cmdAgent is testdata/cmdagent, built once for all of the package's
// tests into dir (made and removed by TestMain).
var cmdAgent struct {
	dir  string
	once sync.Once
	bin  string
	skip string // why there is no binary, when go is missing
	err  error
}

// cmdAgentEnv names a testdata/cmdagent built already, for a test binary
// that another test runs (as another user, who may have no Go build cache).
const cmdAgentEnv = "TAPELOOP_TEST_CMDAGENT"

// buildCommandAgent returns the path of testdata/cmdagent, built on the
// first call (or the one cmdAgentEnv names).
func buildCommandAgent(t *testing.T) string {
	t.Helper()
	cmdAgent.once.Do(func() {
		if bin := os.Getenv(cmdAgentEnv); bin != "" {
			cmdAgent.bin = bin // built by the test that started this one
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			cmdAgent.skip = "no go command to build the test agent with"
			return
		}
		bin := filepath.Join(cmdAgent.dir, "cmdagent")
		if out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/cmdagent").CombinedOutput(); err != nil {
			cmdAgent.err = fmt.Errorf("building the test agent: %v\n%s", err, out)
			return
		}
		cmdAgent.bin = bin
	})
	if cmdAgent.skip != "" {
		t.Skip(cmdAgent.skip)
	}
	if cmdAgent.err != nil {
		t.Fatal(cmdAgent.err)
	}
	return cmdAgent.bin
}

func commandText(bin, mode, timeout string) string {
	return strings.NewReplacer("AGENT", bin, "MODE", mode, "TIMEOUT", timeout).Replace(commandScenario)
}

// TestCommand records a program run as setup.agent.command, replays it
// with the live model gone, fails closed when the program's system prompt
// changes, and reports a hang, a non-zero exit and a bad setup with the
// scenario's file and line.
func TestCommand(t *testing.T) {
	bin := buildCommandAgent(t)

	t.Run("record, replay, fail closed", func(t *testing.T) {
		path := writeScenario(t, commandText(bin, "notes", "60s"))
		recordCommand(t, path)
		command := func(path string) bridge.Agent { return bridge.Command(load(t, path)) }
		if v := verify(t, path, command(path), true); !v.Passed() {
			t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
		}
		if v := verify(t, path, command(path), false); !v.Passed() {
			t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(b), `NOTES_SYSTEM: "You keep notes in files."`, `NOTES_SYSTEM: "You keep notes. Be brief."`, 1)
		if changed == string(b) {
			t.Fatalf("the recorded scenario lost its env:\n%s", b)
		}
		if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		failsClosed(t, verify(t, path, command(path), false), "notes.yaml:", "Be brief.")
	})

	t.Run("the Messages API over the loopback", func(t *testing.T) {
		path := writeScenario(t, commandText(bin, "claude", "60s"))
		recordCommand(t, path)
		if v := verify(t, path, bridge.Command(load(t, path)), true); !v.Passed() {
			t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(b), `NOTES_SYSTEM: "You keep notes in files."`, `NOTES_SYSTEM: "You keep notes. Be brief."`, 1)
		if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		failsClosed(t, verify(t, path, bridge.Command(load(t, path)), false), "notes.yaml:", "Be brief.")
	})

	for _, tc := range []struct {
		mode, timeout string
		wants         []string
	}{
		{"hang", "300ms", []string{"notes.yaml:5: setup.agent.command", "did not finish within 300ms and was killed"}},
		{"fail", "60s", []string{"notes.yaml:5: setup.agent.command", "exit status 3", "cmdagent: cannot go on in $WORK"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			msg := failedCommand(t, writeScenario(t, commandText(bin, tc.mode, tc.timeout)))
			for _, w := range tc.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("the outcome's error does not say %q:\n%s", w, msg)
				}
			}
		})
	}
}

// failedCommand runs the command scenario at path against notesScript and
// returns the outcome's error; the run must not end with a final text.
func failedCommand(t *testing.T, path string) string {
	t.Helper()
	s := load(t, path)
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination == "final_text" {
		t.Fatalf("the command %q ended with a final text", s.Setup.Agent.Command)
	}
	return o.Error
}

// TestCommandErrorQuotesTheEndOfStderr: a failing command's error quotes
// the end of its stderr, at most 2 KiB of it, however much it printed.
func TestCommandErrorQuotesTheEndOfStderr(t *testing.T) {
	bin := buildCommandAgent(t)
	msg := failedCommand(t, writeScenario(t, commandText(bin, `fail, "1000"`, "60s")))
	_, tail, ok := strings.Cut(msg, "; its stderr ends:\n")
	if !ok || !strings.HasSuffix(tail, "cmdagent: noise line 1000\ncmdagent: cannot go on in $WORK") || strings.Contains(tail, "noise line 1\n") {
		t.Fatalf("the error does not quote the end of stderr:\n%s", msg)
	}
	// 2 KiB hold the last line and about 75 lines of noise before it.
	if len(tail) > 2<<10 || !strings.Contains(tail, "cmdagent: noise line 940\n") {
		t.Errorf("the error quotes %d bytes of stderr, want its last 2 KiB:\n%s", len(tail), tail)
	}
}

// TestCommandExpandsScenarioDir: $SCENARIO_DIR in setup.agent.command and
// setup.agent.env stands for the scenario file's folder; any other $NAME is
// kept as written.
func TestCommandExpandsScenarioDir(t *testing.T) {
	bin := buildCommandAgent(t)
	text := strings.Replace(commandText(bin, "args, $SCENARIO_DIR/agent.mjs, $OTHER/x", "60s"),
		`env: {NOTES_SYSTEM: "You keep notes in files."}`, `env: {WHERE: "$SCENARIO_DIR/env"}`, 1)
	path := writeScenario(t, text)
	dir := filepath.Dir(path)
	msg := failedCommand(t, path)
	if want := fmt.Sprintf("cmdagent: args [%q \"$OTHER/x\"], WHERE=%s/env", dir+"/agent.mjs", dir); !strings.Contains(msg, want) {
		t.Errorf("the command did not get %s:\n%s", want, msg)
	}
}

// TestCommandNoAgent: Command on a scenario with no command is an error,
// not a panic.
func TestCommandNoAgent(t *testing.T) {
	s := load(t, writeScenario(t, notesScenario))
	err := bridge.Command(s)(t.Context(), &bridge.Run{})
	if !errors.Is(err, bridge.ErrCommand) {
		t.Errorf("Command on a go: agent: %v, want ErrCommand", err)
	}
}

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// recordCommand records the command agent of the scenario at path against
// notesScript and writes its tape in place; the recording must end with a
// final text.
func recordCommand(t *testing.T, path string) {
	t.Helper()
	s := load(t, path)
	o, tape, err := bridge.Record(t.Context(), s, bridge.Command(s), notesScript(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
}

// TestCommandErrorQuotesStderr: a command that fails is reported with the
// end of its stderr after "; its stderr ends:", and a command that printed
// nothing on stderr without that phrase.
func TestCommandErrorQuotesStderr(t *testing.T) {
	bin := buildCommandAgent(t)
	for _, tc := range []struct{ mode, timeout, suffix string }{
		{"fail", "60s", "exit status 3; its stderr ends:\ncmdagent: cannot go on in $WORK"},
		{"hang", "300ms", "did not finish within 300ms and was killed"},
	} {
		s := load(t, writeScenario(t, commandText(bin, tc.mode, tc.timeout)))
		o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(o.Error, tc.suffix) {
			t.Errorf("%s: the outcome's error is\n%s\nwant it to end with\n%s", tc.mode, o.Error, tc.suffix)
		}
	}
}

// conversationCommand runs script with sh -c as the command of a
// conversation (the tape's second entry is a user turn) against a live
// model, and returns the outcome's error.
func conversationCommand(t *testing.T, script string) string {
	t.Helper()
	return conversationOutcome(t, script).Error
}

// conversationOutcome runs script as conversationCommand does and returns
// the outcome.
func conversationOutcome(t *testing.T, script string) *harness.Outcome {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the command with")
	}
	return conversation(t, sh, "-c", script)
}

// conversation runs command as the command of a conversation (the tape's
// second entry is a user turn) against a live model, and returns the
// outcome.
func conversation(t *testing.T, command ...string) *harness.Outcome {
	t.Helper()
	for i, c := range command {
		command[i] = strconv.Quote(c)
	}
	text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [" + strings.Join(command, ", ") + "]\n    timeout: 30s\n" +
		"input: [{role: user, content: hi}]\ntape:\n  - response: {content: a}\n  - user: more\n"
	s := load(t, writeScenario(t, text))
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestConversationCommandBadLine: in a conversation, a command's stdout
// line that is not an answer fails the run naming that line's number, and
// the command is killed at once rather than left to run to its timeout.
func TestConversationCommandBadLine(t *testing.T) {
	got := conversationCommand(t, `read -r input; echo '{"final": "a"}'; read -r next; echo; echo oops; exec sleep 60`)
	if want := `stdout line 3 is not an answer {"final": TEXT}`; !strings.Contains(got, want) {
		t.Errorf("the outcome's error is\n%s\nwant it to say %s", got, want)
	}
}

// TestConversationCommandBlankLines: in a conversation, a stdout line of
// only spaces and tabs is skipped as an empty one is, and an answer with
// spaces around it is read: the conversation ends with the last answer.
func TestConversationCommandBlankLines(t *testing.T) {
	o := conversationOutcome(t, `read -r input; printf ' \t \n\n'; echo '  {"final": "a"}  '; read -r next; printf '\t\n{"final": "b"}\n'`)
	if o.Termination != "final_text" || o.Final != "b" {
		t.Errorf("the run ended with %s, final %q, error %q; want final_text \"b\"", o.Termination, o.Final, o.Error)
	}
}

// TestConversationCommandBadLineThenMore: a command that prints more
// after a line that is not an answer, in the same write, fails the run at
// that line; what it printed after is not read, and the run does not wait
// for it to be.
func TestConversationCommandBadLineThenMore(t *testing.T) {
	got := conversation(t, buildCommandAgent(t), "print", "60000", "oops").Error
	if want := `stdout line 1 is not an answer {"final": TEXT}`; !strings.Contains(got, want) {
		t.Errorf("the outcome's error is\n%s\nwant it to say %s", got, want)
	}
}

// TestConversationCommandBadLineQuoted: the bad line is quoted whole up to
// 200 bytes, and cut there with "..." when longer.
func TestConversationCommandBadLineQuoted(t *testing.T) {
	for _, n := range []int{200, 201} {
		line := strings.Repeat("x", n)
		got := conversationCommand(t, "read -r input; echo "+line)
		want := strconv.Quote(line[:200])
		if n > 200 {
			want = strconv.Quote(line[:200] + "...")
		}
		if !strings.HasSuffix(got, want) {
			t.Errorf("a %d-byte line: the outcome's error is\n%s\nwant it to end with %s", n, got, want)
		}
	}
}

// TestCommandScenarioDirUnknown: when the scenario's folder cannot be
// resolved (its path is relative and tapeloop's working directory was
// removed), $SCENARIO_DIR has no value to stand for: the command is not
// run, the run fails naming setup.agent's line, and nothing of the run
// is left in TMPDIR.
func TestCommandScenarioDirUnknown(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the command with")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [" + sh + `, -c, 'echo "$0"', "$SCENARIO_DIR/x"]` + "\n    timeout: 60s\n" +
		"input: [{role: user, content: hi}]\ntape: []\n"
	if err := os.WriteFile(filepath.Join(work, "scenarios", "notes.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	s := load(t, filepath.Join("scenarios", "notes.yaml"))
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if wd, err := os.Getwd(); err == nil {
		t.Skipf("this system still resolves the removed working directory (%s)", wd)
	}
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "agent_error" || !strings.Contains(o.Error, "notes.yaml:4: setup.agent.command: the agent command failed") {
		t.Errorf("the run ended with %s, final %q, error %q; want agent_error naming notes.yaml:4", o.Termination, o.Final, o.Error)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("the run left %s in TMPDIR", e.Name())
	}
}
