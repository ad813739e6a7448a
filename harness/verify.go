package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// VerifyOptions configures Verify. A nil *VerifyOptions is the zero value.
type VerifyOptions struct {
	// Update rewrites the golden file (atomically, only when it changed)
	// instead of comparing with it. Expectations are still checked. A run
	// in which the agent could not do its job (it stopped with an error
	// before its first model request, or left tape entries unused) leaves
	// the golden as it was and fails with ErrNotUpdated, saying why and
	// what to do; so does one that diverged from its tape.
	Update bool
	// Force, with Update, blesses a scenario whose expectations fail: their
	// failures go to Verdict.Forced instead of Failures. A run that
	// diverged from its tape, or left part of it unused, still fails.
	Force bool
	// Perturb seeds scheduling perturbations; zero means none.
	Perturb uint64
	// Tools are the user's tool factories (see RunOptions.Tools); nil means
	// the fixtures only.
	Tools []*toolkit.Factory
	// Checks are the user's checks expect.check may name (NewChecker); nil
	// means none, and an expect.check item then fails.
	Checks []*Checker
	// Agents and Commands run the bridged scenarios (see RunOptions.Agents
	// and RunOptions.Commands); nil means none, and verifying a bridged
	// scenario is then an error.
	Agents   map[string]Runner
	Commands Runner
	// AllowHosts lists what the replay may reach through
	// http.DefaultTransport (see RunOptions.AllowHosts); nil means
	// nothing, and each refused request fails the scenario.
	AllowHosts []string
	// Command is the program the user runs tapeloop's commands with (the
	// name of evalrun, or of a main of their own), named in hints such as
	// how to record a missing tape; empty means "evalrun".
	Command string
	// UpdateHint is the command that writes a missing golden file, named in
	// its failure ("supportrun replay --update", "go test ./support
	// -update"); empty means Command followed by "replay --update".
	UpdateHint string
	// HintDir is the folder, as named from where the user runs Command
	// (their module's root), that relative scenario paths start from; hints
	// name a scenario as HintDir/path. Test sets it to go test's package
	// folder ("support"), since go test runs there; empty names paths as
	// they are.
	HintDir string
	// Redactor redacts the golden file with the policy of the command that
	// writes or compares it (record, replay and eval with their --redact-env
	// and --redact), so a golden holds no secret the tape beside it does
	// not; nil means redact.Default(), the default policy.
	Redactor *redact.Redactor
}

// ErrNoTape is wrapped by the error for replaying a scenario that has no
// tape: key or an empty one (Scenario.Unrecorded): it runs live only until
// one is recorded.
var ErrNoTape = errors.New("the scenario has no tape to replay")

// command is opts.Command, or "evalrun".
func (opts *VerifyOptions) command() string {
	if opts.Command == "" {
		return "evalrun"
	}
	return opts.Command
}

// hintPath is path as the user names it from where they run Command:
// under HintDir when it is relative.
func (opts *VerifyOptions) hintPath(path string) string {
	if opts.HintDir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.FromSlash(opts.HintDir), path)
}

// NoTapeError is the error for replaying the scenario at path, which has no
// tape (Scenario.Unrecorded): it wraps ErrNoTape, and its hint names how to
// record one with opts.Command.
func (opts *VerifyOptions) NoTapeError(path string) error {
	return opts.noTapeError(path, nil)
}

// noTapeError is NoTapeError for the scenario s at path, its hint saying
// what --model does for s (RecordCommand); a nil s is a native one.
func (opts *VerifyOptions) noTapeError(path string, s *scenario.Scenario) error {
	return fmt.Errorf("%s: %w: record one with %s (or run it live with `%s eval`)",
		path, ErrNoTape, RecordCommand(opts.command(), s, opts.hintPath(path), false), opts.command())
}

// acceptHint is the last line of a divergence of s: the command that
// accepts what the agent now sends (its prompt, tools, parameters, tool
// results) into the tape offline, and the one that records the scenario
// again when rebase refuses (a recorded response that no longer applies).
// A run that asked for more than the tape holds can only be recorded again.
func (opts *VerifyOptions) acceptHint(s *scenario.Scenario, o *Outcome) *fileerr.Error {
	path := s.Path
	p := opts.hintPath(path)
	record := RecordCommand(opts.command(), s, p, true)
	if strings.Contains(o.Error, replay.ErrTapeExhausted.Error()) {
		return &fileerr.Error{File: path, Problem: "the agent asked for more than the tape holds; record it again: " + record}
	}
	return &fileerr.Error{File: path, Problem: fmt.Sprintf("to accept the change offline: `%s rebase %s` (if rebase refuses, record it again: %s)", opts.command(), p, record)}
}

