package evalrun

import (
	"context"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leakKey is the provider key of the secret tests: it has an OpenAI key's
// shape, so that a replay with no key in the environment still knows it.
const leakKey = "sk-proj-Lk9QmZ2xW7pRs4TuV8yNa3Bc6De1Fg5Hj"

// dbPassword is a second secret without a shape, known only from a
// variable whose name says it is secret.
const dbPassword = "pw8Zq7xW9kLmNpRsT"

// secretScenario reads a file holding the key and the password, then (as
// the scripted server answers) writes both elsewhere and says them.
const secretScenario = `format: tapeloop/v1
setup:
  workspace:
    from: ws   # secret.env holds the key and the password
  tools: [read_file, write_file]
input:
  - {role: user, content: "Copy the key from secret.env to out.txt."}
tape: []
expect:
  termination: final_text
`

// secretAnswers are the scripted model's answers to secretScenario.
func secretAnswers() []chatAnswer {
	return []chatAnswer{
		{callID: "call_r", name: "read_file", arguments: `{"path":"secret.env"}`, inTok: 10, outTok: 5},
		{callID: "call_w", name: "write_file", arguments: `{"path":"out.txt","content":"key ` + leakKey + `\nnext line stays\npw ` + dbPassword + `\n"}`, inTok: 20, outTok: 9},
		{text: "Copied " + leakKey + " (and " + dbPassword + ").", inTok: 30, outTok: 7},
	}
}

// leakForms are the forms of the secrets no byte written may hold.
func leakForms() []string {
	var forms []string
	for _, s := range []string{leakKey, dbPassword} {
		forms = append(forms, s, strings.ToUpper(s), hex.EncodeToString([]byte(s)), s[len(s)-12:])
	}
	return forms
}

// grepTree fails the test for every file under dir (and every stream)
// holding a form of a secret.
func grepTree(t *testing.T, what string, dirs []string, streams ...string) {
	t.Helper()
	check := func(name string, data []byte) {
		for _, f := range leakForms() {
			if strings.Contains(strings.ToLower(string(data)), strings.ToLower(f)) {
				t.Errorf("%s: %s holds the secret %q:\n%s", what, name, f, data)
			}
		}
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if filepath.Base(path) == "secret.env" && !strings.Contains(path, "trial") {
				return nil // the author's workspace, read by the runs
			}
			data, _ := os.ReadFile(path)
			check(path, data)
			return nil
		})
	}
	for i, s := range streams {
		check([]string{"stdout", "stderr"}[i%2], []byte(s))
	}
}

