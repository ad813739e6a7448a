package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flowScenario writes its setup as one flow mapping, its seed tree beside
// it in seed/.
const flowScenario = `format: tapeloop/v1
setup: {workspace: {from: ../seed}, tools: [read_file, write_file]}
input:
  - {role: user, content: "Append 'world' to notes.txt."}
tape: []
expect:
  termination: final_text
  files: {notes.txt: "hello\nworld\n"}
`

// TestEvalSaveTrialsAnyScenario: --save-trials saves the trials of a
// scenario whose setup is written in flow style and whose seed tree is a
// folder of its module, into a folder inside the module and into one
// outside it, and each saved trial replays offline from where it landed
// (issue 39, item 14).
func TestEvalSaveTrialsAnyScenario(t *testing.T) {
	base := t.TempDir()
	mod := filepath.Join(base, "mod")
	files := map[string]string{
		"go.mod":               "module example.com/m\n",
		"evals/seed/notes.txt": "hello\n",
		"evals/s/flow.yaml":    flowScenario,
	}
	for name, content := range files {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, saved := range []string{filepath.Join(mod, "trials"), filepath.Join(base, "elsewhere", "trials")} {
		code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--parallel", "1", "--save-trials", saved, filepath.Join(mod, "evals", "s"))
		if code != exitOK || strings.Contains(errOut, "could not be saved") {
			t.Errorf("eval --save-trials %s: exit %d\n%s%s", saved, code, out, errOut)
			continue
		}
		code, out, errOut = runCmd(t, "replay", saved)
		if code != exitOK || !strings.Contains(out, "2 passed, 0 failed") {
			t.Errorf("replaying the trials saved in %s: exit %d\n%s%s", saved, code, out, errOut)
		}
	}
}
