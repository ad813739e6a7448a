package evalrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// plainSecret is a value only --redact-env names as secret: its variable's
// name does not say so and it has no key's shape.
const plainSecret = "plainvalue-9QmZ2xW7pR"

func init() {
	// readcfg reads cfg.txt, then says it did.
	llm.Register("readcfg", llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
				return textResponse("Read it."), nil
			}
			return callResponse("call_1", "read_file", `{"path":"cfg.txt"}`), nil
		}), nil
	}))
}

// TestRedactEnvReachesGoldens: the golden record and eval --save-trials
// write beside a tape redacted with --redact-env is redacted the same way
// (issue 39, item 2).
func TestRedactEnvReachesGoldens(t *testing.T) {
	t.Setenv("APP_PLAIN", plainSecret)
	dir := newScenarios(t, map[string]string{"ws/cfg.txt": "value " + plainSecret + "\n", "s.yaml": `format: tapeloop/v1
setup:
  workspace: {from: ws}
  tools: [read_file]
input:
  - {role: user, content: "Read cfg.txt."}
tape: []
`})
	path := filepath.Join(dir, "s.yaml")
	f := scripted(callResponse("call_1", "read_file", `{"path":"cfg.txt"}`), textResponse("It holds "+plainSecret+"."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--redact-env", "APP_PLAIN", path)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, p := range []string{path, filepath.Join(dir, "s.golden.yaml")} {
		data, err := os.ReadFile(p)
		if err != nil || strings.Contains(string(data), plainSecret) || !strings.Contains(string(data), "[REDACTED]") {
			t.Errorf("record --redact-env: %s (%v) holds the secret, or no [REDACTED]:\n%s", p, err, data)
		}
	}
	// A replay with the same flag, and one without, pass and keep it.
	for _, args := range [][]string{{"replay", "--redact-env", "APP_PLAIN", dir}, {"replay", dir}, {"replay", "--update", dir}} {
		if code, out, errOut := runCmd(t, args...); code != exitOK {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "s.golden.yaml")); strings.Contains(string(data), plainSecret) {
			t.Errorf("after %v the golden holds the secret:\n%s", args, data)
		}
	}

	// eval --save-trials: the saved trial's golden.
	conv := newScenarios(t, map[string]string{"ws/cfg.txt": "value " + plainSecret + "\n", "c.yaml": `format: tapeloop/v1
setup:
  workspace:
    from: ws
  tools: [read_file]
input:
  - {role: user, content: "Read cfg.txt."}
tape: []
expect:
  termination: final_text
`})
	saved := filepath.Join(conv, "trials") // inside the folder: one outside is issue 39, item 14
	code, out, errOut = runCmd(t, "eval", "--model", "readcfg/m", "--trials", "1", "--redact-env", "APP_PLAIN", "--save-trials", saved, conv)
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s\n%s", code, out, errOut)
	}
	n := 0
	filepath.WalkDir(saved, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if data, _ := os.ReadFile(p); strings.Contains(string(data), plainSecret) {
			t.Errorf("eval --save-trials --redact-env: %s holds the secret:\n%s", p, data)
		}
		return nil
	})
	if n < 2 {
		t.Errorf("eval saved %d files; want the trial and its golden", n)
	}
}
