// This file defines the eval report: the versioned JSON document that
// `evalrun eval` writes with --json and `evalrun compare` reads back. Its
// format string is EvalFormat; a reader refuses any other.
//
//	r, err := report.ReadEval(f)          // checks "format": "tapeloop-eval/v1"
//	for _, s := range r.Scenarios {
//		fmt.Println(s.Name, s.Model, s.Passed, "/", s.Trials, s.Class)
//	}

package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tapeloop/tapeloop/llm"
)

// EvalFormat is the format version of the eval report. A change that removes
// or renames a field, or changes a field's meaning, gets a new version;
// adding a field does not.
const EvalFormat = "tapeloop-eval/v1"

// ErrEvalFormat is wrapped by every error about an eval report's content: not
// JSON, or a format other than EvalFormat.
var ErrEvalFormat = errors.New("not a tapeloop eval report")

// The classes of a scenario × model row (EvalScenario.Class).
const (
	// ClassPass: every scored trial passed.
	ClassPass = "pass"
	// ClassFail: no scored trial passed.
	ClassFail = "fail"
	// ClassFlaky: some scored trials passed and some failed.
	ClassFlaky = "flaky"
	// ClassError: no trial could be scored (each was an error trial or none
	// ran).
	ClassError = "error"
)

// The statuses of one trial (EvalTrial.Status).
const (
	// StatusPass: the run met every expectation.
	StatusPass = "pass"
	// StatusFail: an expectation did not hold.
	StatusFail = "fail"
	// StatusError: the trial could not be scored: every model call failed
	// (a provider or transport error), so the model never answered. Error
	// trials are counted apart and left out of pass@k and pass^k.
	StatusError = "error"
)

// The reasons a run stopped early (EvalSummary.Stopped).
const (
	// StoppedMaxCost: --max-cost would have been exceeded by starting more
	// trials.
	StoppedMaxCost = "max_cost"
	// StoppedInterrupted: the run was interrupted (Ctrl-C).
	StoppedInterrupted = "interrupted"
)

// Eval is the eval report: every scenario run against every model, trial by
// trial, with statistics. Scenarios are listed in a fixed order whatever
// finished first: by scenario name, then by the order the models were given.
type Eval struct {
	// Format is always EvalFormat.
	Format string `json:"format"`
	// Shard is the part of the suite this report covers (evalrun eval
	// --shard); nil means all of it.
	Shard *Shard `json:"shard,omitempty"`
	// Models lists the models in the order they were given, with their
	// aggregates.
	Models []EvalModel `json:"models"`
	// Scenarios has one row per scenario × model.
	Scenarios []EvalScenario `json:"scenarios"`
	// Summary is the whole run's outcome.
	Summary EvalSummary `json:"summary"`
}

// EvalModel is one model's aggregates over every scenario it ran.
type EvalModel struct {
	// Name is the model as given to --model, "PROVIDER/MODEL".
	Name string `json:"name"`
	// Trials counts the scored trials (passed or failed), Passed those that
	// passed, Errors the error trials, NotRun the trials never started
	// (--max-cost, Ctrl-C).
	Trials int `json:"trials"`
	Passed int `json:"passed"`
	Errors int `json:"errors"`
	NotRun int `json:"not_run,omitempty"`
	// PassRate is Passed / Trials; 0 when Trials is 0.
	PassRate float64 `json:"pass_rate"`
	// PassAtK and PassHatK are the means over this model's scenarios of
	// their pass@k and pass^k, for every k that all of them have (k up to
	// the smallest scored trial count). Keys are k.
	PassAtK  map[int]float64 `json:"pass_at_k"`
	PassHatK map[int]float64 `json:"pass_hat_k"`
	// Classes counts the scenarios by class ("pass", "fail", "flaky",
	// "error").
	Classes map[string]int `json:"classes"`
	// Tokens sums every model call of every trial, error trials included.
	Tokens Tokens `json:"tokens"`
	// Cost is in US dollars, from the price table; nil when no price was
	// given for this model (tokens only).
	Cost *float64 `json:"cost,omitempty"`
	// LatencyMS is over this model's calls, failed ones excluded.
	LatencyMS Latency `json:"latency_ms"`
	// ModelCalls counts the calls made, failed ones included.
	ModelCalls int `json:"model_calls"`
	// WallMS is the time from this model's first trial start to its last
	// trial end, in milliseconds.
	WallMS float64 `json:"wall_ms"`
	// MeetsMinPass reports whether PassRate reached the run's --min-pass
	// (EvalSummary.MinPass).
	MeetsMinPass bool `json:"meets_min_pass"`
}

