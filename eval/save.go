package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// SaveTrial writes trial t as a complete scenario under dir, so that
// `evalrun replay` reproduces it with no model: the original file with its
// setup and expect block as written, `tape:` replaced by the trial's tape
// (with request summaries), `judge:` by the judges' verdicts (when its
// expect.judge items were judged), `setup.seed` set to the trial's seed, `name`
// set to NAME/MODEL/trial-N (the model's slash made a dash), and
// `setup.workspace.from` pointed at the same tree from the new place. It then
// replays the saved scenario once to write its golden, and returns the
// saved file's path: dir/NAME/MODEL/trial-N.yaml. opts says how to replay
// it; nil means natively with the fixtures only.
//
// The replay checks the expect block too: a saved failing trial fails its
// replay with the same expectation messages as the live trial did (naming
// the saved file). A saved scenario whose replay leaves its tape (an agent
// whose requests are not the same twice), or whose golden the replay does
// not write (harness.ErrNotUpdated), is an error: it would not replay.
func SaveTrial(ctx context.Context, dir string, t *Trial, opts *SaveOptions) (string, error) {
	if opts == nil {
		opts = &SaveOptions{}
	}
	s := t.Scenario
	model := strings.ReplaceAll(t.Model, "/", "-")
	name := fmt.Sprintf("%s/%s/trial-%d", s.Name, model, t.Report.Trial)
	path := filepath.Join(dir, filepath.FromSlash(name)+".yaml")
	src, err := os.ReadFile(s.Path)
	if err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	out, err := scenario.SetTape(src, s.Path, t.Tape.Entries)
	if err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	// The author's scenario is copied: a secret written inline anywhere in
	// it (a workspace file, the input, the description) is redacted as the
	// tape is.
	if out, err = scenario.RedactAllStrings(out, s.Path, opts.redactor().Quiet); err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	if t.Tape.Offered != nil {
		if out, err = scenario.SetValue(out, s.Path, []string{"offered"}, tape.EncodeOffered(t.Tape.Offered)); err != nil {
			return "", fmt.Errorf("saving trial %s: %w", name, err)
		}
	}
	if len(t.Tape.Verdicts) > 0 {
		judge, err := tape.EncodeVerdicts(t.Tape.Verdicts)
		if err == nil {
			out, err = scenario.SetValue(out, s.Path, []string{"judge"}, judge)
		}
		if err != nil {
			return "", fmt.Errorf("saving trial %s: %w", name, err)
		}
	}
	if out, err = scenario.SetValue(out, s.Path, []string{"name"}, yamlx.Text(name)); err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	if out, err = setSeed(out, s.Path, s.Setup.Seed); err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	if from := s.Setup.Workspace.From; from != "" {
		rel, err := relativeFrom(filepath.Dir(path), from)
		if err == nil && !within(scenario.SeedBound(path), from) {
			// Saved outside the module (or scenarios folder) that holds
			// the seed tree, the saved file may not point back at it: a
			// copy goes beside the trials.
			seed := filepath.Join(filepath.Dir(filepath.FromSlash(name)), "testdata", "seed")
			err = copySeed(dir, seed, &s.Setup.Workspace)
			rel = "testdata/seed"
		}
		if err != nil {
			return "", fmt.Errorf("saving trial %s: setup.workspace.from: %w", name, err)
		}
		if out, err = scenario.SetValue(out, s.Path, []string{"setup", "workspace", "from"}, yamlx.Text(rel)); err != nil {
			return "", fmt.Errorf("saving trial %s: %w", name, err)
		}
	}
	if s.Setup.Agent != nil {
		// $SCENARIO_DIR in the agent's command and env names the author's
		// folder, relative to the saved file's.
		rel, err := relativeFrom(filepath.Dir(path), filepath.Dir(s.Path))
		if err == nil {
			out, err = scenario.RedactStrings(out, s.Path, []string{"setup", "agent"}, func(v string) string {
				return os.Expand(v, func(name string) string {
					if name == "SCENARIO_DIR" {
						return "${SCENARIO_DIR}/" + rel
					}
					return "$" + name // as the bridge leaves it
				})
			})
		}
		if err != nil {
			return "", fmt.Errorf("saving trial %s: setup.agent: %w", name, err)
		}
	}
	if err := scenario.CheckReadable(path, out); err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	if err := writeConfined(dir, filepath.FromSlash(name)+".yaml", out); err != nil {
		return "", fmt.Errorf("saving trial %s: %w", name, err)
	}
	saved, err := scenario.Load(path)
	if err != nil {
		return "", fmt.Errorf("saving trial %s: the saved scenario does not load: %w", name, err)
	}
	verify := opts.Verify
	if verify == nil {
		verify = harness.VerifyScenario
	}
	v := verify(ctx, saved, &harness.VerifyOptions{Update: true, Tools: opts.Tools, Redactor: opts.redactor()})
	if v.Err != nil {
		return "", fmt.Errorf("saving trial %s: writing its golden: %w", name, v.Err)
	}
	if v.Outcome != nil && v.Outcome.Diverged {
		return "", fmt.Errorf("saving trial %s: %w: %s", name, ErrNotReplayable, v.Outcome.Error)
	}
	// A replay in which the agent could not do its job (it stopped before
	// its first model request, left entries of the tape unused) writes no
	// golden: the saved scenario would fail every replay for a reason the
	// trial does not show.
	for _, f := range v.Failures {
		if errors.Is(f, harness.ErrNotUpdated) {
			return "", fmt.Errorf("saving trial %s: %w: %s", name, ErrNotReplayable, f.Problem)
		}
	}
	if live := t.Report.Termination; v.Outcome != nil && live != "" && string(v.Outcome.Termination) != live {
		return "", fmt.Errorf("saving trial %s: %w: the trial ended with %s, its replay with %s: %s", name, ErrNotReplayable, live, v.Outcome.Termination, v.Outcome.Error)
	}
	return path, nil
}

