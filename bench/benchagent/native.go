package benchagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tapeloop/tapeloop/harness"
)

// NativeText is the reference workload as a native tapeloop scenario: the
// same ten turns, replayed by tapeloop's own loop with its read_file and
// append_file tools.
func NativeText() string {
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

// PrepareNative writes NativeText into dir as ten-turns.yaml with its
// golden (produced by the harness) and returns its path.
func PrepareNative(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(NativeText()), 0o644); err != nil {
		return "", err
	}
	v := harness.Verify(ctx, path, &harness.VerifyOptions{Update: true})
	if v.Err != nil || len(v.Failures) > 0 || len(v.Outcome.Turns) != Turns {
		return "", fmt.Errorf("setting up the native reference scenario: %v %v", v.Err, v.Failures)
	}
	return path, nil
}
