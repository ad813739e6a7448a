package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPlaceGolden: a place's folder is written by its name where the path
// ends (not inside a longer name), by either spelling (as given, links
// resolved), the longer of two nested places first; a program started by
// the path PATH gave it is named alone, another by its path.
func TestPlaceGolden(t *testing.T) {
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	places := []Place{{Path: tmp, Name: PlaceScenarioDir}, {Path: link, Name: PlaceWork}, {Path: "/", Name: "$ROOT"}}
	for _, tc := range []struct{ in, want string }{
		{work + "/a.txt\n", "$WORK/a.txt\n"},
		{link + "\n", "$WORK\n"},
		{work + "2/a\n", "$SCENARIO_DIR/work2/a\n"},
		{"'" + tmp + "/x: no'\n", "'$SCENARIO_DIR/x: no'\n"},
		{tmp + "_b/c\n", tmp + "_b/c\n"},
		{"fork/exec /nowhere/sh: denied\n", "fork/exec /nowhere/sh: denied\n"},
	} {
		if got := string(placeGolden([]byte(tc.in), places)); got != tc.want {
			t.Errorf("placeGolden(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		in := "error: 'fork/exec " + sh + ": argument list too long'\n"
		if got, want := string(placeGolden([]byte(in), nil)), "error: 'fork/exec sh: argument list too long'\n"; got != want {
			t.Errorf("placeGolden(%q) = %q, want %q", in, got, want)
		}
	}
}
