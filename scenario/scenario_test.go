package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// minimal is the smallest valid scenario body after the format line.
const minimal = "input: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n"

func reasonAlternatives() string {
	names := make([]string, len(agent.Reasons))
	for i, r := range agent.Reasons {
		names[i] = string(r)
	}
	return strings.Join(names, " | ")
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, text string
		// validate also builds the workspace and tools (fixture errors).
		validate bool
		want     string
	}{
		{name: "unknown top-level key",
			text: "format: tapeloop/v1\n" + minimal + "expcet: {iterations: 1}\n",
			want: `$FILE:4: unknown key "expcet" (want format, name, description, tags, setup, input, offered, tape, expect, faults, judge)`},
		{name: "unknown nested key",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    retyr: {attempts: 2}\n" + minimal,
			want: `$FILE:4: setup.loop: unknown key "retyr" (want max_iterations, execution, retry, tool_timeout, memoize, text_calls, repair, model_retry, model_timeout)`},
		{name: "wrong type",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    max_iterations: \"ten\"\n" + minimal,
			want: `$FILE:4: setup.loop.max_iterations: want an integer, got a string ("ten")`},
		{name: "zero iterations",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    max_iterations: 0\n" + minimal,
			want: `$FILE:4: setup.loop.max_iterations: want an integer from 1 to 10000, got 0`},
		{name: "bad format version",
			text: "format: tapeloop/v2\n" + minimal,
			want: `$FILE:1: format: unknown format "tapeloop/v2": this version of tapeloop reads tapeloop/v1`},
		{name: "no format",
			text: minimal,
			want: "$FILE: not a tapeloop scenario: it has no `format: tapeloop/v1` line"},
		{name: "missing input",
			text: "format: tapeloop/v1\ntape: [{response: {content: hello}}]\n",
			want: `$FILE:1: input: missing (a scenario needs input; a tape, unless it only runs live)`},
		{name: "bad termination",
			text: "format: tapeloop/v1\n" + minimal + "expect:\n  termination: finished\n",
			want: `$FILE:5: expect.termination: unknown value "finished" (want ` + reasonAlternatives() + `)`},
		{name: "bad regexp",
			text: "format: tapeloop/v1\n" + minimal + "expect:\n  final: {matches: \"hel(lo\"}\n",
			want: "$FILE:5: expect.final.matches: invalid regular expression: error parsing regexp: missing closing ): `hel(lo`"},
		{name: "duplicate tool name",
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - read_file\n    - name: read_file\n      fixture: echo\n" + minimal,
			want: `$FILE:5: setup.tools[1]: tool "read_file" is already set up on line 4`},
		{name: "bad with value", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - name: weather\n      fixture: flaky\n      with: {failures: two, kind: transient, result: sunny}\n" + minimal,
			want: `$FILE:6: setup.tools[weather].with.failures: want an integer, got "two"`},
		{name: "unknown with key", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - name: weather\n      fixture: flaky\n      with:\n        failures: 2\n        kind: transient\n        reslt: sunny\n" + minimal,
			want: `$FILE:9: setup.tools[weather].with.reslt: unknown key (valid keys: description, failures, kind, result, idempotent)`},
		{name: "unknown fixture", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - read_file\n    - name: weather\n      fixture: weather_api\n" + minimal,
			want: `$FILE:5: setup.tools[weather].fixture: unknown tool "weather_api" (known: fixtures ` + strings.Join(fixtures.Names(), ", ") + `)`},
		{name: "tape error",
			text: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      content: hello\n      finsh_reason: stop\n",
			want: `$FILE:6: tape[0].response: unknown key "finsh_reason" (want reasoning, content, tool_calls, finish_reason, usage)`},
		{name: "bad workspace from",
			text: "format: tapeloop/v1\nsetup:\n  workspace: {from: nowhere}\n" + minimal,
			want: `$FILE:3: setup.workspace.from: "nowhere" does not exist (it is resolved against the scenario's folder)`},
		{name: "empty file",
			text: "",
			want: `$FILE: the file is empty (want format: tapeloop/v1, input and tape)`},
		{name: "only a comment",
			text: "# nothing yet\n",
			want: `$FILE: the file is empty (want format: tapeloop/v1, input and tape)`},
		{name: "invalid YAML syntax",
			text: "format: tapeloop/v1\ninput:\n\t- {role: user, content: hi}\n",
			want: `$FILE:3: invalid YAML: found character that cannot start any token`},
		{name: "not a mapping",
			text: "- format: tapeloop/v1\n",
			want: `$FILE:1: want a mapping, got a sequence`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Load(path, dir)
			if err == nil && c.validate {
				err = harness.Validate(s, nil)
			} else if c.validate {
				t.Fatalf("Load: %v (want the error from Validate)", err)
			}
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if !errors.Is(err, scenario.ErrScenario) {
				t.Errorf("%v does not wrap ErrScenario", err)
			}
			want := strings.ReplaceAll(c.want, "$FILE", path)
			if err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
		})
	}
}

