package evalrun

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
