package evalrun

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestZZExp(t *testing.T) {
	src := strings.Replace(echoScenario, "  - response: {content: \"Hello.\"}\n", "  - response: {content: \"Hello.\"}\n  - response: {content: \"Again.\"}\n", 1)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": src})
	path := filepath.Join(dir, "b", "echo.yaml")
	code, out, errOut := runAgentCmd(t, echoAgent("You are terse."), "replay", path)
	t.Logf("%d\n%s\n%s", code, out, errOut)
	code, out, errOut = runAgentCmd(t, echoAgent("You are terse."), "replay", "--update", path)
	t.Logf("%d\n%s\n%s", code, out, errOut)
}
