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
