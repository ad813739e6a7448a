package evalrun

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A bundled scenario whose tools change mid-run shows the breaker; one
// conversation that only appends shows none and a share that is not zero.
func TestCostBundledScenarios(t *testing.T) {
	code, out, errOut := runCmd(t, "cost", "../scenarios/availability/until-iteration.yaml", "../scenarios/conversations/notes-over-three-turns.yaml")
	if code != exitOK {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "cost  availability/until-iteration: 3 requests") || !strings.Contains(out, "      request 1: tools[0] added\n") {
		t.Errorf("until-iteration: want its third tool's arrival named as a breaker, got:\n%s", out)
	}
	m := regexp.MustCompile(`cost  conversations/notes-over-three-turns: \d+ requests, cacheable share (\d+)% \(\d+ of \d+ input tokens, estimated\)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line for notes-over-three-turns, got:\n%s", out)
	}
	if share, _ := strconv.Atoi(m[1]); share < 50 {
		t.Errorf("notes-over-three-turns share %d%%, want over half: each request repeats the one before", share)
	}
	if strings.Contains(out[strings.Index(out, "conversations/notes"):], "request ") {
		t.Errorf("notes-over-three-turns only appends, yet a breaker is listed:\n%s", out)
	}
}

func TestCostUsageErrors(t *testing.T) {
	if code, _, errOut := runCmd(t, "cost", "--run", "(", "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, "--run") {
		t.Errorf("bad --run: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "cost", "--run", "^nothing$", "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, "no scenario matches") {
		t.Errorf("no match: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "cost", "no/such/dir"); code != exitUsage || !strings.Contains(errOut, "no/such/dir") {
		t.Errorf("missing path: exit %d, stderr %q", code, errOut)
	}
}
