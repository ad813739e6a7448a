package evalrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// reviewNote heads the expect block that --new fills in.
const reviewNote = "REVIEW: pre-filled by evalrun record from what the model did.\n" +
	"Keep what must hold on every run, loosen or delete the rest."

// recordNew creates the scenario c.newPath: setup from --tools and
// --workspace, input from --system and --prompt, the recorded tape, and an
// expect block pre-filled from the run and marked for review.
func recordNew(ctx context.Context, e *env, c *recordConfig) int {
	path := c.newPath
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(e.stderr, "evalrun record --new: "+format+"\n", args...)
		return code
	}
	if c.prompt == "" {
		return fail(exitUsage, "--prompt is required (the user's message)")
	}
	if !strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, scenario.GoldenSuffix) {
		return fail(exitUsage, "%s: a scenario file name ends in .yaml (and not %s)", path, scenario.GoldenSuffix)
	}
	for _, name := range c.capture {
		if !slices.Contains(c.tools, name) {
			return fail(exitUsage, "--capture %s: not one of --tools", name)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		return fail(exitUsage, "%s already exists (record it again with: evalrun record --mode all %s)", path, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(exitUsage, "%v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(exitUsage, "%v", err)
	}
	doc, err := newScenarioNode(path, c)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	src, err := yamlx.Marshal(doc)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	s, err := scenario.Parse(src, path, scenario.DefaultName(path))
	if err == nil {
		err = harness.Validate(s, &harness.RunOptions{Tools: e.tools, Checks: e.checks})
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	model, err := c.open(ctx, c.model, &llm.OpenOptions{BaseURL: c.baseURL})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	lr := c.run(ctx, e, s, c.model, model, nil, nil)
	r := &recordResult{name: s.Name, path: path, status: "recorded", calls: lr.calls, usage: lr.usage, elapsed: lr.elapsed}
	switch {
	case ctx.Err() != nil:
		r.status, r.reason = "interrupted", "interrupted: nothing written"
	case lr.err != nil:
		r.status, r.reason = "error", lr.err.Error()
	case lr.failure != "":
		r.status, r.reason = "failed", fmt.Sprintf("%s: the recording failed: %s", path, lr.failure)
		if !c.keepFailed {
			r.reason += "; nothing written (--keep-failed writes it anyway)"
		}
	}
	if r.status == "recorded" || r.status == "failed" && c.keepFailed {
		if err := writeNewScenario(path, doc, lr, c); err != nil {
			r.status, r.reason = "error", err.Error()
		} else {
			r.written = true
			if !c.noGolden {
				r.verdict = harness.Verify(ctx, path, &harness.VerifyOptions{Update: true, Tools: e.tools, Checks: e.checks})
			}
		}
	}
	r.print(e)
	return c.summary(ctx, e, []*recordResult{r}, 1)
}

// newScenarioNode returns the new scenario's document with an empty tape.
func newScenarioNode(path string, c *recordConfig) (*yaml.Node, error) {
	root := yamlx.Map()
	yamlx.Add(root, "format", yamlx.Text(scenario.Format))
	yamlx.Add(root, "description", yamlx.Text("Recorded from "+c.model+"."))
	setup := yamlx.Map()
	if c.workspace != "" {
		abs, err := filepath.Abs(c.workspace)
		if err != nil {
			return nil, err
		}
		dir, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return nil, fmt.Errorf("--workspace: %w", err)
		}
		yamlx.Add(setup, "workspace", yamlx.Add(yamlx.Map(), "from", yamlx.Text(filepath.ToSlash(rel))))
	}
	tools := yamlx.Seq()
	for _, t := range c.tools {
		tools.Content = append(tools.Content, yamlx.Text(t))
	}
	if len(c.tools) > 0 {
		yamlx.Add(setup, "tools", tools)
	}
	if len(setup.Content) > 0 {
		yamlx.Add(root, "setup", setup)
	}
	input := yamlx.Seq()
	if c.system != "" {
		input.Content = append(input.Content, messageNode(llm.SystemMessage(c.system)))
	}
	input.Content = append(input.Content, messageNode(llm.UserMessage(c.prompt)))
	yamlx.Add(root, "input", input)
	yamlx.Add(root, "tape", yamlx.FlowSeq())
	return root, nil
}

func messageNode(m llm.Message) *yaml.Node {
	n := yamlx.Map()
	yamlx.Add(n, "role", yamlx.Text(string(m.Role)))
	yamlx.Add(n, "content", yamlx.Text(m.Content))
	return n
}

// writeNewScenario puts the tape and the pre-filled expect block into doc,
// the stand-ins of --capture into its setup, and writes it to path
// atomically.
func writeNewScenario(path string, doc *yaml.Node, lr *liveRun, c *recordConfig) error {
	entries, err := tape.EncodeEntries(lr.tape)
	if err != nil {
		return fmt.Errorf("%s: encoding the tape: %w", path, err)
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "tape" {
			doc.Content[i+1] = entries
			if lr.offeredBlock != nil {
				// What the model saw goes before the tape.
				block := yamlx.Add(yamlx.Map(), "offered", tape.EncodeOffered(lr.offeredBlock))
				doc.Content = slices.Insert(doc.Content, i, block.Content...)
			}
			break
		}
	}
	if lr.outcome != nil {
		yamlx.Add(doc, "expect", expectNode(lr.outcome, c.redactor))
		key := doc.Content[len(doc.Content)-2]
		key.HeadComment = reviewNote
	}
	out, err := yamlx.Marshal(doc)
	if err != nil {
		return fmt.Errorf("%s: encoding: %w", path, err)
	}
	// The blank line before each top-level key, as scenarios are written.
	text := string(out)
	for _, k := range []string{"setup:", "input:", "offered:", "tape:", "# REVIEW"} {
		text = strings.Replace(text, "\n"+k, "\n\n"+k, 1)
	}
	data := []byte(text)
	if len(c.capture) > 0 && lr.outcome != nil {
		if data, err = captureTools(data, path, c.capture, lr.outcome.Run, lr.offered, c.redactor, nil); err != nil {
			return err
		}
	}
	return scenario.WriteFile(path, data)
}

// expectNode fills an expect block from what happened: the termination,
// the number of model calls, the tools called in order, the files the run
// changed (null for a deleted one) and a short final text, redacted by red
// as the tape is (a replay executes the tape's redacted arguments).
func expectNode(o *harness.Outcome, red *redact.Redactor) *yaml.Node {
	n := yamlx.Map()
	yamlx.Add(n, "termination", yamlx.Text(string(o.Termination)))
	yamlx.Add(n, "iterations", yamlx.Int(o.Iterations))
	calls := yamlx.FlowSeq()
	var touched []string
	for _, t := range o.Turns {
		for _, c := range t.Calls {
			calls.Content = append(calls.Content, yamlx.Text(c.Name()))
			for _, ef := range c.Effects() {
				if ef.File == nil {
					continue
				}
				touched = append(touched, ef.File.Path)
				if ef.File.From != "" {
					touched = append(touched, ef.File.From)
				}
			}
		}
	}
	yamlx.Add(n, "tool_calls", calls)
	if o.Final != "" && len(o.Final) <= 200 && !strings.Contains(o.Final, "\n") {
		yamlx.Add(n, "final", yamlx.Add(yamlx.Map(), "equals", yamlx.Text(red.Redact(o.Final))))
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	if len(touched) > 0 {
		files := yamlx.Map()
		for _, p := range touched {
			i := slices.IndexFunc(o.Workspace, func(f harness.FileState) bool { return f.Path == p })
			if i < 0 {
				yamlx.Add(files, p, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
				continue
			}
			yamlx.Add(files, p, yamlx.Text(red.Redact(o.Workspace[i].Content)))
		}
		yamlx.Add(n, "files", files)
	}
	return n
}