// EvalScenario is one scenario run against one model.
type EvalScenario struct {
	// Name is the scenario's name; Path its file as given on the command
	// line; Tags its tags.
	Name string   `json:"name"`
	Path string   `json:"path"`
	Tags []string `json:"tags,omitempty"`
	// Model is the model's name, as in EvalModel.Name.
	Model string `json:"model"`
	// Digest identifies the scenario's content the trials ran (its file and
	// seed workspace, the first 16 hex digits of a SHA-256): --resume reuses
	// a trial only when it is unchanged. Empty in a report of an older
	// version, whose trials are then run again.
	Digest string `json:"digest,omitempty"`
	// Trials is n, the number of scored trials (passed or failed); Passed is
	// c, those that passed; Errors counts the error trials, which are not in
	// Trials; NotRun the trials never started.
	Trials int `json:"trials"`
	Passed int `json:"passed"`
	Errors int `json:"errors"`
	NotRun int `json:"not_run,omitempty"`
	// Class is ClassPass, ClassFail, ClassFlaky or ClassError.
	Class string `json:"class"`
	// PassAtK is the unbiased estimate of pass@k, 1 - C(n-c,k)/C(n,k), for
	// k = 1..n; PassHatK is pass^k, C(c,k)/C(n,k) (the chance that k trials
	// drawn without replacement all pass). Keys are k; empty when n is 0.
	PassAtK  map[int]float64 `json:"pass_at_k"`
	PassHatK map[int]float64 `json:"pass_hat_k"`
	// Failures counts, per expectation, the failed trials in which it did
	// not hold. Keys are the expect key ("termination", "tool_calls",
	// "final", ...), with the file for files: "files[notes.txt]".
	Failures map[string]int `json:"failures"`
	// Tokens, Cost and LatencyMS are as in EvalModel, over this row's trials.
	Tokens    Tokens   `json:"tokens"`
	Cost      *float64 `json:"cost,omitempty"`
	LatencyMS Latency  `json:"latency_ms"`
	// TrialsDetail lists every trial run, in trial order.
	TrialsDetail []EvalTrial `json:"trials_detail"`
}

// EvalTrial is one trial: one run of a scenario against a model.
type EvalTrial struct {
	// Trial numbers the trial from 1 within its scenario × model.
	Trial int `json:"trial"`
	// Seed is the fixtures' seed for this trial, derived from the scenario's
	// seed and Trial, so a rerun's fixtures behave the same.
	Seed int64 `json:"seed"`
	// Passed reports whether every expectation held; Status says pass, fail
	// or error.
	Passed bool   `json:"passed"`
	Status string `json:"status"`
	// Termination is the run's termination reason; Iterations the model
	// calls made.
	Termination string `json:"termination"`
	Iterations  int    `json:"iterations"`
	// Failures holds one message per failed expectation, each naming the
	// scenario file, the line and the key; empty when the trial passed.
	Failures []string `json:"failures"`
	// FailureKeys holds the key of each failed expectation, in the order of
	// Failures (see EvalScenario.Failures).
	FailureKeys []string `json:"failure_keys,omitempty"`
	// Error is the provider error of an error trial, or the run's error text
	// otherwise; empty when none.
	Error string `json:"error,omitempty"`
	// Attempts counts the runs of this trial: more than 1 when an error
	// trial was retried (--retry-errors).
	Attempts int `json:"attempts"`
	// AgentModel is the model a bridged agent's requests named when it is
	// not the model evaluated: the vendor got the agent's own requests with
	// their model field alone replaced. Empty when the agent named the
	// model evaluated, or when tapeloop's own loop ran.
	AgentModel string `json:"agent_model,omitempty"`
	// ScenarioModel is a native scenario's own model, "PROVIDER/MODEL"
	// (setup.loop.request.model), when it is not the model evaluated: the
	// model evaluated answered in its place, and the trial's tape pins the
	// scenario's. Empty when the scenario names the model evaluated, or
	// none, or a bridged agent ran.
	ScenarioModel string `json:"scenario_model,omitempty"`
	// Tokens are as in EvalModel, over this trial's calls of the model
	// evaluated; Cost is theirs plus the simulated user's (User.Cost).
	Tokens Tokens   `json:"tokens"`
	Cost   *float64 `json:"cost,omitempty"`
	// User is what the simulated user's model (setup.user) spent; nil when
	// the scenario has none.
	User *EvalUser `json:"user,omitempty"`
	// DurationMS is the trial's wall time in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Tape is what the model answered, call by call, secrets redacted.
	Tape []EvalTapeEntry `json:"tape"`
	// Saved is the scenario file --save-trials wrote for this trial; empty
	// when none was written.
	Saved string `json:"saved,omitempty"`
	// Transcript is the run turn by turn, calls as executed with their
	// results and each turn's workspace diff (what the HTML report shows);
	// nil when the trial did not run.
	Transcript *Transcript `json:"transcript,omitempty"`
	// EndState is what the run left that the scenario's expect block
	// checks (expect.files, expect.state); nil when it checks neither or
	// the trial did not run.
	EndState *EndState `json:"end_state,omitempty"`
	// Judge holds the verdict on each expect.judge item, in order; nil
	// when the scenario has none or the trial was not judged.
	Judge []Verdict `json:"judge,omitempty"`
	// JudgeTokens sums the judge models' calls of this trial (not in
	// Tokens, which counts the model under evaluation); their price, when
	// known, is in Cost.
	JudgeTokens *Tokens `json:"judge_tokens,omitempty"`
}

