package evalrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/eval"
)

// TestSimulatedUserDocs: the simulated-user examples of
// docs/conversations.md and docs/scenario-format.md lint and replay (their
// user turns served from the tape, no model), and the prompt the doc quotes
// is the one the user model is sent.
func TestSimulatedUserDocs(t *testing.T) {
	files := map[string]string{}
	for _, doc := range []string{"../docs/conversations.md", formatDoc} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(b[1], "\nsetup:\n  user:\n") {
				files[filepath.Base(doc)] = b[1]
			}
		}
		if files[filepath.Base(doc)] == "" {
			t.Fatalf("%s has no yaml example with setup.user", doc)
		}
		if doc != formatDoc {
			prompt := regexp.MustCompile("(?s)```text\n(You are playing the user.*?)\n```").FindStringSubmatch(string(data))
			if prompt == nil || prompt[1] != eval.UserPrompt {
				t.Errorf("%s does not quote eval.UserPrompt as it is:\n%q\nwant\n%q", doc, prompt, eval.UserPrompt)
			}
			if !strings.Contains(string(data), "`"+eval.UserGreeting+"`") {
				t.Errorf("%s does not quote eval.UserGreeting %q", doc, eval.UserGreeting)
			}
		}
	}
	scenarios := map[string]string{}
	for doc, text := range files {
		scenarios[strings.TrimSuffix(doc, ".md")+".yaml"] = text
	}
	dir := newScenarios(t, scenarios)
	if code, out, errOut := runCmd(t, "lint", dir); code != exitOK {
		t.Fatalf("lint: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "replay", dir)
	if code != exitOK || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
	golden, _ := os.ReadFile(filepath.Join(dir, "conversations.golden.yaml"))
	for _, said := range []string{"user: It's A100. I'd like a refund, please.", "user: Thank you, that's all."} {
		if !strings.Contains(string(golden), said) {
			t.Errorf("the golden lacks %q:\n%s", said, golden)
		}
	}
}

// TestLintSetupUser: lint names the file, line and key of a bad setup.user.
func TestLintSetupUser(t *testing.T) {
	dir := newScenarios(t, map[string]string{"bad.yaml": "format: tapeloop/v1\nsetup:\n  user:\n    model: openai/gpt-4.1-mini\n    instructions: Be Mia.\n    max_turns: 500\ninput: [{role: user, content: hi}]\n"})
	code, out, errOut := runCmd(t, "lint", dir)
	want := filepath.Join(dir, "bad.yaml") + ":6: setup.user.max_turns: want an integer from 1 to 100, got 500"
	if code != exitUsage || !strings.Contains(out+errOut, want) {
		t.Errorf("lint: exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}
}
