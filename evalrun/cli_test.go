package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

func TestHelpOnEverySubcommand(t *testing.T) {
	for name := range commands {
		for _, flag := range []string{"--help", "-h"} {
			code, out, errOut := runCmd(t, name, flag)
			if code != exitOK {
				t.Errorf("%s %s: exit %d, stderr:\n%s", name, flag, code, errOut)
			}
			if !strings.HasPrefix(out, "usage: evalrun "+name) || !strings.Contains(out, "exit codes:\n  0  everything passed\n  1  a scenario (or a repair) failed\n  2  a usage or input error\n") {
				t.Errorf("%s %s: stdout lacks the usage line or the exit codes:\n%s", name, flag, out)
			}
		}
	}
	code, out, _ := runCmd(t, "replay", "--help")
	for _, f := range []string{"-run", "-tag", "-update", "-json", "-junit", "-parallel", "-repeat"} {
		if !strings.Contains(out, "\n  "+f+" ") && !strings.Contains(out, "\n  "+f+"\n") {
			t.Errorf("replay --help (exit %d) does not list %s:\n%s", code, f, out)
		}
	}
}

// TestHelpWithoutCommand: evalrun --help (or -h, -help, help) prints on
// stdout how to call it, every command with its summary in name order, and
// the exit codes, and exits 0.
func TestHelpWithoutCommand(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, arg := range []string{"--help", "-h", "-help", "help"} {
		code, out, errOut := runCmd(t, arg)
		if code != exitOK || errOut != "" || !strings.HasPrefix(out, "usage: evalrun [command] [flags] [args]\n") || !strings.HasSuffix(out, exitCodes+"\n") {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s", arg, code, out, errOut)
			continue
		}
		rest := out
		for _, n := range names {
			line := fmt.Sprintf("\n  %-8s %s\n", n, commands[n].summary)
			i := strings.Index(rest, line)
			if i < 0 {
				t.Errorf("%s: stdout lacks (or misorders) %q:\n%s", arg, line, out)
				break
			}
			rest = rest[i+len(line)-1:]
		}
	}
}

func TestBadFlagExitsTwoWithUsageOnStderr(t *testing.T) {
	code, out, errOut := runCmd(t, "lint", "--nope")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "flag provided but not defined: -nope") || !strings.Contains(errOut, "usage: evalrun lint") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