// updateHint is opts.UpdateHint, or the command's replay --update.
func (opts *VerifyOptions) updateHint() string {
	if opts.UpdateHint == "" {
		return opts.command() + " replay --update"
	}
	return opts.UpdateHint
}

// Verdict is what verifying one scenario found.
type Verdict struct {
	// Path is the scenario file; Name its name (the path when it did not load).
	Path string
	Name string
	// Scenario and Outcome are nil when the scenario could not be loaded or run.
	Scenario *scenario.Scenario
	Outcome  *Outcome
	// Golden is the golden file's path; Updated is set when Update rewrote it.
	Golden  string
	Updated bool
	// Failures lists what did not hold, each at its place in a file when
	// it has one (its text is the line a report shows): what the run left
	// unused, the first difference from the golden and each failed
	// expectation (see Failures); or, when the run diverged from its tape,
	// only the divergence and a line saying where the run stopped and
	// that its expectations and golden were not compared. For a single
	// error, see Failure.
	Failures []*fileerr.Error
	// Forced lists the failed expectations of a scenario blessed anyway
	// (VerifyOptions.Force); they do not fail it.
	Forced []*fileerr.Error
	// Err is set when the scenario could not be loaded or run: an input error,
	// not a failure of the agent.
	Err error
	// Interrupted is set when the context was done before the run ended (a
	// signal): the scenario fails with a failure saying so, its outcome is
	// not judged and its golden is untouched, even under Update.
	Interrupted bool
}

// Passed reports whether the scenario loaded, ran, matched its golden and met
// its expectations.
func (v *Verdict) Passed() bool { return v.Err == nil && len(v.Failures) == 0 }

// Failure is the verdict as one error: nil when it passed, else
// errors.Join of Err and each of Failures, one per line.
func (v *Verdict) Failure() error {
	errs := []error{v.Err}
	for _, f := range v.Failures {
		errs = append(errs, f)
	}
	return errors.Join(errs...)
}

// Verify loads the scenario at path, runs it, and checks the outcome against
// its golden file and its expect block.
func Verify(ctx context.Context, path string, opts *VerifyOptions) *Verdict {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	s, err := scenario.Load(path)
	if err != nil {
		return &Verdict{Path: path, Name: path, Golden: scenario.GoldenPath(path), Err: err}
	}
	return VerifyScenario(ctx, s, opts)
}

// VerifyScenario runs a loaded scenario and checks the outcome against its golden
// file and its expect block. A run cut short by ctx
// is Interrupted: not judged, its golden untouched.
func VerifyScenario(ctx context.Context, s *scenario.Scenario, opts *VerifyOptions) *Verdict {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	if s.Unrecorded() {
		return &Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: opts.noTapeError(s.Path, s)}
	}
	if err := goldenNameFits(s.Path); err != nil {
		return &Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: err}
	}
	red := opts.Redactor
	if red == nil {
		red = redact.Default()
	}
	o, err := Run(ctx, s, &RunOptions{Perturb: opts.Perturb, Tools: opts.Tools, Agents: opts.Agents, Commands: opts.Commands, AllowHosts: opts.AllowHosts, Redactor: red})
	if ctx.Err() != nil {
		// Cut short (a signal): what it did is not the scenario's outcome,
		// and its golden is left as it was.
		return &Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Outcome: o, Interrupted: true,
			Failures: []*fileerr.Error{{File: s.Path, Problem: fmt.Sprintf("interrupted before the run ended (%v); its golden is untouched", context.Cause(ctx)), Kind: context.Cause(ctx)}}}
	}
	if err != nil {
		return &Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: err}
	}
	return judgeOutcome(s, o, opts)
}

