package eval

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestMCPServerThatNeverAnswersTimesOut: a server that reads its input and
// never answers initialize fails the run after setup.mcp[].timeout, with
// the server's name and file:line, instead of hanging (issue 21, item 11).
func TestMCPServerThatNeverAnswersTimesOut(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run a silent server with")
	}
	src := `format: tapeloop/v1
setup:
  mcp:
    - {name: silent, command: [` + sh + `, -c, "while read line; do :; done"], timeout: 50ms}
input: [{role: user, content: "hi"}]
tape: []
`
	file := filepath.Join(t.TempDir(), "m.yaml")
	s, err := scenario.Parse([]byte(src), file, "m")
	if err != nil {
		t.Fatal(err)
	}
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	_, err = harness.Run(context.Background(), s, &harness.RunOptions{Model: model, ConnectMCP: ConnectMCP})
	want := file + ":4: setup.mcp[silent]: the server did not finish connecting (initialize, tools/list) within 50ms"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s...", err, want)
	}
}
