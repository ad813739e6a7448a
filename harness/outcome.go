package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// Outcome is the normalised result of running a scenario: what its golden file
// holds. Nothing in it depends on time, scheduling, the machine or the temp
// directory.
type Outcome struct {
	Name string
	// Termination is why the run ended; Error the termination's error text.
	Termination agent.Reason
	Error       string
	// Iterations counts the model calls made.
	Iterations int
	// ModelRetries are the failed model-call attempts that were retried, in
	// order; nil when none.
	ModelRetries []ModelRetryOutcome
	// Turns are the model calls in order, each with what its tool calls
	// did; nil when the run made none.
	Turns []TurnOutcome
	// Final is the last assistant text.
	Final string
	// Workspace is the end state, by path: every file, untouched ones
	// marked.
	Workspace []FileState
	// Deleted lists the files the run deleted, sorted.
	Deleted []string
	// State is the end state of the worlds the run's tools shared (see
	// toolkit.World), by key, as plain JSON values (objects are
	// map[string]any, numbers float64). Nil when no tool shares a world; the
	// golden then has no state: key.
	State map[string]any
	// Run is the loop's full record, for matchers and reports; not in the golden.
	Run *agent.RunResult `yaml:"-"`
	// Diverged is set when a recorded request did not match; the scenario
	// fails whatever its golden says.
	Diverged bool `yaml:"-"`
	// Cache is the prefix stability of the run's model requests, read for
	// expect.cache; nil when the scenario has none. Not in the golden.
	Cache *CacheOutcome `yaml:"-"`
	// Unused says what the run left of its recordings: tape entries never
	// served (replay), user turns never spoken (live), recorded stand-ins'
	// answers never given, each at its place in the scenario file. A
	// replay fails with each whatever its golden says; nil means nothing
	// was left.
	Unused []*fileerr.Error `yaml:"-"`
	// Refused lists the requests a replay sent through
	// http.DefaultTransport (http.Get, http.DefaultClient, a transport
	// cloned from it) that were refused, each once, in order, with its
	// address: "GET http://127.0.0.1:8080/weather (127.0.0.1:8080)". A
	// replay fails with each whatever its golden says; nil means none
	// (always in a live run). See RunOptions.AllowHosts.
	Refused []string `yaml:"-"`
	// Sandbox says, a line each, what the sandbox of a bridged scenario's
	// agent command did not hold and what it ended: "the network is not
	// isolated: ...", "the agent command left 2 processes running, killed
	// when the run ended: sh, sh". It does not fail the scenario
	// (--require-sandbox does); nil means nothing to say. Not in the
	// golden.
	Sandbox []string `yaml:"-"`
	// Judged holds the verdict on each expect.judge item, in order: asked
	// of the judge in a live run (eval.JudgeLive), or re-used from the
	// scenario's judge: section in a replay (Judge). Nil, or an item with
	// no Verdict, fails the item (never a silent pass).
	Judged []JudgeResult `yaml:"-"`
	// Places are the folders the run took place in (its workspace on disk,
	// the scenario's folder), each written by its name in the golden
	// ($WORK, $SCENARIO_DIR), so that the golden is the same wherever the
	// folders are; nil means none. Harness and bridge runs set them.
	Places []Place `yaml:"-"`
}

// WithUserTurns returns the tape of a live run: recorded, the model
// calls as a replay.Recorder recorded them, with the conversation's user
// turns put where they were spoken, before the model call of the turn they
// started, each redacted by red (nil: as they are). recorded holds, per
// model call in order, the attempts that failed (error entries) and then
// the response; o has one turn per answered call.
func (o *Outcome) WithUserTurns(recorded []tape.Entry, red *redact.Redactor) []tape.Entry {
	var out []tape.Entry
	i := 0
	for _, t := range o.Turns {
		if t.User != nil {
			u := t.User.Clone()
			if red != nil {
				red.RedactMessage(&u)
			}
			out = append(out, tape.Entry{User: &u})
		}
		// A turn's model call is its failed attempts (error entries, when
		// the loop retried) and then its response.
		for i < len(recorded) {
			e := recorded[i]
			out = append(out, e)
			i++
			if e.Response != nil {
				break
			}
		}
	}
	return append(out, recorded[i:]...)
}

// Transcript returns the conversation as tape entries, in the order it
// happened: each user turn, then each model response that followed, as
// received. It is the shape a recording writes into a scenario's tape (the
// model's responses between the user turns); a model call that failed has no
// entry.
func (o *Outcome) Transcript() []tape.Entry {
	var out []tape.Entry
	for _, t := range o.Turns {
		if t.User != nil {
			u := t.User.Clone()
			out = append(out, tape.Entry{User: &u})
		}
		if t.Response != nil {
			r := *t.Response
			r.Message = t.Response.Message.Clone()
			out = append(out, tape.Entry{Response: &r})
		}
	}
	return out
}

