package scenario

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
)

// Format is the only scenario format version this package reads.
const Format = "tapeloop/v1"

// MaxScenarioSize bounds a scenario file, counted on the bytes read; a larger
// one is refused.
const MaxScenarioSize = 16 << 20

// ErrScenario is wrapped by every error about a scenario file's content. Its
// text does not appear in the message, which starts with file:line.
var ErrScenario = errors.New("invalid scenario")

// ErrNotScenario is wrapped by the error for a YAML file that has no format
// key: not a tapeloop scenario at all (a config file beside the scenarios),
// rather than a broken one. It also matches ErrScenario. Commands that find
// files under a folder skip such files with a note.
var ErrNotScenario = errors.New("not a tapeloop scenario")

// scenarioError is a problem in a scenario file: its text is the underlying
// error's ("file:line: key: problem"); it matches ErrScenario and the cause.
type scenarioError struct{ err error }

func (e *scenarioError) Error() string   { return e.err.Error() }
func (e *scenarioError) Unwrap() []error { return []error{ErrScenario, e.err} }

// ErrorAt returns the error for a problem with what s sets up, at line of
// its file (0: the file as a whole) and key ("setup.tools[lookup]"): a
// *fileerr.Error, reached with errors.As, whose Problem is what format and
// args make and whose Kind is kind (nil: none); it also matches
// ErrScenario. Packages that build what a scenario sets up (package
// harness, package bridge) report with it.
func (s *Scenario) ErrorAt(line int, key string, kind error, format string, args ...any) error {
	return &scenarioError{err: &fileerr.Error{File: s.Path, Line: line, Key: key, Problem: fmt.Sprintf(format, args...), Kind: kind}}
}

// Unrecorded reports that the scenario has nothing to replay: no tape: key
// (NoTape) or an empty tape (`tape: []`, what a user writes before
// recording one) where it does not expect the agent to make no model call
// (ExpectsNoModelCall). A replay refuses it with the hint that records its
// tape.
func (s *Scenario) Unrecorded() bool {
	return s.NoTape || len(s.Tape) == 0 && !s.ExpectsNoModelCall()
}

// ExpectsNoModelCall reports whether the scenario says its agent makes no
// model call (expect.iterations: 0). A recording or replay in which the
// agent made none fails unless it does.
func (s *Scenario) ExpectsNoModelCall() bool {
	return s.Expect != nil && s.Expect.Iterations != nil && *s.Expect.Iterations == 0
}

// At is "file:line" for a line of the scenario's file, or the file alone
// when the line is 0 (unknown).
func (s *Scenario) At(line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", s.Path, line)
	}
	return s.Path
}

// Scenario is one scenario file, decoded and checked.
type Scenario struct {
	// Path is the file's path as given to Load, for error messages.
	Path string
	// RelPath is the file's path relative to its scenarios folder (see
	// DefaultName): what goldens show, the same whatever the working directory.
	RelPath string
	// Source is the SHA-256 of the text the scenario was parsed from (Parse,
	// Load); zero for a Scenario made in code. eval --resume reuses a trial
	// only for the same text (and seed workspace).
	Source [sha256.Size]byte
	// Name defaults to the path under the scenarios folder without .yaml.
	Name        string
	Description string
	Tags        []string
	Setup       Setup
	Input       []llm.Message
	// Offered is the top-level `offered:` block: what the tape recorded the
	// model was offered (system prompts, tools); nil when absent.
	Offered *tape.Offered
	Tape    []tape.Entry
	// Verdicts is the top-level `judge:` section: the recorded verdicts of
	// the expect.judge items, which a replay re-uses; nil means none.
	Verdicts []tape.Verdict
	// NoTape reports that the file has no `tape:` key: a scenario written
	// for live runs (evalrun eval, evalrun record), which a replay refuses
	// until one is recorded. False for a tape, empty or not.
	NoTape bool
	// Expect is nil when the file has no expect block.
	Expect *Expect
	// Faults are the provider faults a live run applies, through a
	// faults.Transport of its own (package llm/faults, which applies what
	// package faultspec describes); nil means none. A
	// replay ignores them: what they caused is in the tape (typed error
	// entries, truncated arguments).
	Faults []faultspec.Fault
}

