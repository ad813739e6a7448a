package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/covermap"
)

// warmUp runs the tests covering ms once with no mutant on, before any
// mutant: what they build or fill on the way (a program a test builds with
// go build, into a build cache another user may have emptied) is then
// ready, so the mutants' runs are not timed against a cold start; and a
// test that fails with no mutant on, which would make every verdict
// meaningless, is an error. It may take twice the allowances.
func (r *runner) warmUp(ctx context.Context, bin string, cov *covermap.Map, ms []*Mutant) error {
	set := map[string]bool{}
	for _, m := range ms {
		for _, t := range cov.Lines[fmt.Sprintf("%s:%d", m.File, m.Line)] {
			set[t] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	tests := slices.Sorted(maps.Keys(set))
	var alone time.Duration
	for _, t := range tests {
		alone += cov.Took[t]
	}
	budget := 2 * (time.Duration(r.coefficient)*alone + r.slack)
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.count=1", "-test.timeout="+budget.String())
	cmd.Dir = r.pkgDir
	cmd.Env = append(os.Environ(), "TAPELOOP_MUTANT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		if len(out) > 4000 {
			out = append([]byte("..."), out[len(out)-4000:]...)
		}
		return fmt.Errorf("%s: its tests fail with no mutant on, so no verdict would mean anything (%s):\n%s", r.pkgDir, cmd.ProcessState, out)
	}
	return nil
}