func TestLoadWrapsFixtureSentinels(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  tools:\n    - name: w\n      fixture: flaky\n      with: {failures: 1, kind: transient, result: x, colour: red}\n"+minimal), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Validate(s, nil); !errors.Is(err, toolkit.ErrUnknownKey) || !errors.Is(err, scenario.ErrScenario) {
		t.Errorf("Validate = %v, want it to wrap toolkit.ErrUnknownKey and ErrScenario", err)
	}
}

func TestLoadTapeErrorWrapsReplayFormat(t *testing.T) {
	_, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{respons: {}}]\n"), "s.yaml", "s")
	if !errors.Is(err, scenario.ErrScenario) || !errors.Is(err, replay.ErrFormat) {
		t.Errorf("Parse = %v, want it to wrap ErrScenario and replay.ErrFormat", err)
	}
}

func TestLoadRefusesHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: no disk blocks are written.
	if err := f.Truncate(scenario.MaxScenarioSize + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = scenario.Load(path, "")
	want := "loading scenario: reading " + path + ": file too large: more than the limit of 16777216 bytes"
	if err == nil || err.Error() != want || !errors.Is(err, scenario.ErrScenario) {
		t.Errorf("Load = %v, want %s", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := scenario.Load(filepath.Join(t.TempDir(), "nope.yaml"), "")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load = %v, want it to wrap fs.ErrNotExist", err)
	}
}

func TestLoadNamesAndDefaults(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "group")
	if err := os.MkdirAll(filepath.Join(dir, "seed"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("group/plain.yaml", "format: tapeloop/v1\n"+minimal)
	named := write("group/named.yaml", "format: tapeloop/v1\nname: custom/name\ntags: [a, b]\nsetup:\n  workspace: {from: seed}\n"+minimal)
	// Under a folder named scenarios: relative to it, even inside a module.
	write("mod/go.mod", "module example.com/m\n")
	inScenarios := write("mod/scenarios/files/edit.yml", "format: tapeloop/v1\n"+minimal)
	// Under a module without a scenarios folder: relative to the module root.
	inModule := write("mod/testdata/evals/weather/retry.yaml", "format: tapeloop/v1\n"+minimal)

	cases := []struct {
		path, root, name string
	}{
		{plain, "", "plain"},
		{plain, root, "plain"}, // root is not used
		{named, "", "custom/name"},
		{inScenarios, "", "files/edit"},
		{inModule, "", "testdata/evals/weather/retry"},
		{inModule, filepath.Join(root, "mod", "testdata"), "testdata/evals/weather/retry"},
	}
	for _, c := range cases {
		s, err := scenario.Load(c.path, c.root)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != c.name {
			t.Errorf("Load(%s, %q).Name = %q, want %q", c.path, c.root, s.Name, c.name)
		}
	}
	if s, err := scenario.Load(inScenarios, ""); err != nil || s.RelPath != "files/edit.yml" {
		t.Errorf("RelPath of a .yml scenario: %v, %v", s, err)
	}
	s, err := scenario.Load(plain, root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Setup.Seed != 1 || s.Setup.Loop.MaxIterations != agent.DefaultMaxIterations || !s.Setup.Loop.TextCalls || !s.Setup.Loop.Repair || s.Expect != nil {
		t.Errorf("defaults: %+v, expect %v", s.Setup, s.Expect)
	}
	s, err = scenario.Load(named, root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "seed"); s.Setup.Workspace.From != want {
		t.Errorf("from = %q, want %q (resolved against the scenario's folder)", s.Setup.Workspace.From, want)
	}
	if strings.Join(s.Tags, ",") != "a,b" {
		t.Errorf("tags = %v", s.Tags)
	}
}

// TestParseWithoutTape: a scenario for live runs needs no tape: key; it
// parses with NoTape set, and an empty tape is still a tape.
func TestParseWithoutTape(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n"), "live.yaml", "live")
	if err != nil || !s.NoTape || s.Tape != nil {
		t.Fatalf("without tape: %+v, %v; want NoTape", s, err)
	}
	s, err = scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n"), "empty.yaml", "empty")
	if err != nil || s.NoTape {
		t.Fatalf("tape: []: %+v, %v; want a tape", s, err)
	}
}
