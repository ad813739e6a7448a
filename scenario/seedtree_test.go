package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestWorkspaceFromConfinement: setup.workspace.from must stay inside the
// module holding the scenario (a go.mod above it, however far), else the
// nearest folder named scenarios, else the scenario's own folder; the error
// says which. A go.mod that is a folder does not make a module.
func TestWorkspaceFromConfinement(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, dir := range []string{"mod/seed", "mod/a/b", "tree/scenarios/seed", "plain/seed", "outside", "fake/go.mod", "fake/x"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(dir)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("mod/go.mod", "module example.com/m\n")
	from := func(rel string) string {
		return "format: tapeloop/v1\nsetup:\n  workspace: {from: " + rel + "}\n" + minimal
	}
	cases := []struct{ file, from, want string }{
		{"mod/a/b/s.yaml", "../../seed", ""},
		{"mod/a/b/s.yaml", "../../../outside", "leads outside the module holding the scenario"},
		{"tree/scenarios/x/s.yaml", "../seed", ""},
		{"tree/scenarios/x/s.yaml", "../../../outside", "leads outside the scenarios folder"},
		{"plain/s.yaml", "seed", ""},
		{"plain/s.yaml", "..", "leads outside the scenario's folder"},
		{"plain/s.yaml", "../outside", "leads outside the scenario's folder"},
		{"fake/x/s.yaml", "../../outside", "leads outside the scenario's folder"},
		{"plain/s.yaml", "/etc", "is an absolute path"},
		{"plain/s.yaml", `""`, "empty (name a folder"},
		{"plain/s.yaml", "s.yaml", `"s.yaml" is a regular file, not a folder`},
	}
	for _, c := range cases {
		path := write(c.file, from(c.from))
		s, err := scenario.Load(path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s with from %s: %v", c.file, c.from, err)
		case c.want == "" && s.Setup.Workspace.From != filepath.Join(filepath.Dir(path), filepath.FromSlash(c.from)):
			t.Errorf("%s with from %s: From = %q", c.file, c.from, s.Setup.Workspace.From)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "setup.workspace.from")):
			t.Errorf("%s with from %s: error %v; want setup.workspace.from: ... %s", c.file, c.from, err, c.want)
		}
	}
	// A link inside the scenario's folder that leads out of it.
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(root, "plain", "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := scenario.Load(write("plain/s.yaml", from("link")))
	if err == nil || !strings.Contains(err.Error(), `"link" leads outside the scenario's folder through a symbolic link`) {
		t.Errorf("from a link leading out: %v", err)
	}
}

// TestWorkspaceFromLeavesNoFileOpen: loading a scenario with a seed tree
// keeps no descriptor open, so a process that loads scenarios again and
// again (a watch, an editor's lint) does not run out of them.
func TestWorkspaceFromLeavesNoFileOpen(t *testing.T) {
	fds := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("counting open files needs /proc/self/fd: %v", err)
		}
		return len(entries)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "seed"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	text := []byte("format: tapeloop/v1\nsetup:\n  workspace: {from: seed}\n" + minimal)
	before := fds()
	for range 50 {
		if _, err := scenario.Parse(text, file, "s"); err != nil {
			t.Fatal(err)
		}
	}
	if after := fds(); after > before {
		t.Errorf("%d files open after loading the scenario 50 times, %d before", after, before)
	}
}
