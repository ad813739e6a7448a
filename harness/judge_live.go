package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
)

// ErrNoJudgeModel is wrapped by the error for an expect.judge item that
// names no model when no default judge model was given (--judge-model).
var ErrNoJudgeModel = errors.New("no judge model")

// JudgeOptions configures JudgeLive.
type JudgeOptions struct {
	// Model returns the judge model of a name ("PROVIDER/MODEL"), opened,
	// with whatever rate gate, retries and accounting the caller puts
	// around it. Required.
	Model func(name string) (llm.Model, error)
	// Default is the judge model of an item that names none; empty means
	// such an item is an error wrapping ErrNoJudgeModel.
	Default string
	// Redactor redacts what the verdicts keep (the judged text, the reason,
	// the request); nil means replay.NewRedactor(nil).
	Redactor *replay.Redactor
}

// JudgeModels returns the judge models the expect.judge items of s call,
// each once, in the order the items name them: an item's model, or def
// when it names none. An item naming none when def is empty is an error
// wrapping ErrNoJudgeModel that names its file and line.
func JudgeModels(s *scenario.Scenario, def string) ([]string, error) {
	if s.Expect == nil {
		return nil, nil
	}
	var out []string
	for i, item := range s.Expect.Judges {
		name := item.Model
		if name == "" {
			name = def
		}
		if name == "" {
			return nil, fmt.Errorf("%s: expect.judge[%d]: %w: the item names no model and none was given (--judge-model PROVIDER/MODEL)", s.At(item.Line), i, ErrNoJudgeModel)
		}
		if !contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// JudgeLive asks a judge model for the verdict on each expect.judge item
// of s, in order, about the outcome o of a live run: one request per item
// (JudgeRequest), its answer read by ParseVerdict. It sets o.Judged and
// returns the verdicts, redacted, as a scenario's judge: section records
// them, each with the request's messages (JudgePrompt and the user
// message). A model that cannot be opened, a call that fails, or an answer
// that is not a verdict is an error naming the item's file and line (the
// trial is an error, never a pass); o.Judged is then left nil.
func JudgeLive(ctx context.Context, s *scenario.Scenario, o *Outcome, opts *JudgeOptions) ([]replay.Verdict, error) {
	if s.Expect == nil || len(s.Expect.Judges) == 0 {
		return nil, nil
	}
	red := opts.Redactor
	if red == nil {
		red = replay.NewRedactor(nil)
	}
	verdicts := make([]replay.Verdict, 0, len(s.Expect.Judges))
	judged := make([]JudgeResult, 0, len(s.Expect.Judges))
	for i, item := range s.Expect.Judges {
		at := fmt.Sprintf("%s: expect.judge[%d]", s.At(item.Line), i)
		name := item.Model
		if name == "" {
			name = opts.Default
		}
		if name == "" {
			return nil, fmt.Errorf("%s: %w: the item names no model and none was given (--judge-model PROVIDER/MODEL)", at, ErrNoJudgeModel)
		}
		m, err := opts.Model(name)
		if err != nil {
			return nil, fmt.Errorf("%s: opening the judge %s: %w", at, name, err)
		}
		text := JudgedText(s, o, item.On)
		req := JudgeRequest(item.Rubric, item.On, text)
		user := req.Messages[1].Clone()
		resp, err := m.Generate(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("%s: the judge %s: %w", at, name, err)
		}
		score, pass, reason, err := ParseVerdict(resp.Message.Content)
		if err != nil {
			return nil, fmt.Errorf("%s: the judge %s: %w", at, name, err)
		}
		v := replay.Verdict{Rubric: item.Rubric, Model: name, On: item.On, Judged: text, Score: score, Pass: pass, Reason: reason,
			Request: &replay.RequestSummary{Messages: []llm.Message{req.Messages[0].Clone(), user}}}
		red.RedactVerdict(&v)
		verdicts = append(verdicts, v)
		c := v.Clone()
		judged = append(judged, JudgeResult{Verdict: &c})
	}
	o.Judged = judged
	return verdicts, nil
}
