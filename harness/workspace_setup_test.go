package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestWorkspaceSetupErrors checks the class of bad setup.workspace values:
// each is refused when the scenario loads, at the line of the offending key,
// saying what is wrong: a from that leaves the folder tree (by "..", by an
// absolute path, through a symbolic link), one that is missing or a file, and
// files entries that leave the workspace, are empty, name the root or name
// one file twice.
func TestWorkspaceSetupErrors(t *testing.T) {
	tree := t.TempDir() // no go.mod above it: the scenario's folder confines
	dir := filepath.Join(tree, "group")
	for _, d := range []string{"seed", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "seed", "a.txt"), "a\n")
	writeFile(t, filepath.Join(dir, "plain.txt"), "p\n")
	if err := os.Symlink(filepath.Join(tree, "elsewhere"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("seed", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	head := "format: tapeloop/v1\nsetup:\n  workspace:\n"
	cases := []struct{ name, workspace, want string }{
		{"from climbs out", "    from: ../../../../etc/ssl\n",
			`$FILE:4: setup.workspace.from: "../../../../etc/ssl" leads outside the scenario's folder; a seed tree must be inside it`},
		{"from climbs to a sibling", "    from: ../elsewhere\n",
			`$FILE:4: setup.workspace.from: "../elsewhere" leads outside the scenario's folder; a seed tree must be inside it`},
		{"from is absolute", "    from: /etc\n",
			`$FILE:4: setup.workspace.from: "/etc" is an absolute path; give a folder relative to the scenario's folder`},
		{"from is a link out", "    from: out\n",
			`$FILE:4: setup.workspace.from: "out" leads outside the scenario's folder through a symbolic link; a seed tree must be inside it`},
		{"from is missing", "    from: nowhere\n",
			`$FILE:4: setup.workspace.from: "nowhere" does not exist (it is resolved against the scenario's folder)`},
		{"from is a file", "    from: plain.txt\n",
			`$FILE:4: setup.workspace.from: "plain.txt" is a regular file, not a folder`},
		{"from is empty", "    from: \"\"\n",
			`$FILE:4: setup.workspace.from: empty (name a folder relative to the scenario's folder, or leave from out)`},
		{"file climbs out", "    files:\n      a.txt: x\n      ../../x: y\n",
			`$FILE:6: setup.workspace.files: "../../x" leads outside the workspace`},
		{"file is absolute", "    files:\n      /etc/passwd: y\n",
			`$FILE:5: setup.workspace.files: "/etc/passwd" leads outside the workspace`},
		{"file name empty", "    files:\n      \"\": y\n",
			`$FILE:5: setup.workspace.files: empty file name`},
		{"file names the root", "    files:\n      ./: y\n",
			`$FILE:5: setup.workspace.files: "./" names the workspace folder, not a file`},
		{"file named twice with dot slash", "    files:\n      a.txt: x\n      ./a.txt: y\n",
			`$FILE:6: setup.workspace.files: "./a.txt" names the same file as "a.txt" on line 5`},
		{"file named twice with dot dot", "    files:\n      a.txt: x\n      b/../a.txt: y\n",
			`$FILE:6: setup.workspace.files: "b/../a.txt" names the same file as "a.txt" on line 5`},
		{"file named twice with double slash", "    files:\n      d/a.txt: x\n      d//a.txt: y\n",
			`$FILE:6: setup.workspace.files: "d//a.txt" names the same file as "d/a.txt" on line 5`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			writeFile(t, path, head+c.workspace+minimal)
			_, err := scenario.Load(path)
			want := strings.ReplaceAll(c.want, "$FILE", path)
			if err == nil || err.Error() != want {
				t.Fatalf("Load:\n got %v\nwant %s", err, want)
			}
			if !errors.Is(err, scenario.ErrScenario) {
				t.Errorf("%v does not wrap ErrScenario", err)
			}
		})
	}
	t.Run("a link that stays inside is followed", func(t *testing.T) {
		path := filepath.Join(dir, "inside.yaml")
		writeFile(t, path, head+"    from: in\n"+minimal)
		s, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(s, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWorkspaceSetupRunErrors checks the errors found only when the
// workspace is built carry the file and line: a seed file that is too large,
// a files entry that collides with another (a file where a folder must be).
func TestWorkspaceSetupRunErrors(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	writeFile(t, filepath.Join(seed, "ok.txt"), "ok\n")
	big, err := os.Create(filepath.Join(seed, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(4 << 30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	big.Close()
	if err := syscall.Mkfifo(filepath.Join(seed, "pipe"), 0o644); err != nil {
		t.Logf("no named pipe in the seed tree: %v", err)
	}
	cases := []struct{ name, text, want string }{
		{"huge seed file", "format: tapeloop/v1\nsetup:\n  workspace:\n    from: seed\n" + minimal,
			"$FILE:4: setup.workspace.from: reading big.bin: file too large: more than the limit of 16777216 bytes"},
		{"file under a file", "format: tapeloop/v1\nsetup:\n  workspace:\n    files:\n      a: x\n      a/b: y\n" + minimal,
			"$FILE:6: setup.workspace.files.a/b: write a/b: file exists"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			writeFile(t, path, c.text)
			s, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(s, nil)
			if want := strings.ReplaceAll(c.want, "$FILE", path); err == nil || err.Error() != want {
				t.Fatalf("Validate:\n got %v\nwant %s", err, want)
			}
		})
	}
}