// TurnOutcome is one model call and what its calls did.
type TurnOutcome struct {
	Index int
	// User is the user message the conversation went on with just before
	// this turn's request; nil when the model is answering its own tool
	// results (or the input). A last turn with User set and no Response is a
	// user turn whose model call failed.
	User *llm.Message
	// Delivered are asynchronous results delivered before this turn's request.
	Delivered []AsyncOutcome
	Response  *llm.Response
	// Envelope names the text envelope the calls were extracted from, if any.
	Envelope string
	// Calls are the tool calls of the response, in order; nil when it made
	// none.
	Calls []CallOutcome
	// Diff is the turn's change to the workspace as unified diffs.
	Diff string
	// Answered are the answers a bridged agent reported after this turn
	// (bridge.Run.Final) when they are not just the response's text: one
	// the model did not write, or several; nil when there are none such,
	// and for a native run.
	Answered []string
}

// AsyncOutcome is an asynchronous call's completion.
type AsyncOutcome struct {
	ID, Name, Result string
}

// CallOutcome is one call of a turn, as its golden shows it: a view of
// the loop's record of the call, which the outcome shares with Outcome.Run
// (agent.CallRecord), so that a run's outcome holds nothing of a call
// twice. Its methods read the record; the zero value, with no record, is a
// call of which nothing is known (every method returns its zero value).
type CallOutcome struct {
	// Record is the loop's record of the call, shared with Outcome.Run;
	// nil means none.
	Record *agent.CallRecord
	// Backoffs are the (virtual) times waited after each failed attempt
	// before the next, in order, from the loop's retry events; nil when
	// the call was not retried.
	Backoffs []time.Duration
}

// noRecord stands for the record of a CallOutcome that has none.
var noRecord agent.CallRecord

// record is c's record, or an empty one.
func (c *CallOutcome) record() *agent.CallRecord {
	if c.Record == nil {
		return &noRecord
	}
	return c.Record
}

// ID is the call's id, as the model emitted it (or generated).
func (c *CallOutcome) ID() string { return c.record().Call.ID }

// Name is the name of the tool called.
func (c *CallOutcome) Name() string { return c.record().Call.Name }

// Arguments are the call's arguments as received, the model's text.
func (c *CallOutcome) Arguments() string { return c.record().Call.Arguments }

// ran reports whether the call's arguments were executed: it was
// attempted, or answered from the memo.
func (c *CallOutcome) ran() bool { r := c.record(); return len(r.Attempts) > 0 || r.Memoized }

// Executed is the arguments as executed (canonical JSON); empty when the
// call never ran. The golden shows it only when it differs from Arguments
// as a JSON value.
func (c *CallOutcome) Executed() string {
	if !c.ran() {
		return ""
	}
	return string(c.record().Arguments)
}

// Repairs lists the repairs made to the arguments' text; nil when none.
func (c *CallOutcome) Repairs() []string { return c.record().Repairs }

// Coercions lists the conversions made to the arguments' values; nil when
// none.
func (c *CallOutcome) Coercions() []tools.Coercion { return c.record().Coercions }

// Attempts counts the executions.
func (c *CallOutcome) Attempts() int { return len(c.record().Attempts) }

// Retries returns each failed attempt before the last, with the backoff
// waited after it; nil when the call was attempted at most once.
func (c *CallOutcome) Retries() []RetryOutcome {
	attempts := c.record().Attempts
	var out []RetryOutcome
	for i, a := range attempts[:max(len(attempts)-1, 0)] {
		ro := RetryOutcome{}
		if a.Result != nil {
			ro.Failure, ro.Result = a.Result.Kind(), a.Result.Content
		}
		if i < len(c.Backoffs) {
			ro.Backoff = c.Backoffs[i]
		}
		out = append(out, ro)
	}
	return out
}

// Memoized reports whether the result came from the memo.
func (c *CallOutcome) Memoized() bool { return c.record().Memoized }

// Async reports whether the call only started; its completion arrives
// later.
func (c *CallOutcome) Async() bool { return c.record().Async }

// Failure is the final result's failure kind; empty for a success or no
// result.
func (c *CallOutcome) Failure() tools.FailureKind { return c.record().Result.Kind() }

