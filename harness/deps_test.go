package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWhatUsersLink pins the layout docs/design.md draws, where it matters
// to a user's binary: a replay-only test (harness, scenario) links no
// provider SDK and no MCP SDK, decoding a report links no harness, and the
// evalrun library leaves registering providers to main.
func TestWhatUsersLink(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to list dependencies")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "github.com/tapeloop/tapeloop/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	forbidden := func(pkg string, prefixes ...string) {
		for _, d := range deps(pkg) {
			for _, p := range prefixes {
				if d == p || strings.HasPrefix(d, p+"/") {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
	}
	sdks := []string{"github.com/openai/openai-go/v3", "github.com/anthropics/anthropic-sdk-go", "github.com/modelcontextprotocol/go-sdk",
		"github.com/tapeloop/tapeloop/mcptools", "github.com/tapeloop/tapeloop/llm/builtin", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"}
	forbidden("harness", sdks...)
	forbidden("scenario", sdks...)
	forbidden("report", append(sdks, "github.com/tapeloop/tapeloop/harness", "github.com/tapeloop/tapeloop/scenario")...)
	forbidden("evalrun", "github.com/tapeloop/tapeloop/llm/builtin", "github.com/openai/openai-go/v3", "github.com/anthropics/anthropic-sdk-go")
}
