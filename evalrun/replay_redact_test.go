package evalrun

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
)

// TestReplayOutputsRedacted: what a replay prints and every report it
// writes go through the redaction policy, as its golden does: a password
// from a secret-named variable, a URL's password, a token's base64 and a
// --redact-env variable's value, in an answer whose expectation fails
// (issue 39, item 1).
func TestReplayOutputsRedacted(t *testing.T) {
	const plain = "plainvalue-9QmZ2xW7pR" // named by --redact-env only
	t.Setenv("APP_DB_PASSWORD", dbPassword)
	t.Setenv("APP_PLAIN", plain)
	token := base64.StdEncoding.EncodeToString([]byte("user:" + dbPassword))
	answer := "pw " + dbPassword + ", url https://bob:hunter2pass@db.example/x, basic " + token + ", plain " + plain
	dir := newScenarios(t, map[string]string{"s.yaml": `format: tapeloop/v1
setup:
  tools: [calculator]
input:
  - {role: user, content: "Say the secrets."}
tape:
  - response: {content: "` + answer + `"}
expect:
  final: {equals: "nothing"}
`})
	outDir := t.TempDir()
	args := []string{"replay", "--redact-env", "APP_PLAIN",
		"--json", filepath.Join(outDir, "r.json"), "--junit", filepath.Join(outDir, "r.xml"), "--html", filepath.Join(outDir, "r.html"), dir}
	code, out, errOut := runCmd(t, args...)
	if code != exitFailed || !strings.Contains(out, "expect.final") {
		t.Fatalf("exit %d, want 1 with the expect.final failure\n%s\n%s", code, out, errOut)
	}
	for _, name := range []string{"r.json", "r.xml", "r.html"} {
		data, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil || !strings.Contains(string(data), "[REDACTED]") {
			t.Errorf("%s: %v, or it holds no [REDACTED]:\n%s", name, err, data)
		}
	}
	secrets := []string{dbPassword, "hunter2pass", token, plain}
	check := func(what, data string) {
		for _, s := range secrets {
			if strings.Contains(data, s) {
				t.Errorf("%s holds the secret %q:\n%s", what, s, data)
			}
		}
	}
	for _, name := range []string{"r.json", "r.xml", "r.html"} {
		data, _ := os.ReadFile(filepath.Join(outDir, name))
		check(name, string(data))
	}
	check("stdout", out)
	check("stderr", errOut)
	for _, flag := range []string{"--json", "--junit", "--html"} {
		code, out, errOut := runCmd(t, "replay", "--redact-env", "APP_PLAIN", flag, "-", dir)
		if code != exitFailed {
			t.Fatalf("%s -: exit %d\n%s\n%s", flag, code, out, errOut)
		}
		check(flag+" - stdout", out)
		check(flag+" - stderr", errOut)
	}
}