// Result is the final result's content, as the model read it; empty for
// no result.
func (c *CallOutcome) Result() string {
	if r := c.record().Result; r != nil {
		return r.Content
	}
	return ""
}

// Effects are the changes the final result reports; nil when none.
func (c *CallOutcome) Effects() []tools.Effect {
	if r := c.record().Result; r != nil {
		return r.Effects
	}
	return nil
}

// RetryOutcome is a failed attempt of a call that was retried: its failure,
// the result it gave, and the (virtual) time waited before the next attempt.
type RetryOutcome struct {
	Failure tools.FailureKind
	Result  string
	Backoff time.Duration
}

// FileState is one file of the workspace at the end of the run.
type FileState struct {
	Path    string
	Content string
	// Untouched is set when the file is as it was before the run; the golden
	// then lists it by size and hash instead of its content. Size and Hash
	// (the first 16 hex digits of its SHA-256) describe the content.
	Untouched bool
	Size      int
	Hash      string
}

// Golden returns the outcome's golden file content (see writeGolden), with
// every secret r finds redacted: the policy a command or test built at its
// top (redact.Default() for the process's environment, with a command's
// --redact-env and --redact; see VerifyOptions.Redactor). Golden reads no
// environment itself, so the same outcome and r give the same bytes. A nil
// r means redact.New(nil): the fixed rules only (key shapes, JWTs, PEM
// keys, URL passwords, credential headers), no known value. A workspace
// path or state key that is not valid UTF-8 is an error naming it.
func (o *Outcome) Golden(r *redact.Redactor) ([]byte, error) {
	b, err := o.writeGolden()
	if err != nil {
		return nil, err
	}
	b = placeGolden(b, o.Places)
	if r == nil {
		r = redact.New(nil)
	}
	return redactGolden(b, r), nil
}

// showExecuted reports whether the golden shows Executed: the call ran and
// its arguments as executed differ from those emitted as JSON values. When
// Executed is known to be the canonical form of Arguments
// (agent.CallRecord.ArgumentsUnchanged) they are the same value (sameJSON
// compares numbers exactly), so neither is decoded.
func (c *CallOutcome) showExecuted() bool {
	r := c.record()
	if !c.ran() || len(r.Arguments) == 0 || r.ArgumentsUnchanged {
		return false
	}
	return !jsonvalue.Same(string(r.Arguments), r.Call.Arguments)
}

// fileState describes one entry at the end of a run; untouched says that
// it is as it was before. An entry that is not a regular file (a link, a
// special file) is never listed as untouched: its Content says what it is
// (workspace.Entry.String), with the size and hash of that text.
func fileState(path string, e workspace.Entry, untouched bool) FileState {
	data := e.Data
	content := ""
	if e.Kind == workspace.KindFile {
		content = displayContent(data)
	} else {
		content = e.String()
		data = []byte(content)
		untouched = false
	}
	sum := sha256.Sum256(data)
	return FileState{Path: path, Content: content, Untouched: untouched, Size: len(data), Hash: hex.EncodeToString(sum[:8])}
}

// displayContent is a file's content for the golden: text as is, binary as a
// placeholder with its size.
func displayContent(b []byte) string {
	if utf8.Valid(b) && !strings.ContainsRune(string(b), 0) {
		return string(b)
	}
	return "<binary, " + strconv.Itoa(len(b)) + " bytes>"
}

// ModelRetryOutcome is one failed model-call attempt that the loop's
// model-retry policy retried (setup.loop.model_retry).
type ModelRetryOutcome struct {
	// Turn is the model call (1-based, over the whole conversation) the
	// attempt belonged to; Attempt its number within that call.
	Turn, Attempt int
	// Kind is the provider error's kind; empty for an error of no kind.
	Kind llm.ErrorKind
	// Backoff is the wait before the next attempt, on the run's clock.
	Backoff time.Duration
	// Error is the error's text.
	Error string
}

// CalledTools returns the names of the calls the run made, in order: empty
// when the outcome has no run record (Run nil).
func (o *Outcome) CalledTools() []string { return calledTools(o.Run) }

// Retries returns the run's tool retry attempts after the first, summed
// per tool name: empty when the outcome has no run record (Run nil).
func (o *Outcome) Retries() map[string]int { return retriesByTool(o.Run) }

// FindCall returns the call ref names (an ID, or a position written by
// scenario.CallAt), or nil and what a message about it says instead: that
// the scenario has no such call (listing the ids it has), that a reused id
// is ambiguous, or that the outcome has no run record (Run nil).
func (o *Outcome) FindCall(ref string) (*agent.CallRecord, string) { return findCall(o.Run, ref) }