// EvalUser is what a trial's simulated user (setup.user) spent: its model
// calls are not the evaluated model's, so their tokens are not in the
// trial's Tokens; their cost is in the trial's Cost.
type EvalUser struct {
	// Model is the user model, "PROVIDER/MODEL".
	Model string `json:"model"`
	// Calls counts its model calls (a retried call once); Turns the user
	// messages it wrote.
	Calls int `json:"calls"`
	Turns int `json:"turns"`
	// Tokens are its calls' tokens; Cost their price, nil without one.
	Tokens Tokens   `json:"tokens"`
	Cost   *float64 `json:"cost,omitempty"`
}

// EndState is a trial's end state, as far as its expectations look.
type EndState struct {
	// Files maps each path expect.files names to its content at the end of
	// the run; a null (nil) value: the file did not exist.
	Files map[string]*string `json:"files,omitempty"`
	// State is the worlds' end state (expect.state) as indented JSON text;
	// empty when expect.state is not given.
	State string `json:"state,omitempty"`
}

// EvalTapeEntry is one model call of a trial.
type EvalTapeEntry struct {
	// Tools are the names of the tools offered, sorted; LastMessage is the
	// request's last message.
	Tools       []string     `json:"tools"`
	LastMessage *llm.Message `json:"last_message,omitempty"`
	// Response is the model's answer; nil when the call failed.
	Response *EvalResponse `json:"response,omitempty"`
	// Error is the provider error's text; empty when the call succeeded.
	Error string `json:"error,omitempty"`
	// LatencyMS is the call's wall time in milliseconds.
	LatencyMS float64 `json:"latency_ms"`
}

// EvalResponse is one model answer.
type EvalResponse struct {
	// Message is the assistant message, tool-call arguments as the raw text
	// the model emitted.
	Message llm.Message `json:"message"`
	// FinishReason is the provider's, normalised; empty when not reported.
	FinishReason string `json:"finish_reason,omitempty"`
	// Tokens is the call's usage; zero fields were not reported.
	Tokens Tokens `json:"tokens"`
}

// Tokens counts tokens. Cached is the part of Input the provider served
// from its prompt cache; zero when not reported.
type Tokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
	Cached int `json:"cached"`
}

// Add returns the sum of t and u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{Input: t.Input + u.Input, Output: t.Output + u.Output, Cached: t.Cached + u.Cached}
}

