package bridge_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestCommandEnvironment: a command agent sees none of the credentials in
// tapeloop's environment, only dummies, nor any other variable that is not
// on the allowlist; HOME and TMPDIR are scratch directories of the run, and
// TAPELOOP_SCENARIO is the scenario's name.
func TestCommandEnvironment(t *testing.T) {
	keys := []string{"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AZURE_OPENAI_API_KEY",
		"OPENROUTER_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "GITHUB_TOKEN"}
	for _, k := range keys {
		t.Setenv(k, "real-"+k)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/real/adc.json")
	t.Setenv("MY_SECRET", "real-secret")
	t.Setenv("LC_ALL", "C")
	t.Setenv("HOME", "/real/home")
	names := append(append([]string{}, keys...), "GOOGLE_APPLICATION_CREDENTIALS", "MY_SECRET", "LC_ALL", "PATH", "HOME", "TMPDIR", "TAPELOOP_SCENARIO")
	s := modeScenario(t, "60s", append([]string{"env"}, names...)...)
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(o.Final, "\n") {
		name, v, _ := strings.Cut(line, "=")
		got[name] = v
	}
	for _, k := range keys {
		if v := got[k]; strings.Contains(v, "real") || !strings.HasSuffix(v, " true") {
			t.Errorf("the agent got %s=%s; want a dummy", k, v)
		}
	}
	want := map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": `"" true`,
		"MY_SECRET":                      `"" false`,
		"LC_ALL":                         `"C" true`,
		"TAPELOOP_SCENARIO":              strconv.Quote(s.Name) + " true",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("the agent got %s=%s; want %s", k, got[k], w)
		}
	}
	if got["PATH"] == `"" false` {
		t.Error("the agent got no PATH")
	}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if v := got[k]; !scratchDir(v) {
			t.Errorf("the agent got %s=%s; want a scratch directory of the run", k, v)
		}
	}
	if t.Failed() {
		t.Logf("the agent printed:\n%s", o.Final)
	}
}

// scratchDir reports whether v, a variable as testdata/cmdagent's env
// mode prints it, is a scratch directory of the run: one under a
// tapeloop-home- directory, or under the fixed home where the sandbox
// holds Workspace.
func scratchDir(v string) bool {
	return !strings.Contains(v, "/real/") && (strings.Contains(v, "tapeloop-home-") || strings.Contains(v, `"`+sandbox.HomeDir))
}

// TestCommandPassEnv: setup.agent.pass_env passes the variables it names
// from tapeloop's environment as they are, and pass_credentials a
// credential instead of its dummy; an unset one stays unset (or a dummy),
// and the rest of the environment is still left out. HOME and TMPDIR are
// the run's scratch directories, never tapeloop's (pass_env may not name
// them: the scenario is refused, scenario's TestAgentSetupErrors): the
// real home holds credential files (~/.aws, ~/.netrc) the agent must not
// read.
func TestCommandPassEnv(t *testing.T) {
	t.Setenv("HOME", "/real/home")
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "usertmp"))
	if err := os.Mkdir(os.Getenv("TMPDIR"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("NODE_OPTIONS", "--no-warnings")
	t.Setenv("GITHUB_TOKEN", "real-github")
	t.Setenv("OPENAI_API_KEY", "real-openai")
	t.Setenv("MY_SETTING", "kept out")
	os.Unsetenv("TAPELOOP_UNSET_PASSED")
	names := []string{"GOFLAGS", "NODE_OPTIONS", "GITHUB_TOKEN", "OPENAI_API_KEY", "MY_SETTING", "TAPELOOP_UNSET_PASSED", "HOME", "TMPDIR"}
	s := modeScenario(t, "60s", append([]string{"env"}, names...)...)
	text, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	text = bytes.Replace(text, []byte("    timeout: 60s\n"), []byte("    timeout: 60s\n    pass_env: [GOFLAGS, NODE_OPTIONS, TAPELOOP_UNSET_PASSED]\n    pass_credentials: [GITHUB_TOKEN]\n"), 1)
	s = load(t, writeScenario(t, string(text)))
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(o.Final, "\n") {
		name, v, _ := strings.Cut(line, "=")
		got[name] = v
	}
	want := map[string]string{
		"GOFLAGS":               `"-mod=mod" true`,
		"NODE_OPTIONS":          `"--no-warnings" true`,
		"GITHUB_TOKEN":          `"real-github" true`,
		"MY_SETTING":            `"" false`,
		"TAPELOOP_UNSET_PASSED": `"" false`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("the agent got %s=%s; want %s", k, got[k], w)
		}
	}
	if v := got["OPENAI_API_KEY"]; strings.Contains(v, "real") || !strings.HasSuffix(v, " true") {
		t.Errorf("the agent got OPENAI_API_KEY=%s; want a dummy (only GITHUB_TOKEN is passed)", v)
	}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if v := got[k]; !scratchDir(v) {
			t.Errorf("the agent got %s=%s; want a scratch directory of the run", k, v)
		}
	}
}

