package harness

import (
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
)

// ErrNotUpdated is wrapped by the failure of a scenario whose golden
// VerifyOptions.Update left as it was because the run could not do its
// job (see VerifyOptions.Update): what it did says nothing the golden
// should hold.
var ErrNotUpdated = errors.New("the run could not do its job; its golden is untouched")

// notUpdatable is the one rule of what an update (VerifyOptions.Update,
// replay --update, go test -update) refuses to write as s's golden: the
// outcome o of a run in which the agent could not do its job. nil means
// the golden may be written. A run that diverged from its tape (asking
// for more than it holds too) is refused before, whether updating or not.
// The others are:
//
//   - the agent stopped with an error before its first model request:
//     its program could not be started, or exited at once (a missing
//     dependency, a bad environment): see stoppedEarly;
//   - the run left entries of its tape unused: it made no model call at
//     all, or fewer than were recorded (an agent that now makes fewer on
//     purpose needs a new recording, which rebase cannot make).
//
// Such a run fails for reasons of the machine or of the recording, not
// of the behaviour a golden records, and blessing it would replace a good
// golden with the failure. The failure says why and what to do; --force
// does not bless it. A native tool that panics, an agent that fails after
// its model calls, entries of judge: or of a recorded stand-in left
// unused are outcomes the golden holds (or that fail the run beside it).
func notUpdatable(s *scenario.Scenario, o *Outcome, opts *VerifyOptions) *fileerr.Error {
	if f := stoppedEarly(s, o, true); f != nil {
		return f
	}
	return leftEntries(s, o, opts, true)
}

// leftEntries is the failure of a run of s that left entries of its tape
// unused (a replay.UnusedError in o.Unused), saying what to do; nil for
// any other run. An agent that made no model call may not reach the
// bridge; one that made fewer than were recorded either changed on
// purpose, and needs a new recording (rebase restates requests, it cannot
// drop entries), or stops early, which is the regression the replay found.
// update words it for an update, which leaves the golden untouched
// (ErrNotUpdated).
func leftEntries(s *scenario.Scenario, o *Outcome, opts *VerifyOptions, update bool) *fileerr.Error {
	for _, u := range o.Unused {
		var ue *replay.UnusedError
		if !errors.As(u, &ue) {
			continue
		}
		rerecord := fmt.Sprintf("`%s record --mode all --model PROVIDER/MODEL %s`", opts.command(), opts.hintPath(s.Path))
		switch {
		case o.Iterations == 0 && update:
			return &fileerr.Error{File: s.Path, Kind: ErrNotUpdated, Problem: fmt.Sprintf(
				"the agent made no model call, though the tape holds %d %s, so its golden is untouched: does it reach the bridge at the base URL it is given? (a scenario whose agent makes none has `tape: []` and says so with expect.iterations: 0)",
				ue.Entries, plural(ue.Entries, "entry", "entries"))}
		case o.Iterations == 0:
			return &fileerr.Error{File: s.Path, Problem: fmt.Sprintf(
				"the agent made no model call, though the tape holds %d %s: does it reach the bridge at the base URL it is given? (a scenario whose agent makes none has `tape: []` and says so with expect.iterations: 0)",
				ue.Entries, plural(ue.Entries, "entry", "entries"))}
		case update:
			return &fileerr.Error{File: s.Path, Kind: ErrNotUpdated, Problem: fmt.Sprintf(
				"the run left tape entries unused, so its golden is untouched: if the agent now makes fewer model calls on purpose, record it again: %s", rerecord)}
		default:
			return &fileerr.Error{File: s.Path, Problem: fmt.Sprintf(
				"the agent made fewer model calls than the tape holds: if it does so on purpose, record it again: %s (rebase cannot drop entries); otherwise the agent stops early, and that is the regression", rerecord)}
		}
	}
	return nil
}

// ErrAgentNotStarted is wrapped by the error of an agent whose program
// could not be started at all: it is not found in PATH, no file is at its
// path, or the file is not a program that can run (not executable, a
// script whose interpreter is missing). bridge's setup.agent.command wraps
// it; a replay's failure then says to check setup.agent.command and PATH,
// where a program that started and exited at once is told to make it run
// here.
var ErrAgentNotStarted = errors.New("the agent's program could not be started")

// stoppedEarly is the failure of a run of s in which the agent stopped
// with an error before its first model request (its program could not be
// started, ErrAgentNotStarted, or exited at once), saying what to do; nil
// for any other run.
// Such a run fails whatever the golden says, since a golden blessed from
// it would pass on every machine where the agent cannot run: an update
// (update set) leaves the golden untouched (ErrNotUpdated), and a replay
// compares neither the golden nor the expectations with it.
func stoppedEarly(s *scenario.Scenario, o *Outcome, update bool) *fileerr.Error {
	if o.Termination != agent.ReasonAgentError || o.Iterations != 0 {
		return nil
	}
	if o.Run != nil && errors.Is(o.Run.Termination.Err, ErrAgentNotStarted) {
		const check = "check setup.agent.command (the program's name, looked up in PATH, or its path; that the file exists and is executable, and a script's interpreter too) and PATH"
		if update {
			return &fileerr.Error{File: s.Path, Kind: ErrNotUpdated, Problem: fmt.Sprintf(
				"the agent's program could not be started, so its golden is untouched: %s, then update again; it ended with: %s", check, o.Error)}
		}
		return &fileerr.Error{File: s.Path, Problem: fmt.Sprintf(
			"the agent's program could not be started, so the golden and the expectations were not compared: %s; it ended with: %s", check, o.Error)}
	}
	const do = "make it run here (build its program, install its dependencies, check its environment)"
	if update {
		return &fileerr.Error{File: s.Path, Kind: ErrNotUpdated, Problem: fmt.Sprintf(
			"the agent stopped before its first model request, so its golden is untouched: %s, then update again; it ended with: %s", do, o.Error)}
	}
	return &fileerr.Error{File: s.Path, Problem: fmt.Sprintf(
		"the agent stopped before its first model request, so the golden and the expectations were not compared: %s; it ended with: %s", do, o.Error)}
}