// Latency is a latency distribution in milliseconds: the median and the 95th
// percentile (nearest rank). Zero when there was no call.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// EvalSummary is the whole run's outcome.
type EvalSummary struct {
	// TrialsPerScenario is --trials, the trials asked for per scenario ×
	// model.
	TrialsPerScenario int `json:"trials_per_scenario"`
	// Trials, Passed, Failed, Errors and NotRun count trials over every
	// model and scenario; Trials = Passed + Failed (scored trials).
	Trials int `json:"trials"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	NotRun int `json:"not_run"`
	// MinPass is the pass rate each model must reach, from --min-pass; nil
	// means every scored trial must pass.
	MinPass *float64 `json:"min_pass,omitempty"`
	// OK reports whether every model met MinPass and nothing stopped the
	// run early: the command's exit status was 0.
	OK bool `json:"ok"`
	// Stopped says why the run stopped before every trial ran
	// (StoppedMaxCost, StoppedInterrupted); empty when it ran to the end.
	Stopped string `json:"stopped,omitempty"`
	// Tokens and Cost sum every model; Cost is nil when no model had a
	// price.
	Tokens Tokens   `json:"tokens"`
	Cost   *float64 `json:"cost,omitempty"`
	// MaxCost is --max-cost in US dollars; nil means no limit.
	MaxCost *float64 `json:"max_cost,omitempty"`
	// WallMS is the whole run's wall time in milliseconds.
	WallMS float64 `json:"wall_ms"`
	// Comparison is the comparison of the first two models over
	// their shared scenarios; nil unless exactly two models ran.
	Comparison *EvalComparison `json:"comparison,omitempty"`
}

// MethodHierarchicalBootstrap names the interval of EvalComparison: a
// bootstrap that resamples the shared scenarios, then each run's trials
// within every drawn scenario.
const MethodHierarchicalBootstrap = "hierarchical_bootstrap"

// EvalComparison compares model B with model A over the scenarios both ran
// with at least one scored trial: the difference in mean pass rate (B - A)
// and its confidence interval from a hierarchical bootstrap (scenarios, then
// trials within each), so that a few trials per scenario widen the interval
// as they should.
type EvalComparison struct {
	// A and B are the models compared (B - A).
	A string `json:"a"`
	B string `json:"b"`
	// Scenarios counts the shared scenarios the comparison is over;
	// TrialsA and TrialsB the scored trials of each model on them.
	Scenarios int `json:"scenarios"`
	TrialsA   int `json:"trials_a"`
	TrialsB   int `json:"trials_b"`
	// PassRateA and PassRateB are the means over the shared scenarios of
	// each scenario's pass rate c/n.
	PassRateA float64 `json:"pass_rate_a"`
	PassRateB float64 `json:"pass_rate_b"`
	// Difference is PassRateB - PassRateA; Low and High bound its
	// Confidence interval (percentile bootstrap).
	Difference float64 `json:"difference"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	// Method is how the interval was found: MethodHierarchicalBootstrap;
	// empty in reports written before it was recorded (a bootstrap over
	// scenarios' pass rates alone).
	Method string `json:"method,omitempty"`
	// Resamples and Seed are the bootstrap's, fixed so that the interval is
	// the same on every run over the same data.
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
	// Better is "a" or "b" when the interval excludes zero on that side,
	// "" when the data cannot tell them apart (no significant change).
	Better string `json:"better,omitempty"`
}

// WriteJSON writes e as WriteEval does.
func (e *Eval) WriteJSON(w io.Writer) error { return WriteEval(w, e) }

// ReadEval decodes an eval report from r and checks its format and counts
// (none negative, no more passes than trials, no empty scenario row, none
// over MaxScenarioTrials). Errors about the content wrap ErrEvalFormat; unknown fields are allowed (a later minor
// addition).
func ReadEval(r io.Reader) (*Eval, error) {
	var e Eval
	if err := json.NewDecoder(r).Decode(&e); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEvalFormat, err)
	}
	if e.Format != EvalFormat {
		return nil, fmt.Errorf("%w: format is %q, want %q", ErrEvalFormat, e.Format, EvalFormat)
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	return &e, nil
}

// WriteEval encodes e to w as indented JSON followed by a newline. The
// output is deterministic: maps are written with sorted keys and slices in
// their order, and every number with a fraction (rates, costs, times) is
// rounded to six significant digits, so 0.1 is never 0.09999999999999999.
func WriteEval(w io.Writer, e *Eval) error {
	if err := writeJSON(w, e, true); err != nil {
		return fmt.Errorf("writing eval report: %w", err)
	}
	return nil
}