// Setup is how the world is set up before the run.
type Setup struct {
	// Seed seeds every random source of the fixtures; 1 when absent.
	Seed      int64
	Workspace WorkspaceSetup
	Tools     []ToolSetup
	Loop      LoopSetup
	// MCP are the MCP servers whose tools a live run registers (after
	// Tools, so an MCP tool replaces a stand-in of the same name); a replay
	// connects to none. Nil means none.
	MCP []MCPSetup
	// Agent, when set, makes the scenario bridged: the user's own agent
	// runs it through package bridge (setup.agent); nil means tapeloop's
	// loop runs it.
	Agent *AgentSetup
	// User, when set, makes the user a model in live runs (setup.user):
	// it writes the user's messages after each final answer. Nil means the
	// tape's user turns, if any, are the user.
	User *UserSetup
	// AllowHosts lists what a replay of the scenario may reach through
	// http.DefaultTransport besides its tape (setup.allow_hosts), added
	// to what the caller allows (harness.RunOptions.AllowHosts): a host
	// (any port), a host and port, or "*" for everything, as written. Nil
	// allows nothing more. A live run is never refused.
	AllowHosts []string
	// AllowHostsLine is the line of setup.allow_hosts; 0 when absent.
	AllowHostsLine int
}

// WorkspaceSetup seeds the workspace: a tree copied first, then files.
type WorkspaceSetup struct {
	// From is the tree's directory, made absolute after resolving it against
	// the scenario's folder; "" means none. Parse confines it to the module
	// holding the scenario (or the scenarios folder, or the scenario's folder);
	// a From set by hand is confined to itself.
	From string
	// FromLine is the line of setup.workspace.from; 0 when absent.
	FromLine int
	Files    []FileSeed
	// bound and rel are the folder From is confined to and From relative to
	// it; "" when From was not decoded.
	bound, rel string
}

// FileSeed is one file of setup.workspace.files.
type FileSeed struct {
	Path    string
	Content string
	// Line is the line of its key; 0 when unknown.
	Line int
}

// ToolSetup is one entry of setup.tools.
type ToolSetup struct {
	// Name is the name the tool is registered under.
	Name string
	// Fixture is the fixture it is built from; equal to Name for the short form.
	Fixture string
	// With is the fixture's configuration node; nil when absent.
	With *yaml.Node
	Line int
}

// LoopSetup configures the loop. Keys beyond the format's own (tool_timeout,
// memoize, text_calls, repair) are tapeloop's additions.
type LoopSetup struct {
	// MaxIterations is 20 when absent.
	MaxIterations int
	Execution     tools.ExecutionMode
	// RetryAttempts and RetryBackoff come from retry: {attempts, backoff}.
	RetryAttempts int
	RetryBackoff  time.Duration
	// ToolTimeout bounds each tool attempt; zero means none.
	ToolTimeout time.Duration
	// Memoize enables the per-run memo of pure tools.
	Memoize bool
	// TextCalls enables extraction of calls written as text (default true).
	TextCalls bool
	// TextCallOptions tune that extraction: text_calls as a mapping
	// {formats, families} sets the formats tried and declares families
	// (textcalls.Options). The zero value detects every known format.
	TextCallOptions textcalls.Options
	// Repair enables the repair cascade for broken arguments (default true).
	Repair bool
	// ModelRetryAttempts, ModelRetryBackoff and ModelRetryMaxBackoff come
	// from model_retry: {attempts, backoff, max_backoff}: failed model calls
	// (rate limits, overload, timeouts, malformed responses) are tried again
	// on the run's clock, honouring Retry-After. Attempts below 2 mean none.
	ModelRetryAttempts   int
	ModelRetryBackoff    time.Duration
	ModelRetryMaxBackoff time.Duration
	// ModelTimeout bounds each model-call attempt of a live run; zero means
	// none. A replay's model answers at once.
	ModelTimeout time.Duration
	// Request holds the sampling and tool options of setup.loop.request,
	// which the loop sends with every model call (a live model sends them
	// in place of those it was opened with) and pins in the tape, by the
	// names of llm.RequestOptions.Params. The zero value sets none.
	Request llm.RequestOptions
	// Model is setup.loop.request.model, the scenario's own model,
	// "PROVIDER/MODEL": record and eval open it when no --model is given,
	// and the tape pins it as offered.params.model whichever model
	// answered. Empty when the scenario names none (any model answers,
	// and none is pinned). ModelLine is its line; 0 when empty.
	Model     string
	ModelLine int
}

