package evalrun

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
)

// ciDoc is the page of CI recipes whose command lines this test runs.
const ciDoc = "../docs/ci.md"

// ciCommand is one `bin/evalrun ...` line of docs/ci.md, as the test runs
// it: its arguments, and whether exit 1 is allowed (`|| [ $? -eq 1 ]`).
type ciCommand struct {
	line     string
	args     []string
	allowOne bool
}

// ciCommands returns the bin/evalrun command lines of the page's GitHub or
// GitLab block (platform "github" or "gitlab") of the page's text, in order, with the shard
// variables put in for shard (1-based) of 3.
func ciCommands(t *testing.T, text, platform string, shard int) []ciCommand {
	t.Helper()
	start := strings.Index(text, "## GitHub Actions")
	if platform == "gitlab" {
		start = strings.Index(text, "## GitLab CI")
	}
	end := strings.Index(text[start+3:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatalf("%s: no %s section", ciDoc, platform)
	}
	section := text[start : start+3+end]
	n := strconv.Itoa(shard)
	repl := strings.NewReplacer("${{ matrix.shard }}", n, "$CI_NODE_INDEX", n, "$CI_NODE_TOTAL", "3")
	var out []ciCommand
	for line := range strings.SplitSeq(section, "\n") {
		i := strings.Index(line, "bin/evalrun ")
		if i < 0 || strings.Contains(line, "go build") {
			continue
		}
		cmd := ciCommand{line: strings.TrimSpace(line)}
		body := repl.Replace(line[i+len("bin/evalrun "):])
		if rest, ok := strings.CutSuffix(body, " || [ $? -eq 1 ]"); ok {
			body, cmd.allowOne = rest, true
		}
		cmd.args = strings.Fields(body)
		out = append(out, cmd)
	}
	return out
}

// TestCIRecipes runs docs/ci.md's command lines, GitHub's and GitLab's, in
// a scratch folder holding a scenario suite: the replay on push, then the
// nightly eval of three shards (the live model is the scripted local
// server, the model name swapped for its right model), the merge and the
// compare with an accepted report. Each must exit as the recipe expects.
func TestCIRecipes(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	data, err := os.ReadFile(ciDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, platform := range []string{"github", "gitlab"} {
		t.Run(platform, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{
				"files/append.yaml": appendScenario, "files/again.yaml": appendScenario,
				"files/more.yaml": appendScenario, "files/last.yaml": appendScenario,
			})
			t.Chdir(filepath.Dir(dir)) // ./scenarios is the default suite
			// The suite's tapes and goldens, recorded from the scripted server.
			if code, out, errOut := runCmd(t, "record", "--model", "openai-compatible/right", "scenarios"); code != exitOK {
				t.Fatalf("recording the suite: exit %d\n%s%s", code, out, errOut)
			}
			var ran []string
			run := func(c ciCommand) {
				t.Helper()
				args := c.args
				for i, a := range args {
					if a == "openai/gpt-4.1-mini" {
						args[i] = "openai-compatible/right"
					}
				}
				code, out, errOut := runCmd(t, args...)
				if code != exitOK && !(c.allowOne && code == exitFailed) {
					t.Fatalf("%s: exit %d\n%s%s", c.line, code, out, errOut)
				}
				ran = append(ran, args[0])
			}
			cmds := ciCommands(t, doc, platform, 1)
			if len(cmds) != 4 || cmds[0].args[0] != "replay" || cmds[1].args[0] != "eval" || cmds[2].args[0] != "merge" || cmds[3].args[0] != "compare" {
				t.Fatalf("%s: the %s recipe's commands are %+v; want replay, eval, merge, compare", ciDoc, platform, cmds)
			}
			run(cmds[0])
			for _, f := range []string{"replay.xml", "replay.html"} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("replay wrote no %s: %v", f, err)
				}
			}
			for shard := 1; shard <= 3; shard++ {
				run(ciCommands(t, doc, platform, shard)[1])
			}
			run(cmds[2])
			// The accepted report: this night's, accepted as it is.
			if err := os.MkdirAll("evals", 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile("eval.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("evals", "accepted.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			run(cmds[3])
			if got := strings.Join(ran, " "); got != "replay eval eval eval merge compare" {
				t.Errorf("ran %s", got)
			}
		})
	}
}
