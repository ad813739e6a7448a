package evalrun

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// modeJudge replays the tape and asks only the judges (expect.judge).
const modeJudge = "judge"

// judgeCounter counts a judge model's calls and usage.
type judgeCounter struct {
	m     llm.Model
	mu    sync.Mutex
	calls int
	usage llm.Usage
}

func (j *judgeCounter) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := j.m.Generate(ctx, req)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls++
	if resp != nil {
		j.usage = j.usage.Add(resp.Usage)
	}
	return resp, err
}

// judgeRecording asks the judge models for the verdicts on the expect.judge
// items of s about the recorded outcome o, each model opened once with
// --base-url, retried as the recording's model is, and returns the
// verdicts for the file's judge: section (redacted) with the judge calls
// and their usage. A scenario with no expect.judge item returns nothing.
func (c *recordConfig) judgeRecording(ctx context.Context, e *env, s *scenario.Scenario, o *harness.Outcome) ([]tape.Verdict, int, llm.Usage, error) {
	if s.Expect == nil || len(s.Expect.Judges) == 0 {
		return nil, 0, llm.Usage{}, nil
	}
	opened := map[string]*judgeCounter{}
	open := func(name string) (llm.Model, error) {
		if j := opened[name]; j != nil {
			return j, nil
		}
		m, err := c.open(ctx, name, &llm.OpenOptions{BaseURL: c.baseURL})
		if err != nil {
			return nil, err
		}
		j := &judgeCounter{m: c.gateFor(e, name).Retrying(m, eval.DefaultModelRetries)}
		opened[name] = j
		return j, nil
	}
	verdicts, err := eval.JudgeLive(ctx, s, o, &eval.JudgeOptions{Model: open, Default: c.judgeModel, Redactor: c.redactor})
	calls, usage := 0, llm.Usage{}
	for _, j := range opened {
		calls += j.calls
		usage = usage.Add(j.usage)
	}
	return verdicts, calls, usage, err
}

// setVerdicts writes verdicts as the judge: section of the scenario text
// out (file names it in errors); no verdicts leave it as it is.
func setVerdicts(out []byte, file string, verdicts []tape.Verdict) ([]byte, error) {
	if len(verdicts) == 0 {
		return out, nil
	}
	node, err := tape.EncodeVerdicts(verdicts)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the judge: section: %w", file, err)
	}
	return scenario.SetValue(out, file, []string{"judge"}, node)
}

// judgeFile is record --mode judge for the scenario s at t: it replays the
// tape (no model), asks the judges about the replay's outcome, writes the
// judge: section in place and checks the scenario as replay does.
func (c *recordConfig) judgeFile(ctx context.Context, e *env, t target, s *scenario.Scenario, src []byte, r *recordResult) *recordResult {
	if s.Expect == nil || len(s.Expect.Judges) == 0 {
		r.status, r.reason = "skipped", "it has no expect.judge item"
		return r
	}
	if s.NoTape || !slices.ContainsFunc(s.Tape, func(e tape.Entry) bool { return e.User == nil }) {
		r.status, r.reason = "error", fmt.Sprintf("%s: --mode judge judges a recorded tape, and it has none: record it first (--mode once)", t.path)
		return r
	}
	o, err := e.run(ctx, s, &harness.RunOptions{Tools: e.tools})
	if err != nil {
		r.status, r.reason = "error", err.Error()
		return r
	}
	if o.Diverged || len(o.Unused) > 0 {
		r.status, r.reason = "failed", fmt.Sprintf("%s: the tape does not replay, so there is nothing to judge: %s %v", t.path, o.Error, o.Unused)
		return r
	}
	verdicts, calls, usage, err := c.judgeRecording(ctx, e, s, o)
	r.judgeCalls, r.judgeUsage = calls, usage
	if err != nil {
		r.status, r.reason = "failed", err.Error()+"; nothing written"
		return r
	}
	out, err := setVerdicts(src, t.path, verdicts)
	if err == nil {
		err = writeScenario(t.path, src, out)
	}
	if err != nil {
		r.status, r.reason = "error", err.Error()
		return r
	}
	r.status, r.written = "recorded", true
	c.verifyWritten(ctx, e, t, r)
	return r
}