// Expect is the expect block: every field that is set must hold.
type Expect struct {
	Termination *agent.Reason
	Iterations  *int
	ToolCalls   *[]string
	Retries     map[string]int
	Repairs     map[string][]string
	Errors      map[string]tools.FailureKind
	Final       *TextExpect
	// ModelRetries is expect.model_retries: how many failed model-call
	// attempts were retried over the whole run; nil means no check.
	ModelRetries *int
	// Calls is expect.calls; nil when absent.
	Calls *CallsExpect
	// Said is expect.said: each item must hold for some assistant text.
	Said []SaidExpect
	// Files maps a path to its end content; nil content means it must not exist.
	Files []FileExpect
	// State checks the worlds' end state (Outcome.State); nil means no check.
	State *StateExpect
	// Checks is expect.check: checks of the user's own, each called with
	// the outcome (harness.NewChecker); nil means none.
	Checks []CheckExpect
	// Judges is expect.judge: rubrics a judge model grades the run
	// against; nil means none.
	Judges []JudgeExpect
	// Cache is expect.cache: the least cacheable share of the run's input
	// tokens; nil means no check.
	Cache *CacheExpect
	lines map[string]int
}

// Line returns the line of expect.KEY in the scenario file (key as
// "final", "calls"); 0 when the key is absent or e was not parsed.
func (e *Expect) Line(key string) int {
	if e == nil {
		return 0
	}
	return e.lines[key]
}

// TextExpect checks the final text: Equals, Contains or Matches (RE2).
type TextExpect struct {
	Equals   *string
	Contains *string
	Matches  *regexp.Regexp
}

// FileExpect is one entry of expect.files.
type FileExpect struct {
	Path    string
	Content *string
}

var (
	topKeys        = []string{"format", "name", "description", "tags", "setup", "input", "offered", "tape", "expect", "faults", "judge"}
	setupKeys      = []string{"seed", "workspace", "tools", "loop", "mcp", "agent", "user", "allow_hosts"}
	workspaceKeys  = []string{"from", "files"}
	toolKeys       = []string{"name", "fixture", "with"}
	loopKeys       = []string{"max_iterations", "execution", "retry", "tool_timeout", "memoize", "text_calls", "repair", "model_retry", "model_timeout", "request"}
	requestKeys    = []string{"model", "temperature", "top_p", "max_tokens", "seed", "stop", "tool_choice", "parallel_tool_calls"}
	modelRetryKeys = []string{"attempts", "backoff", "max_backoff"}
	retryKeys      = []string{"attempts", "backoff"}
	expectKeys     = []string{"termination", "iterations", "tool_calls", "calls", "said", "retries", "repairs", "errors", "final", "files", "state", "model_retries", "check", "judge", "cache"}
	finalKeys      = []string{"equals", "contains", "matches"}
)

