package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// goldenFrom copies the scenario text into a scenarios folder under root
// (the checkout's place on the machine), runs its command agent and
// returns the outcome's golden.
func goldenFrom(t *testing.T, root, text string) string {
	t.Helper()
	dir := filepath.Join(root, "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "places.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, path)
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	g, err := o.Golden(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(g)
}

// TestGoldenSameFromAnyFolder runs the same scenario from two folders: an
// agent that answers with its working directory (its workspace) and its
// scenario's folder, and an agent whose command cannot start (an
// environment too large for exec), whose error names the shell as
// exec.LookPath found it. The goldens are byte-identical, with $WORK and
// $SCENARIO_DIR for the folders and the shell by its name: nothing in a
// golden depends on where the checkout is or on the machine's PATH.
func TestGoldenSameFromAnyFolder(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the command with")
	}
	_ = sh
	tmp := t.TempDir()
	for _, tc := range []struct{ name, agent, want string }{
		{"folders", "    command: [sh, -c, 'pwd; echo \"$1\"/x', sh, $SCENARIO_DIR]\n", "$WORK\n  $SCENARIO_DIR/x"},
		{"exec", "    command: [sh, -c, 'true']\n    env: {BIG: " + strconv.Quote(strings.Repeat("x", 200<<10)) + "}\n", "fork/exec sh: argument list too long"},
	} {
		text := "format: tapeloop/v1\nsetup:\n  agent:\n" + tc.agent + "    timeout: 30s\ninput: [{role: user, content: hi}]\ntape: []\n"
		a := goldenFrom(t, filepath.Join(tmp, tc.name, "one"), text)
		b := goldenFrom(t, filepath.Join(tmp, tc.name, "two", "deeper"), text)
		if a != b {
			t.Errorf("%s: the goldens from two folders differ:\n%s\n---\n%s", tc.name, a, b)
		}
		if !strings.Contains(a, tc.want) || strings.Contains(a, tmp) || strings.Contains(a, os.TempDir()+"/") {
			t.Errorf("%s: the golden\n%s\nshould say %q and name no folder of the machine", tc.name, a, tc.want)
		}
	}
}
