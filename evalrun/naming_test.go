package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenIndependentOfInvocation: a scenario's default name, and so its
// golden, is the same whether it is replayed as a folder or as a single file,
// from the module root or from inside its folder.
func TestGoldenIndependentOfInvocation(t *testing.T) {
	mod := t.TempDir()
	writeTestFile(t, filepath.Join(mod, "go.mod"), "module example.com/agent\n")
	scenario := filepath.Join(mod, "testdata", "evals", "weather", "weather-retry.yaml")
	writeTestFile(t, scenario, okScenario)
	golden := filepath.Join(mod, "testdata", "evals", "weather", "weather-retry.golden.yaml")

	update := func(dir string, args ...string) []byte {
		t.Helper()
		t.Chdir(dir)
		if err := os.Remove(golden); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(t, append([]string{"replay", "--update"}, args...)...)
		if code != exitOK {
			t.Fatalf("in %s: evalrun replay --update %v: exit %d\n%s%s", dir, args, code, out, errOut)
		}
		data, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	weather := filepath.Dir(scenario)
	first := update(mod, "testdata/evals")
	if !strings.HasPrefix(string(first), "name: testdata/evals/weather/weather-retry\n") {
		t.Fatalf("the name is not relative to the module root:\n%s", first)
	}
	for _, inv := range []struct {
		dir  string
		args []string
	}{
		{mod, []string{"testdata/evals/weather/weather-retry.yaml"}},
		{mod, []string{"testdata/evals/weather"}},
		{weather, []string{"."}},
		{weather, []string{"weather-retry.yaml"}},
		{filepath.Join(mod, "testdata"), []string{"evals"}},
	} {
		if got := update(inv.dir, inv.args...); string(got) != string(first) {
			t.Errorf("in %s, evalrun replay --update %v wrote a different golden:\n%s\nwant:\n%s", inv.dir, inv.args, got, first)
		}
		// And replaying it, not updating, passes from everywhere else.
		t.Chdir(weather)
		if code, out, _ := runCmd(t, "replay", "weather-retry.yaml"); code != exitOK {
			t.Errorf("replay from inside the folder after updating from %s: exit %d\n%s", inv.dir, code, out)
		}
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHintsNameTheProgram: the hints of replay name the program the user
// runs (a main of their own such as supportrun), from os.Args[0]; a test
// binary or go run's temporary name is evalrun.
func TestHintsNameTheProgram(t *testing.T) {
	old := os.Args[0]
	t.Cleanup(func() { os.Args[0] = old })
	for arg, want := range map[string]string{
		"/usr/local/bin/supportrun":   "supportrun",
		"supportrun.exe":              "supportrun",
		"/tmp/go-build1/evalrun.test": "evalrun",
	} {
		os.Args[0] = filepath.FromSlash(arg)
		if got := progName(); got != want {
			t.Errorf("progName() with os.Args[0] = %q: %q; want %q", arg, got, want)
		}
	}
	os.Args[0] = "/usr/local/bin/supportrun"
	dir := newScenarios(t, map[string]string{"one.yaml": okScenario, "live.yaml": "format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n"})
	code, out, errOut := runCmd(t, "replay", dir)
	for _, want := range []string{
		"run `supportrun replay --update` to write it",
		"record one with `supportrun record --model PROVIDER/MODEL " + filepath.Join(dir, "live.yaml") + "`",
	} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the output lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if code == exitOK {
		t.Error("replay passed without a golden and a tape")
	}
}