// Load reads and checks the scenario file at path; its default name is
// DefaultName(path).
// Every problem is an error wrapping ErrScenario (or tape.ErrFormat for the
// tape) that names the file, the line and the key.
func Load(path string) (*Scenario, error) {
	data, err := regularfile.Read(path, MaxScenarioSize)
	if errors.Is(err, regularfile.ErrNotRegular) || errors.Is(err, regularfile.ErrTooLarge) {
		return nil, &scenarioError{err: fmt.Errorf("loading scenario: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("loading scenario: %w", err)
	}
	name := DefaultName(path)
	s, err := Parse(data, path, name)
	if err != nil {
		return nil, err
	}
	s.RelPath = name + scenarioExt(path)
	return s, nil
}

// DefaultName is a scenario's name when its file sets none: its path without
// the .yaml (or .yml) extension, relative to the nearest enclosing folder
// that is named "scenarios" or holds a go.mod file (the module root), or,
// when there is neither, the file's base name. It depends only on where the
// file is, never on the working directory or on which folder or file a
// command was given, so a golden is the same however it is replayed.
func DefaultName(path string) string {
	name := filepath.Base(path)
	if abs, err := filepath.Abs(path); err == nil {
		for dir := filepath.Dir(abs); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if filepath.Base(dir) == "scenarios" || isFile(filepath.Join(dir, "go.mod")) {
				if rel, err := filepath.Rel(dir, abs); err == nil {
					name = filepath.ToSlash(rel)
				}
				break
			}
		}
	}
	return strings.TrimSuffix(name, scenarioExt(name))
}

// scenarioExt is the file's scenario extension, ".yaml" or ".yml" ("" for
// neither).
func scenarioExt(path string) string {
	for _, ext := range []string{".yaml", ".yml"} {
		if strings.HasSuffix(path, ext) {
			return ext
		}
	}
	return ""
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// Parse decodes a scenario from data; file names it in errors and locates
// setup.workspace.from; name is the default name.
//
// A text of cutFrom bytes or more has its tape parsed one entry at a time
// (yamlx.Decoder.ParseCut), so that a long one never exists as YAML nodes
// all at once; text that cannot be cut safely, and a shorter text, is
// parsed whole.
func Parse(data []byte, file, name string) (s *Scenario, err error) {
	if s, err = parseCutFrom(data, file, name, cutFrom, byEntryCounted); err == nil {
		s.Source = sha256.Sum256(data)
	}
	return s, err
}

// cutFrom is the size from which Parse reads a tape one entry at a time. A
// whole parse's nodes take ~25 times the text (1.6 MB here at most), and
// each entry parsed alone pays for a YAML parser of its own (its buffers
// and token queue, ~12 KB an entry): on the bench's reference scenario
// (2.6 KB, 11 entries) cutting made harness.Verify ~45% slower in CPU time.
const cutFrom = 64 << 10

// reading is how parse reads a scenario's tape.
type reading int

const (
	// whole parses the tape with the rest of the file.
	whole reading = iota
	// byEntry cuts the tape out of the text and parses it an entry at a
	// time (yamlx.Decoder.ParseCut).
	byEntry
	// byEntryCounted is byEntry, with a response's tool_calls counted from
	// their text, not parsed, when there are more than one response may
	// hold (yamlx.Counted): the decoder refuses them for their count alone.
	byEntryCounted
)

// parseCutFrom is Parse, the tape read as how says when data holds at least
// from bytes, and whole otherwise.
func parseCutFrom(data []byte, file, name string, from int, how reading) (s *Scenario, err error) {
	defer func() {
		if err != nil && !errors.Is(err, ErrScenario) {
			err = &scenarioError{err: err}
		}
	}()
	if len(data) >= from && how != whole {
		s, err = parse(data, file, name, how)
		if !errors.Is(err, yamlx.ErrCut) {
			return s, err
		}
	}
	return parse(data, file, name, whole)
}

// parse is Parse, reading the tape as how says.
func parse(data []byte, file, name string, how reading) (s *Scenario, err error) {
	d := &yamlx.Decoder{File: file}
	if how == byEntryCounted {
		d.Count = yamlx.Counted{Keys: []string{"response", "tool_calls"}, Over: tape.MaxCallsPerResponse}
	}
	var root *yaml.Node
	if how != whole {
		root, err = d.ParseCut(data, "tape")
	} else {
		root, err = d.Parse(data)
	}
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, d.Errf(nil, "", "the file is empty (want format: %s, input and tape)", Format)
	}
	if root.Kind == yaml.MappingNode && !hasKey(root, "format") {
		return nil, fmt.Errorf("%s: %w: it has no `format: %s` line", file, ErrNotScenario, Format)
	}
	s = &Scenario{Path: file, RelPath: file, Name: name, Setup: Setup{Seed: 1, Loop: LoopSetup{MaxIterations: agent.DefaultMaxIterations, TextCalls: true, Repair: true}}}
	nodes := map[string]*yaml.Node{}
	seen, err := d.Fields(root, "", topKeys, func(key string, v *yaml.Node) error {
		nodes[key] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f, err := d.Str(nodes["format"], "format"); err != nil {
		return nil, err
	} else if f != Format {
		return nil, d.Errf(nodes["format"], "format", "unknown format %q: this version of tapeloop reads %s", f, Format)
	}
	if !seen.Has("input") {
		return nil, d.Errf(root, "input", "missing (a scenario needs input; a tape, unless it only runs live)")
	}
	s.NoTape = !seen.Has("tape")
	if n := nodes["name"]; n != nil {
		if s.Name, err = d.Str(n, "name"); err != nil {
			return nil, err
		}
		if problem := nameProblem(s.Name); problem != "" {
			return nil, d.Errf(n, "name", "%q %s", s.Name, problem)
		}
	}
	if n := nodes["description"]; n != nil {
		if s.Description, err = d.Str(n, "description"); err != nil {
			return nil, err
		}
	}
	if n := nodes["tags"]; n != nil {
		if s.Tags, err = d.Strs(n, "tags"); err != nil {
			return nil, err
		}
	}
	if n := nodes["setup"]; n != nil {
		if err := decodeSetup(d, n, &s.Setup, file); err != nil {
			return nil, err
		}
	}
	if s.Input, err = tape.DecodeMessages(file, "input", nodes["input"]); err != nil {
		return nil, err
	}
	if n := nodes["offered"]; n != nil {
		if s.Offered, err = tape.DecodeOffered(file, "offered", n); err != nil {
			return nil, err
		}
	}
	if n := nodes["tape"]; n != nil && d.IsCut(n) {
		if err := d.EachItem(n, func(i int, item *yaml.Node) error {
			e, err := tape.DecodeEntry(file, i, item)
			s.Tape = append(s.Tape, e)
			return err
		}); err != nil {
			return nil, err
		}
	} else if n != nil {
		if s.Tape, err = tape.DecodeEntries(file, n); err != nil {
			return nil, err
		}
	}
	if n := nodes["judge"]; n != nil {
		if s.Verdicts, err = tape.DecodeVerdicts(file, n); err != nil {
			return nil, err
		}
	}
	if n := nodes["faults"]; n != nil {
		if s.Faults, err = decodeFaults(d, n); err != nil {
			return nil, err
		}
	}
	if n := nodes["expect"]; n != nil {
		if s.Expect, err = decodeExpect(d, n); err != nil {
			return nil, err
		}
	}
	if s.Setup.User != nil {
		if err := checkUser(d, s, nodes); err != nil {
			return nil, err
		}
	}
	if s.Setup.Agent != nil {
		if err := checkBridged(d, nodes); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// hasKey reports whether the mapping n has the key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func decodeSetup(d *yamlx.Decoder, n *yaml.Node, s *Setup, file string) error {
	_, err := d.Fields(n, "setup", setupKeys, func(key string, v *yaml.Node) error {
		path := yamlx.Join("setup", key)
		switch key {
		case "seed":
			seed, err := d.Int(v, path, -1<<62, 1<<62)
			s.Seed = seed
			return err
		case "workspace":
			return decodeWorkspace(d, v, &s.Workspace, file)
		case "tools":
			return decodeTools(d, v, s)
		case "loop":
			return decodeLoop(d, v, &s.Loop)
		case "mcp":
			var err error
			s.MCP, err = decodeMCP(d, v)
			return err
		case "agent":
			var err error
			s.Agent, err = decodeAgent(d, v)
			return err
		case "user":
			var err error
			s.User, err = decodeUser(d, v)
			return err
		case "allow_hosts":
			var err error
			s.AllowHosts, err = decodeAllowHosts(d, v)
			s.AllowHostsLine = v.Line
			return err
		}
		return nil
	})
	if err == nil && s.AllowHosts != nil && s.Agent != nil && len(s.Agent.Command) > 0 {
		return d.Errf(&yaml.Node{Line: s.AllowHostsLine}, "setup.allow_hosts", "a program agent (setup.agent.command) reaches nothing but the bridge from its sandbox, so the key would change nothing: it applies to Go tools and Go agents (setup.agent.go)")
	}
	return err
}

func decodeWorkspace(d *yamlx.Decoder, n *yaml.Node, w *WorkspaceSetup, file string) error {
	_, err := d.Fields(n, "setup.workspace", workspaceKeys, func(key string, v *yaml.Node) error {
		path := yamlx.Join("setup.workspace", key)
		switch key {
		case "from":
			return decodeFrom(d, v, path, w, file)
		case "files":
			return decodeFiles(d, v, path, w)
		}
		return nil
	})
	return err
}

func decodeTools(d *yamlx.Decoder, n *yaml.Node, s *Setup) error {
	if err := d.Want(n, "setup.tools", yaml.SequenceNode); err != nil {
		return err
	}
	names := map[string]int{}
	for i, c := range n.Content {
		path := yamlx.Index("setup.tools", i)
		t := ToolSetup{Line: c.Line}
		if c.Kind == yaml.ScalarNode {
			name, err := d.Str(c, path)
			if err != nil {
				return err
			}
			t.Name, t.Fixture = name, name
		} else {
			seen, err := d.Fields(c, path, toolKeys, func(key string, v *yaml.Node) error {
				var err error
				switch key {
				case "name":
					t.Name, err = d.Str(v, yamlx.Join(path, key))
				case "fixture":
					t.Fixture, err = d.Str(v, yamlx.Join(path, key))
				case "with":
					t.With = v
				}
				return err
			})
			if err != nil {
				return err
			}
			if !seen.Has("name") {
				return d.Errf(c, path, "missing key \"name\"")
			}
			if !seen.Has("fixture") {
				t.Fixture = t.Name
			}
		}
		if err := tools.ValidateName(t.Name); err != nil {
			return d.Errf(c, path, "%v", err)
		}
		if prev, dup := names[t.Name]; dup {
			return d.Errf(c, path, "tool %q is already set up on line %d", t.Name, prev)
		}
		names[t.Name] = c.Line
		s.Tools = append(s.Tools, t)
	}
	return nil
}

func decodeLoop(d *yamlx.Decoder, n *yaml.Node, l *LoopSetup) error {
	_, err := d.Fields(n, "setup.loop", loopKeys, func(key string, v *yaml.Node) error {
		path := yamlx.Join("setup.loop", key)
		var err error
		switch key {
		case "max_iterations":
			var v64 int64
			v64, err = d.Int(v, path, 1, 10000)
			l.MaxIterations = int(v64)
		case "execution":
			var mode string
			mode, err = d.Enum(v, path, "parallel", "sequential")
			l.Execution = tools.ExecutionMode(mode)
		case "retry":
			_, err = d.Fields(v, path, retryKeys, func(key string, v *yaml.Node) error {
				var err error
				switch key {
				case "attempts":
					var a int64
					a, err = d.Int(v, yamlx.Join(path, key), 1, 100)
					l.RetryAttempts = int(a)
				case "backoff":
					l.RetryBackoff, err = d.Duration(v, yamlx.Join(path, key))
				}
				return err
			})
		case "tool_timeout":
			l.ToolTimeout, err = d.Duration(v, path)
		case "memoize":
			l.Memoize, err = d.Bool(v, path)
		case "text_calls":
			err = decodeTextCalls(d, v, path, l)
		case "repair":
			l.Repair, err = d.Bool(v, path)
		case "model_timeout":
			l.ModelTimeout, err = d.Duration(v, path)
		case "request":
			err = decodeRequest(d, v, path, l)
		case "model_retry":
			_, err = d.Fields(v, path, modelRetryKeys, func(key string, v *yaml.Node) error {
				var err error
				switch key {
				case "attempts":
					var a int64
					a, err = d.Int(v, yamlx.Join(path, key), 1, 100)
					l.ModelRetryAttempts = int(a)
				case "backoff":
					l.ModelRetryBackoff, err = d.Duration(v, yamlx.Join(path, key))
				case "max_backoff":
					l.ModelRetryMaxBackoff, err = d.Duration(v, yamlx.Join(path, key))
				}
				return err
			})
		}
		return err
	})
	return err
}

// decodeRequest decodes setup.loop.request into l's Request, Model and
// ModelLine.
func decodeRequest(d *yamlx.Decoder, n *yaml.Node, path string, l *LoopSetup) error {
	o := &l.Request
	_, err := d.Fields(n, path, requestKeys, func(key string, v *yaml.Node) error {
		p := yamlx.Join(path, key)
		var err error
		switch key {
		case "model":
			if l.Model, err = d.Str(v, p); err != nil {
				return err
			}
			l.ModelLine = v.Line
			if _, _, err := llm.ParseModelName(l.Model); err != nil {
				return d.Errf(v, p, "%v (the scenario's own model, such as openai/gpt-4.1)", err)
			}
		case "temperature":
			var f float64
			f, err = number(d, v, p, 2)
			o.Temperature = &f
		case "top_p":
			var f float64
			f, err = d.Unit(v, p)
			o.TopP = &f
		case "max_tokens":
			var i int64
			i, err = d.Int(v, p, 1, math.MaxInt32)
			o.MaxTokens = int(i)
		case "seed":
			var i int64
			i, err = d.Int(v, p, math.MinInt64, math.MaxInt64)
			o.Seed = &i
		case "stop":
			o.Stop, err = d.Strs(v, p)
			if o.Stop == nil && err == nil {
				o.Stop = []string{}
			}
		case "tool_choice":
			o.ToolChoice, err = d.Str(v, p)
			if err == nil && o.ToolChoice == "" {
				err = d.Errf(v, p, `want "auto", "none", "required" or a tool's name, got ""`)
			}
		case "parallel_tool_calls":
			var b bool
			b, err = d.Bool(v, p)
			o.ParallelToolCalls = &b
		}
		return err
	})
	return err
}

// number decodes a number (an integer or a float) from 0 to max.
func number(d *yamlx.Decoder, n *yaml.Node, path string, max float64) (float64, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if t := n.ShortTag(); t != "!!int" && t != "!!float" || err != nil || math.IsNaN(f) || f < 0 || f > max {
		return 0, d.Errf(n, path, "want a number from 0 to %g, got %s", max, yamlx.Describe(n))
	}
	return f, nil
}

func decodeExpect(d *yamlx.Decoder, n *yaml.Node) (*Expect, error) {
	e := &Expect{lines: map[string]int{}}
	_, err := d.Fields(n, "expect", expectKeys, func(key string, v *yaml.Node) error {
		path := yamlx.Join("expect", key)
		e.lines[key] = v.Line
		switch key {
		case "termination":
			names := make([]string, len(agent.Reasons))
			for i, r := range agent.Reasons {
				names[i] = string(r)
			}
			r, err := d.Enum(v, path, names...)
			reason := agent.Reason(r)
			e.Termination = &reason
			return err
		case "model_retries":
			n64, err := d.Int(v, path, 0, 1_000_000)
			n := int(n64)
			e.ModelRetries = &n
			return err
		case "iterations":
			i, err := d.Int(v, path, 0, 1<<31)
			n := int(i)
			e.Iterations = &n
			return err
		case "tool_calls":
			calls, err := d.Strs(v, path)
			e.ToolCalls = &calls
			return err
		case "calls":
			var err error
			e.Calls, err = decodeCallsExpect(d, v, path)
			return err
		case "said":
			var err error
			e.Said, err = decodeSaid(d, v, path)
			return err
		case "retries":
			e.Retries = map[string]int{}
			return d.Pairs(v, path, func(name string, _, c *yaml.Node) error {
				i, err := d.Int(c, yamlx.Join(path, name), 0, 1000)
				e.Retries[name] = int(i)
				return err
			})
		case "repairs":
			e.Repairs = map[string][]string{}
			return callRefPairs(d, v, path, func(id string, c *yaml.Node) error {
				fixes, err := d.Strs(c, yamlx.Join(path, id))
				e.Repairs[id] = fixes
				return err
			})
		case "errors":
			e.Errors = map[string]tools.FailureKind{}
			return callRefPairs(d, v, path, func(id string, c *yaml.Node) error {
				s, err := d.Str(c, yamlx.Join(path, id))
				if err != nil {
					return err
				}
				kind, err := tools.ParseFailureKind(s)
				if err != nil {
					return d.Errf(c, yamlx.Join(path, id), "%v", err)
				}
				e.Errors[id] = kind
				return nil
			})
		case "final":
			e.Final = &TextExpect{}
			seen, err := d.Fields(v, path, finalKeys, func(key string, c *yaml.Node) error {
				s, err := d.Str(c, yamlx.Join(path, key))
				if err != nil {
					return err
				}
				switch key {
				case "equals":
					e.Final.Equals = &s
				case "contains":
					e.Final.Contains = &s
				case "matches":
					re, err := regexp.Compile(s)
					if err != nil {
						return d.Errf(c, yamlx.Join(path, key), "invalid regular expression: %v", err)
					}
					e.Final.Matches = re
				}
				return nil
			})
			if err == nil && seen.Len() == 0 {
				return d.Errf(v, path, "empty (want equals, contains or matches)")
			}
			return err
		case "files":
			return d.Pairs(v, path, func(name string, _, c *yaml.Node) error {
				fe := FileExpect{Path: name}
				if c.Kind != yaml.ScalarNode || c.ShortTag() != "!!null" {
					s, err := d.Str(c, yamlx.Join(path, name))
					if err != nil {
						return err
					}
					fe.Content = &s
				}
				e.Files = append(e.Files, fe)
				return nil
			})
		case "state":
			var err error
			e.State, err = decodeStateExpect(d, v, path)
			return err
		case "check":
			var err error
			e.Checks, err = decodeChecks(d, v, path)
			return err
		case "judge":
			var err error
			e.Judges, err = decodeJudges(d, v, path)
			return err
		case "cache":
			var err error
			e.Cache, err = decodeCache(d, v, path)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// UserTurns returns the user turns of the scenario's tape, in order: the
// messages a conversation goes on with after each final text answer (the
// first starts the conversation when the tape begins with it). A tape of
// only user turns is a conversation script for a live run (harness.RunOptions.Model).
func (s *Scenario) UserTurns() []llm.Message {
	var out []llm.Message
	for _, e := range s.Tape {
		if e.User != nil {
			out = append(out, e.User.Clone())
		}
	}
	return out
}

// ReplayTape returns the scenario's tape as a tape.Tape: its name, the
// file relative to its scenarios folder (as goldens show it), the offered
// block, the entries and the verdicts (shared, not copied).
func (s *Scenario) ReplayTape() *tape.Tape {
	return &tape.Tape{Name: s.Name, File: s.RelPath, Offered: s.Offered, Entries: s.Tape, Verdicts: s.Verdicts}
}
