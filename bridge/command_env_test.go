package bridge_test

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
)

// TestCommandEnvironment: a command agent sees none of the credentials in
// tapeloop's environment, only dummies, nor any other variable that is not
// on the allowlist; HOME and TMPDIR are scratch directories of the run.
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
	names := append(append([]string{}, keys...), "GOOGLE_APPLICATION_CREDENTIALS", "MY_SECRET", "LC_ALL", "PATH", "HOME", "TMPDIR")
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
		// The scratch home is a directory of the run, seen at a fixed path
		// where the sandbox holds Workspace.
		if v := got[k]; strings.Contains(v, "/real/") || !strings.Contains(v, "tapeloop-home-") && !strings.Contains(v, `"`+sandbox.HomeDir) {
			t.Errorf("the agent got %s=%s; want a scratch directory of the run", k, v)
		}
	}
	if t.Failed() {
		t.Logf("the agent printed:\n%s", o.Final)
	}
}
