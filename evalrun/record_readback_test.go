package evalrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestRecordNeverWritesWhatItCannotRead: an answer that would make the
// scenario file larger than any command reads (scenario.MaxScenarioSize)
// is refused before writing, with the reason; the file keeps its old
// content and the summary counts a failure, not a recording (issue 39,
// item 13).
func TestRecordNeverWritesWhatItCannotRead(t *testing.T) {
	dir := newScenarios(t, map[string]string{"s/done.yaml": doneScenario})
	path := filepath.Join(dir, "s", "done.yaml")
	huge := "done " + strings.Repeat("all work and no play ", scenario.MaxScenarioSize/20)
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse(huge)), "--model", "fake/m", path)
	if code == exitOK || strings.Contains(out, "1 recorded") || !strings.Contains(out+errOut, "MiB") {
		t.Errorf("record of a %d-byte answer: exit %d; want a failure saying the file would be too large\n%.2000s\n%.2000s", len(huge), code, out, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != doneScenario {
		t.Errorf("the scenario was rewritten (%d bytes); want it untouched", len(data))
	}
	if _, err := scenario.Load(path); err != nil {
		t.Errorf("the scenario no longer loads: %v", err)
	}
}