// judgeOutcome checks an outcome of s, however it was run (Run, natively or
// through a bridged scenario's Runner): a divergence from the tape, what the run left
// unused, the golden file (rewritten instead under opts.Update) and the
// expect block. A run that diverged fails with the divergence and one line
// saying where it stopped and what was not compared: its golden and
// expectations are neither compared nor rewritten; so it is with a run
// whose agent stopped before its first model request (stoppedEarly), and
// under opts.Update with any run notUpdatable refuses. An outcome not judged live (Judged
// nil) takes the verdicts of its expect.judge items from the scenario's
// judge: section when the judged text is unchanged (never calling a
// judge); a changed text, a missing verdict or one no item uses fails. Only opts.Update, opts.Force,
// opts.Checks, opts.Redactor and the hints (Command, UpdateHint) are used; a nil opts is the zero value.
func judgeOutcome(s *scenario.Scenario, o *Outcome, opts *VerifyOptions) *Verdict {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	red := opts.Redactor
	if red == nil {
		red = redact.Default()
	}
	path := s.Path
	v := &Verdict{Path: path, Name: s.Name, Golden: scenario.GoldenPath(path), Scenario: s, Outcome: o}
	// A refused request comes first: it is why the run did what it did
	// (a tool's error, a divergence that follows from it).
	for _, r := range o.Refused {
		v.Failures = append(v.Failures, &fileerr.Error{File: path, Problem: "a request through http.DefaultTransport was refused during the replay: " + r, Kind: ErrRefused})
	}
	if o.Diverged {
		// The divergence is the failure: what the run did after it (the
		// golden's difference, the expectations it missed, the tape it
		// left) only repeats it, so one line says what was not compared.
		v.Failures = append(v.Failures,
			&fileerr.Error{File: path, Problem: "the run diverged from the tape: " + o.Error},
			notCompared(s, o), opts.acceptHint(s, o))
		return v
	}
	// Nothing of a run that could not do its job is judged: its failures
	// would only repeat why.
	why := stoppedEarly(s, o, false)
	if opts.Update {
		why = notUpdatable(s, o, opts)
	}
	if why != nil {
		v.Failures = append(v.Failures, why)
		v.Failures = append(v.Failures, o.Unused...)
		return v
	}
	if o.Judged == nil {
		replayVerdicts(s, o, red, opts.command(), opts.hintPath(s.Path))
	}
	v.Failures = append(v.Failures, o.Unused...)
	if f := leftEntries(s, o, opts, false); f != nil {
		v.Failures = append(v.Failures, f)
	}
	// Most replays find their golden unchanged: that is found with the
	// golden streamed against the file, neither held whole; an update
	// writing a golden where there is none streams it to the file. Anything
	// else (a difference, an odd file) builds it whole, for the diff or
	// the update.
	same, err := o.sameAsGolden(v.Golden, red)
	created := false
	if err == nil && !same && opts.Update && goldenMissing(v.Golden) {
		removeStaleTemps(v.Golden) // as updateGolden does
		if created, err = o.createGolden(v.Golden, red); err != nil && !errors.Is(err, errGoldenText) {
			v.Err = err
			return v
		}
	}
	var golden []byte
	if err == nil && !same && !created {
		golden, err = o.Golden(red)
	}
	if err != nil {
		v.Err = fmt.Errorf("%s: encoding the outcome: %w", path, err)
		return v
	}
	switch {
	case created:
		v.Updated = true
	case same && opts.Update:
		removeStaleTemps(v.Golden) // as updateGolden does
	case same:
	case opts.Update:
		if v.Updated, err = updateGolden(v.Golden, golden); err != nil {
			v.Err = err
			return v
		}
	default:
		if err := compareGolden(v.Golden, golden, "`"+opts.updateHint()+"`"); err != nil {
			v.Failures = append(v.Failures, &fileerr.Error{Problem: err.Error(), Kind: err})
		}
	}
	if failed := Failures(s, o, opts.Checks...); opts.Update && opts.Force {
		v.Forced = failed
	} else {
		v.Failures = append(v.Failures, failed...)
	}
	return v
}

// notCompared is the failure that follows a divergence: where the run
// stopped, and that s's expectations and golden were not compared with
// what it did (a run that left its tape is never judged, nor blessed).
func notCompared(s *scenario.Scenario, o *Outcome) *fileerr.Error {
	what := "the golden was"
	if n := expectCount(s.Expect); n > 0 {
		what = fmt.Sprintf("%d %s and the golden were", n, plural(n, "expectation", "expectations"))
	}
	return &fileerr.Error{File: s.Path, Problem: fmt.Sprintf("the run stopped at turn %d; %s not compared", o.Iterations, what)}
}

// expectCount is the number of keys of the expect block e; zero for nil.
func expectCount(e *scenario.Expect) int {
	if e == nil {
		return 0
	}
	n := 0
	for _, set := range []bool{
		e.Termination != nil, e.Iterations != nil, e.ToolCalls != nil, e.Calls != nil,
		e.Said != nil, e.Retries != nil, e.Repairs != nil, e.Errors != nil,
		e.Final != nil, e.Files != nil, e.State != nil, e.ModelRetries != nil,
		e.Checks != nil, e.Judges != nil,
	} {
		if set {
			n++
		}
	}
	return n
}