// ErrNotReplayable is wrapped by SaveTrial's error when the saved scenario's
// replay left its tape, with the divergence, ended otherwise than the
// trial did (an agent program that cannot start there, say), or could not
// do its job, so that its golden was not written (harness.ErrNotUpdated).
var ErrNotReplayable = errors.New("the saved scenario does not replay")

// SaveOptions configures SaveTrial. A nil *SaveOptions is the zero value:
// a native replay with the fixtures only.
type SaveOptions struct {
	// Tools are the user's tool factories the scenario may name; nil means
	// the fixtures only.
	Tools []*toolkit.Factory
	// Verify replays the saved scenario and judges it, writing its golden
	// (opts.Update is set); nil means harness.VerifyScenario. evalrun gives
	// harness.VerifyScenario with its agents (harness.VerifyOptions.Agents),
	// as Options.Run ran the trials.
	Verify func(ctx context.Context, s *scenario.Scenario, opts *harness.VerifyOptions) *harness.Verdict
	// Redactor redacts what the saved scenario copies from the author's
	// (every string value of it); nil means
	// redact.Default(), tapeloop's redaction policy. evalrun gives
	// the one its --redact-env and --redact flags built.
	Redactor *redact.Redactor
}

// redactor is o.Redactor, or the default policy's.
func (o *SaveOptions) redactor() *redact.Redactor {
	if o.Redactor != nil {
		return o.Redactor
	}
	return redact.Default()
}

// setSeed sets setup.seed, adding a setup block when the file has none.
func setSeed(src []byte, file string, seed int64) ([]byte, error) {
	out, err := scenario.SetValue(src, file, []string{"setup", "seed"}, intNode(seed))
	if err == nil || hasSetup(src) {
		// A setup that cannot take the seed is an error, never replaced.
		return out, err
	}
	setup := yamlx.Map()
	yamlx.Add(setup, "seed", intNode(seed))
	return scenario.SetValue(src, file, []string{"setup"}, setup)
}

// within reports whether path lies inside dir (both made absolute).
func within(dir, path string) bool {
	absDir, err1 := filepath.Abs(dir)
	abs, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(absDir, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// maxSeedFile bounds one file of a seed tree copied beside saved trials,
// as the seed tree is bounded when a run reads it.
const maxSeedFile = 16 << 20

// copySeed copies the regular files of the seed tree w (setup.workspace.from)
// to dir/rel, confined to dir as the trials are.
func copySeed(dir, rel string, w *scenario.WorkspaceSetup) error {
	root, err := w.OpenFrom()
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := regularfile.ReadIn(root, p, maxSeedFile)
		if err != nil {
			return err
		}
		return writeConfined(dir, filepath.Join(rel, filepath.FromSlash(p)), data)
	})
}

// hasSetup reports whether the scenario text src has a top-level setup key.
func hasSetup(src []byte) bool {
	var doc struct {
		Setup *yaml.Node `yaml:"setup"`
	}
	return yaml.Unmarshal(src, &doc) == nil && doc.Setup != nil
}

func relativeFrom(dir, from string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absFrom, err := filepath.Abs(from)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absFrom)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// writeConfined writes data to dir/rel atomically (a temporary file
// renamed over it), through an os.Root at dir, so that nothing in rel (a
// ".." a name should not have, a symbolic link) leads outside dir. dir is
// created when missing.
func writeConfined(dir, rel string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	// Named to fit beside any name rel may have (atomicfile.TempPrefix).
	tmp := filepath.Join(filepath.Dir(rel), atomicfile.TempPrefix(filepath.Base(rel))+strconv.Itoa(os.Getpid()))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // a no-op after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}

func intNode(i int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(i, 10)}
}