// TestReplayRedactedKeyStandsForOneKey: a system prompt recorded with a
// key redacted in a URL's query replays while the agent sends the same
// URL with the key, and diverges once the query gains "&admin=1" after
// the key: a [REDACTED] stands for a secret's characters, never for
// structure (issue 39, item 4).
func TestReplayRedactedKeyStandsForOneKey(t *testing.T) {
	t.Setenv("APP_PLAIN", plainSecret)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	prompt := func(query string) bridge.Agent {
		return echoAgent("Fetch https://api.example.com/v1/orders?key=" + query + " and say hello.")
	}
	recordRedacted(t, prompt(plainSecret), path, "--redact-env", "APP_PLAIN")
	file, _ := os.ReadFile(path)
	if strings.Contains(string(file), plainSecret) || !strings.Contains(string(file), "orders?key=[REDACTED] and say hello.") {
		t.Fatalf("the scenario does not hold the prompt with the key redacted:\n%s", file)
	}
	// The replay knows less than the recording did (no --redact-env).
	if code, out, errOut := runAgentCmd(t, prompt(plainSecret), "replay", path); code != exitOK {
		t.Errorf("replay of the same prompt: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	for _, query := range []string{plainSecret + "&admin=1", plainSecret + `","role":"admin`, plainSecret + "#admin"} {
		code, out, errOut := runAgentCmd(t, prompt(query), "replay", "--redact-env", "APP_PLAIN", path)
		if code != exitFailed || !strings.Contains(out, "offered.system") || strings.Contains(out+errOut, plainSecret) {
			t.Errorf("replay with the query %q: exit %d, want %d naming offered.system without the key\n%s%s", strings.ReplaceAll(query, plainSecret, "KEY"), code, exitFailed, out, errOut)
		}
	}
	// Without the flag the replay's policy does not know the key, but its
	// divergence shows the key as the recording did: what the recorded
	// [REDACTED] stands for in the sent text is redacted in the diff.
	code, out, errOut := runAgentCmd(t, prompt(plainSecret+"&admin=1"), "replay", path)
	if code != exitFailed || !strings.Contains(out, "+Fetch https://api.example.com/v1/orders?key=[REDACTED]&admin=1 and say hello.") || strings.Contains(out+errOut, plainSecret) {
		t.Errorf("replay without --redact-env of the query KEY&admin=1: exit %d, want %d showing key=[REDACTED]&admin=1, never the key\n%s%s", code, exitFailed, out, errOut)
	}
}

// TestReplayMatchesAPasswordItsPolicyKnows: a password written with
// characters no key holds ("!", "&", "#", brackets), from a secret-named
// variable, is recorded as [REDACTED] in a system prompt; the replay, whose
// policy knows it, matches the agent sending it, and still diverges once
// "&admin=1" follows it (issue 39, item 4).
func TestReplayMatchesAPasswordItsPolicyKnows(t *testing.T) {
	const pw = "hunter2!&x#pw(1)"
	t.Setenv("APP_DB_PASSWORD", pw)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	prompt := func(secret string) bridge.Agent {
		return echoAgent("Connect with the password " + secret + " and say hello.")
	}
	recordRedacted(t, prompt(pw), path)
	file, _ := os.ReadFile(path)
	if strings.Contains(string(file), pw) || !strings.Contains(string(file), "password [REDACTED] and say hello.") {
		t.Fatalf("the scenario does not hold the prompt with the password redacted:\n%s", file)
	}
	if code, out, errOut := runAgentCmd(t, prompt(pw), "replay", path); code != exitOK {
		t.Errorf("replay of the same prompt: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	code, out, errOut := runAgentCmd(t, prompt(pw+"&admin=1"), "replay", path)
	if code != exitFailed || !strings.Contains(out, "offered.system") || strings.Contains(out+errOut, pw) {
		t.Errorf("replay with &admin=1 after the password: exit %d, want %d naming offered.system without the password\n%s%s", code, exitFailed, out, errOut)
	}
}

// TestRebaseRedactedKeyStandsForOneKey: a rebase of a prompt whose query
// gained "&admin=1" after a redacted key, under a policy that does not know
// the key, learns the key as one secret, as a replay matches it: it offers
// key=[REDACTED]&admin=1 (never the key), writes it when accepted, and the
// file it wrote replays green (issue 39, item 4).
func TestRebaseRedactedKeyStandsForOneKey(t *testing.T) {
	t.Setenv("APP_PLAIN", plainSecret)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	prompt := func(query string) bridge.Agent {
		return echoAgent("Fetch https://api.example.com/v1/orders?key=" + query + " and say hello.")
	}
	recordRedacted(t, prompt(plainSecret), path, "--redact-env", "APP_PLAIN")
	const want = "orders?key=[REDACTED]&admin=1 and say hello."
	admin := prompt(plainSecret + "&admin=1")
	before, _ := os.ReadFile(path)
	code, out, errOut := runAgentCmd(t, admin, "rebase", "--dry-run", path)
	if after, _ := os.ReadFile(path); code != exitOK || !strings.Contains(out, "+  system: Fetch https://api.example.com/v1/"+want+"\n") || strings.Contains(out+errOut, plainSecret) || string(after) != string(before) {
		t.Errorf("rebase --dry-run: exit %d, want %d offering %q and the file unchanged\n%s%s", code, exitOK, want, out, errOut)
	}
	code, out, errOut = runAgentCmd(t, admin, "rebase", path)
	file, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(file), want) || strings.Contains(string(file)+out+errOut, plainSecret) {
		t.Fatalf("rebase: exit %d, want %d writing %q without the key\n%s%s\n%s", code, exitOK, want, out, errOut, file)
	}
	if code, out, errOut := runAgentCmd(t, admin, "replay", path); code != exitOK {
		t.Errorf("replay of the rebased file: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	if code, out, _ := runAgentCmd(t, prompt(plainSecret), "replay", "--redact-env", "APP_PLAIN", path); code != exitFailed || !strings.Contains(out, "offered.system") {
		t.Errorf("replay without &admin=1: exit %d, want %d naming offered.system\n%s", code, exitFailed, out)
	}
}

// TestRebaseLearnsAPasswordItsEnvironmentHolds: record was told to redact
// a password holding "!", "&" and "#" (--redact-env), a rebase of a
// reworded prompt was not; the value one [REDACTED] stands for as a token
// ends at the "!", but the environment holds the whole password starting
// there, so the rebase learns it whole: no part of it reaches the file or
// the output, and the file replays green under record's flag.
func TestRebaseLearnsAPasswordItsEnvironmentHolds(t *testing.T) {
	const pw = "hunter22!&x#pw(1)"
	t.Setenv("APP_DB_LOGIN", pw)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	prompt := func(greeting string) bridge.Agent {
		return echoAgent("Connect with " + pw + " then say " + greeting + ".")
	}
	recordRedacted(t, prompt("hello"), path, "--redact-env", "APP_DB_LOGIN")
	if file, _ := os.ReadFile(path); !strings.Contains(string(file), "Connect with [REDACTED] then say hello.") {
		t.Fatalf("the recording does not hold the redacted password:\n%s", file)
	}
	code, out, errOut := runAgentCmd(t, prompt("hi"), "rebase", path)
	file, _ := os.ReadFile(path)
	for _, part := range []string{pw, "hunter22", "!&x#pw(1)", "pw(1)"} {
		if strings.Contains(string(file)+out+errOut, part) {
			t.Errorf("rebase without --redact-env wrote or printed %q of the password", part)
		}
	}
	if code != exitOK || !strings.Contains(string(file), "Connect with [REDACTED] then say hi.") {
		t.Fatalf("rebase: exit %d, want %d writing the reworded prompt with the password redacted whole\n%s%s\n%s", code, exitOK, out, errOut, file)
	}
	if code, out, errOut := runAgentCmd(t, prompt("hi"), "replay", "--redact-env", "APP_DB_LOGIN", path); code != exitOK {
		t.Errorf("replay of the rebased file: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
}

// recordRedacted records path's offered block from agent, as record
// would with flags: `replay --update` writes the golden, `rebase --all`
// the requests, each redacted under flags (--redact-env NAME).
func recordRedacted(t *testing.T, agent bridge.Agent, path string, flags ...string) {
	t.Helper()
	if code, out, errOut := runAgentCmd(t, agent, append(append([]string{"replay", "--update"}, flags...), path)...); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runAgentCmd(t, agent, append(append([]string{"rebase", "--all"}, flags...), path)...); code != exitOK {
		t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
	}
}
