package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
)

// turns is the reference workload's model turns: ten turns of a read and an
// append, then the final text.
const turns = 11

// scenarioText is the reference workload as a tapeloop scenario.
func scenarioText() string {
	var tape strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&tape, `  - response:
      content: "Turn %[1]d: reading and appending."
      tool_calls:
        - {id: r%[1]d, name: read_file, arguments: '{"path": "log.txt"}'}
        - {id: w%[1]d, name: append_file, arguments: '{"path": "log.txt", "content": "line %[1]d\n"}'}
`, i)
	}
	return "format: tapeloop/v1\nsetup:\n  workspace:\n    files: {log.txt: \"start\\n\"}\n  tools: [read_file, append_file]\ninput:\n  - {role: user, content: \"Append ten lines.\"}\ntape:\n" +
		tape.String() + "  - response: {content: Done.}\n"
}

// writeScenario writes the reference scenario and its golden (produced by
// the harness) into a temporary folder and returns the scenario's path.
func writeScenario(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(scenarioText()), 0o644); err != nil {
		b.Fatal(err)
	}
	v := harness.Verify(context.Background(), path, &harness.VerifyOptions{Update: true})
	if v.Err != nil || len(v.Failures) > 0 || len(v.Outcome.Turns) != turns {
		b.Fatalf("setting up the reference scenario: %v %v", v.Err, v.Failures)
	}
	return path
}
