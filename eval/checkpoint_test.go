package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointDropsACutLine: a last line a kill cut short is dropped,
// and cut off the file so that the next trial starts a whole line; a
// scenario whose content changed keeps only its trials of the new content;
// a later line of the same trial replaces the earlier.
func TestCheckpointDropsACutLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	lines := `{"format":"` + CheckpointFormat + `","models":["m/a"],"trials":3,"scenarios":["s","u"]}
{"scenario":"s","model":"m/a","digest":"old","trial":{"trial":1,"status":"pass"}}
{"scenario":"s","model":"m/a","digest":"new","trial":{"trial":2,"status":"error"}}
{"scenario":"s","model":"m/a","digest":"new","trial":{"trial":2,"status":"fail"}}
{"scenario":"s","model":"m/a","digest":"new","trial":{"tri`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prev := c.Resumed()
	if prev == nil || len(prev.Scenarios) != 2 || prev.Summary.TrialsPerScenario != 3 {
		t.Fatalf("resumed %+v; want two rows of 3 trials", prev)
	}
	s := prev.Scenarios[0]
	if s.Digest != "new" || len(s.TrialsDetail) != 1 || s.TrialsDetail[0].Trial != 2 || s.TrialsDetail[0].Status != "fail" {
		t.Errorf("row %+v; want only trial 2 of the new content, failed", s)
	}
	if err := c.add("u", "m/a", "d", &prev.Scenarios[0].TrialsDetail[0]); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), `{"tri`+"\n") || strings.Count(string(data), "\n") != 5 || !strings.HasSuffix(string(data), "\n") {
		t.Errorf("the cut line was not cut off before appending:\n%s", data)
	}
}

// TestCheckpointRefusesOtherFiles: a file that is not a checkpoint is
// refused with ErrCheckpoint and the line.
func TestCheckpointRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	if err := os.WriteFile(path, []byte(`{"format":"tapeloop-eval/v1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenCheckpoint(path)
	if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("got %v; want ErrCheckpoint at %s:1", err, path)
	}
}

// TestCheckpointStartsAMissingFile: a checkpoint path with no file yet is
// a fresh run: nothing resumed, and the file is made on the first trial.
func TestCheckpointStartsAMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	c, err := OpenCheckpoint(path)
	if err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	defer c.Close()
	if prev := c.Resumed(); prev != nil {
		t.Errorf("resumed %+v from no file", prev)
	}
}

// TestCheckpointWithNoTrialResumesNothing: a checkpoint cut off after its
// first line, before any trial ended, resumes nothing, as a missing file
// does; one trial makes it resume.
func TestCheckpointWithNoTrialResumesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	start := `{"format":"` + CheckpointFormat + `","models":["m/a"],"trials":3,"scenarios":["s","u"]}` + "\n"
	for _, tc := range []struct {
		name, lines string
		resumed     bool
	}{
		{"no trial", start, false},
		{"one trial", start + `{"scenario":"u","model":"m/a","digest":"d","trial":{"trial":1,"status":"pass"}}` + "\n", true},
	} {
		if err := os.WriteFile(path, []byte(tc.lines), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if prev := c.Resumed(); (prev != nil) != tc.resumed {
			t.Errorf("%s: resumed %+v, want resumed %v", tc.name, prev, tc.resumed)
		}
		c.Close()
	}
}