// TestCommandSetsOnlyWhatPassEnvRefuses: every variable a command agent
// finds in its environment is one tapeloop passes from its own (PATH, the
// locale, TERM), a credential (a dummy, or empty), or one the run sets
// itself; each of the last is refused in setup.agent.pass_env, at its line,
// so that no pass_env name is silently outdone by the run's own value.
func TestCommandSetsOnlyWhatPassEnvRefuses(t *testing.T) {
	s := modeScenario(t, "60s", "environ")
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(o.Final, "\n") {
		seen[name] = true
		switch {
		case name == "PATH" || name == "LANG" || name == "LANGUAGE" || name == "TZ" || name == "TERM" || strings.HasPrefix(name, "LC_"):
			continue // passed from tapeloop's environment
		case scenario.CredentialShaped(name):
			continue // a dummy; pass_env refuses it as a credential
		}
		text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [node]\n    pass_env:\n      - " + name + "\ninput: [{role: user, content: hi}]\ntape: []\n"
		_, err := scenario.Parse([]byte(text), "a.yaml", "a")
		if want := "a.yaml:6: setup.agent.pass_env: " + name + " is set by the run itself ("; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the run sets %s, but pass_env naming it: %v; want %q", name, err, want)
		}
	}
	for _, name := range []string{"HOME", "TMPDIR", "OPENAI_BASE_URL", "TAPELOOP_SCENARIO"} {
		if !seen[name] {
			t.Errorf("the agent's environment lacks %s: %q", name, o.Final)
		}
	}
}

// TestCommandRunOutdoesPassEnv: a scenario built in Go is not checked as a
// file is, so its PassEnv may name a variable the run sets itself or a
// credential; the run's own value still wins (a scratch HOME and TMPDIR, a
// dummy key), so no real home with its credential files nor a real key
// reaches the agent through pass_env.
func TestCommandRunOutdoesPassEnv(t *testing.T) {
	t.Setenv("HOME", "/real/home")
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "real"))
	if err := os.Mkdir(os.Getenv("TMPDIR"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "real-openai")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/real/adc.json")
	t.Setenv("GOFLAGS", "-mod=mod")
	names := []string{"HOME", "TMPDIR", "OPENAI_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOFLAGS"}
	s := modeScenario(t, "60s", append([]string{"env"}, names...)...)
	s.Setup.Agent.PassEnv = names
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(o.Final, "\n") {
		name, v, _ := strings.Cut(line, "=")
		got[name] = v
	}
	for _, k := range []string{"HOME", "TMPDIR"} {
		if v := got[k]; !scratchDir(v) {
			t.Errorf("the agent got %s=%s; want a scratch directory of the run", k, v)
		}
	}
	if v := got["OPENAI_API_KEY"]; strings.Contains(v, "real") || !strings.HasSuffix(v, " true") {
		t.Errorf("the agent got OPENAI_API_KEY=%s; want the dummy", v)
	}
	if v := got["GOOGLE_APPLICATION_CREDENTIALS"]; v != `"" true` {
		t.Errorf("the agent got GOOGLE_APPLICATION_CREDENTIALS=%s; want it set empty", v)
	}
	if v := got["GOFLAGS"]; v != `"-mod=mod" true` {
		t.Errorf("the agent got GOFLAGS=%s; want it passed", v)
	}
}