// TestNoSecretInAnyFileOrStream is issue 21's probe: record (a new
// scenario, with --capture, and into an existing file), replay with no
// server, and eval with every report and saved trials, against a scripted
// OpenAI server, with the key in the environment, a workspace file, the
// model's output and an error body; no byte written holds a secret.
func TestNoSecretInAnyFileOrStream(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", leakKey)
	t.Setenv("APP_DB_PASSWORD", dbPassword)
	root := t.TempDir()
	dir := filepath.Join(root, "scenarios")
	os.MkdirAll(dir, 0o755)
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "secret.env"), []byte("OPENAI_API_KEY="+leakKey+"\nDB_PASSWORD="+dbPassword+"\n"), 0o644)
	path := filepath.Join(dir, "copy.yaml")
	os.WriteFile(path, []byte(secretScenario), 0o644)

	srv := newChatServer(t, secretAnswers()...)
	code, out, errOut := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv.URL+"/v1", "--capture", "read_file", path)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	grepTree(t, "record", []string{dir}, out, errOut)

	// record --new, with its pre-filled expect block.
	newPath := filepath.Join(dir, "new.yaml")
	srv2 := newChatServer(t, secretAnswers()...)
	code, out, errOut = recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv2.URL+"/v1", "--new", newPath,
		"--tools", "read_file,write_file", "--workspace", ws, "--prompt", "Copy the key from secret.env to out.txt.")
	if code != exitOK || !strings.Contains(out, "PASS  replaying the recording") {
		t.Fatalf("record --new: exit %d\n%s\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(newPath)
	if !strings.Contains(string(data), "out.txt: |\n") || !strings.Contains(string(data), "next line stays") {
		t.Errorf("the expect block lacks out.txt's redacted content:\n%s", data)
	}
	grepTree(t, "record --new", []string{dir}, out, errOut)

	// Replay with no server, no key in the environment: every recording
	// passes, every run gives the same golden.
	srv.Close()
	srv2.Close()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("APP_DB_PASSWORD", "")
	for range 2 {
		code, out, errOut = runCmd(t, "replay", dir)
		if code != exitOK {
			t.Fatalf("replay with no server: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	t.Setenv("OPENAI_API_KEY", leakKey)
	t.Setenv("APP_DB_PASSWORD", dbPassword)

	// eval: reports, saved trials, and a 401 whose body echoes the key.
	os.WriteFile(path, []byte(secretScenario), 0o644)
	evalInto := func(name, baseURL string) (int, string, string, string) {
		t.Setenv("OPENAI_BASE_URL", baseURL+"/v1")
		outDir := filepath.Join(root, name)
		os.MkdirAll(outDir, 0o755)
		code, out, errOut := runCmd(t, "eval", "--model", "openai/gpt-test", "--trials", "1", "--parallel", "1",
			"--json", filepath.Join(outDir, "r.json"), "--html", filepath.Join(outDir, "r.html"), "--junit", filepath.Join(outDir, "r.xml"),
			"--save-trials", filepath.Join(dir, "saved-"+name), path)
		return code, out, errOut, outDir
	}
	code, out, errOut, outDir := evalInto("out", newChatServer(t, secretAnswers()...).URL)
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s\n%s", code, out, errOut)
	}
	grepTree(t, "eval", []string{outDir, dir}, out, errOut)

	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"Incorrect API key provided: `+leakKey+` (`+strings.ToUpper(hex.EncodeToString([]byte(leakKey)))+`)","type":"invalid_request_error","code":"invalid_api_key"}}`, http.StatusUnauthorized)
	}))
	defer deny.Close()
	code, out, errOut, errDir := evalInto("err", deny.URL)
	if code == exitOK {
		t.Errorf("eval against a server refusing the key passed\n%s\n%s", out, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(errDir, "r.json")); err != nil || !strings.Contains(string(data), "Incorrect API key provided: [REDACTED]") {
		t.Errorf("the error report lacks the redacted error (%v):\n%s", err, data)
	}
	grepTree(t, "eval with a 401", []string{errDir, dir}, out, errOut)
}

// TestRecordPrintsNoSecret: what record prints (here an expect.files
// message quoting a file that holds the key) is redacted (issue 21, item 2).
func TestRecordPrintsNoSecret(t *testing.T) {
	t.Setenv("APP_DB_PASSWORD", dbPassword)
	dir := newScenarios(t, map[string]string{"ws/secret.env": "OPENAI_API_KEY=" + leakKey + "\nDB_PASSWORD=" + dbPassword + "\n", "s.yaml": `format: tapeloop/v1
setup:
  workspace: {from: ws}
  tools: [read_file, write_file]
input:
  - {role: user, content: "Read secret.env."}
tape: []
expect:
  files: {secret.env: "something else"}
`})
	f := scripted(callResponse("call_1", "read_file", `{"path":"secret.env"}`), textResponse("Read."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", filepath.Join(dir, "s.yaml"))
	if code != exitFailed || !strings.Contains(out, "expect.files: expected secret.env to hold") {
		t.Fatalf("exit %d, want 1 with the expect.files failure\n%s\n%s", code, out, errOut)
	}
	grepTree(t, "record", nil, out, errOut)
}