func TestPathWithoutReplayWordAndFlagsAfterPaths(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	if code, out, errOut := runCmd(t, dir, "--update"); code != exitOK || !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("evalrun DIR --update: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "replay", dir, "--run", "^math/")
	if code != exitOK || !strings.Contains(out, "PASS   math/add") || strings.Contains(out, "files/read") {
		t.Errorf("evalrun replay DIR --run ^math/: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCmd(t, "no-such-thing"); code != exitUsage || !strings.Contains(errOut, `unknown command "no-such-thing" (and no such file or folder)`) {
		t.Errorf("unknown word: exit %d, stderr:\n%s", code, errOut)
	}
	// After --, a flag-looking word is a path.
	if code, _, errOut := runCmd(t, "lint", "--", "--run"); code != exitUsage || !strings.Contains(errOut, "--run: no such file or directory") {
		t.Errorf("lint -- --run: exit %d, stderr:\n%s", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, errOut := runCmd(t, "version")
	// A test binary's build info names the test's package as main module,
	// and tapeloop is that module, so the version is (devel).
	if code != exitOK || !strings.HasPrefix(out, "evalrun (devel) (go1.") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "version", "--json", "-")
	var v versionDocument
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil || v.Module != modulePath || v.Version != "(devel)" || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("--json -: exit %d, %v, stdout %q, stderr %q", code, err, out, errOut)
	}
	docNamesJSONKeys(t, "../docs/reports.md", v)
}

// userScenario names a tool of the caller's own.
const userScenario = `format: tapeloop/v1
setup:
  tools: [shout]
input: [{role: user, content: "Shout hi."}]
tape:
  - response:
      tool_calls:
        - {id: call_1, name: shout, arguments: {text: hi}}
  - response: {content: "HI"}
`

var shoutFactory = toolkit.NewFactory("shout", "upper-cases text",
	func(name string, _ *toolkit.Env, _ struct{}) (tools.Tool, error) {
		return tools.New(tools.Spec{Name: name, Safety: tools.Safety{SideEffects: tools.SideEffectNone, Pure: true}},
			func(_ context.Context, in struct {
				Text string `json:"text"`
			}) (*tools.Result, error) {
				return tools.Success(strings.ToUpper(in.Text)), nil
			})
	})

func TestMainWithUserTools(t *testing.T) {
	dir := newScenarios(t, map[string]string{"shout.yaml": userScenario})
	main := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb, &Options{Tools: []*toolkit.Factory{shoutFactory}, Stdin: strings.NewReader("")})
		return code, out.String(), errb.String()
	}
	if code, out, errOut := main("lint", dir); code != exitOK || !strings.Contains(out, "ok    shout") {
		t.Errorf("lint with the tool: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := main("replay", "--update", dir); code != exitOK || !strings.Contains(out, "1 passed") {
		t.Errorf("replay with the tool: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := runCmd(t, "lint", dir)
	if code != exitUsage || !strings.Contains(errOut, `unknown tool "shout" (known: fixtures `) {
		t.Errorf("lint without the tool: exit %d\n%s", code, errOut)
	}
}

// progName, the name hints give the program, is the base name it was run
// by, without .exe, or evalrun for go test's and go run's binaries.
func TestProgName(t *testing.T) {
	defer func(old string) { os.Args[0] = old }(os.Args[0])
	for arg0, want := range map[string]string{
		"/usr/local/bin/supportrun":        "supportrun",
		`supportrun.exe`:                   "supportrun",
		"./evalrun":                        "evalrun",
		"/tmp/go-build1/b001/evalrun.test": "evalrun",
		"/opt/bin/support.tester":          "support.tester",
		"":                                 "evalrun",
	} {
		os.Args[0] = arg0
		if got := progName(); got != want {
			t.Errorf("run as %q: progName %q, want %q", arg0, got, want)
		}
	}
}

// Main reads standard input from Options.Stdin when it is set, not from the
// process's own.
func TestMainReadsOptionsStdin(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"repair"}, &out, &errb, &Options{Stdin: strings.NewReader(`{"a": 1,}`)})
	if code != exitOK || out.String() != `{"output":"{\"a\": 1}","fixes":["trailing_comma"]}`+"\n" {
		t.Errorf("repair of Options.Stdin: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// Run with no arguments, evalrun replays ./scenarios; when there is none it
// says so and exits 2 (no panic on the missing first argument).
func TestMainWithoutArguments(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	code := Main(context.Background(), nil, &out, &errb, &Options{Stdin: strings.NewReader("")})
	if code != exitUsage || !strings.Contains(errb.String(), "scenarios") {
		t.Errorf("no arguments, no ./scenarios: exit %d, stdout %q, stderr %q; want 2 naming scenarios", code, out.String(), errb.String())
	}
}

// TestUsageEndsWithTheExitCodes: the usage printed for an unknown command
// lists the commands and ends with what each exit code means.
func TestUsageEndsWithTheExitCodes(t *testing.T) {
	code, _, errOut := runCmd(t, "nosuchcommand")
	if code != exitUsage || !strings.Contains(errOut, "  replay ") || !strings.HasSuffix(errOut, exitCodes+"\n") {
		t.Errorf("exit %d, stderr:\n%s\nwant the usage ending with the exit codes", code, errOut)
	}
}

// TestMainReadsTheProcessStdinWithoutOptionsStdin: with no Options.Stdin,
// Main reads the process's standard input.
func TestMainReadsTheProcessStdinWithoutOptionsStdin(t *testing.T) {
	in := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(in, []byte(`{"a": 1,}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer func(old *os.File) { os.Stdin = old }(os.Stdin)
	os.Stdin = f
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"repair"}, &out, &errb, nil)
	if code != exitOK || out.String() != `{"output":"{\"a\": 1}","fixes":["trailing_comma"]}`+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want stdin repaired", code, out.String(), errb.String())
	}
}

// TestVersionOfAReplacedModule: a binary whose go.mod replaces tapeloop
// with a local copy (no version) says its version is unknown, not blank.
func TestVersionOfAReplacedModule(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: "example.com/support"},
		Deps: []*debug.Module{{Path: modulePath, Version: "v0.9.0", Replace: &debug.Module{Path: "../tapeloop"}}}}
	if v, goVersion := moduleVersion(info, true); v != "unknown" || goVersion != "go1.25.0" {
		t.Errorf("moduleVersion = %q, %q; want unknown, go1.25.0", v, goVersion)
	}
}
