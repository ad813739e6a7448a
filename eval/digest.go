package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/workspace"
)

// scenarioDigest is what a trial's verdict depends on in the scenario: the
// text it was parsed from (input, setup, expect:, the tape's user turns;
// scenario.Scenario.Source) and the seed workspace (a setup.workspace.from
// tree is outside the file), as the first 16 hex digits of a SHA-256. It is
// "" for a scenario made in code, or whose workspace cannot be read: a
// trial of it is then never reused by --resume.
func scenarioDigest(s *scenario.Scenario) string {
	if s.Source == [sha256.Size]byte{} {
		return ""
	}
	h := sha256.New()
	h.Write(s.Source[:])
	ws, err := harness.Workspace(s)
	if err != nil {
		return ""
	}
	files, err := workspace.Snapshot(ws)
	if err != nil {
		return ""
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		h.Write([]byte("\n" + strconv.Quote(p) + " " + strconv.Itoa(len(files[p])) + "\n"))
		h.Write(files[p])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
