package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

type verdict struct {
	Answer     string `json:"answer"`
	Confidence int    `json:"confidence"`
	Notes      string `json:"notes,omitempty"`
}

func TestRunStructured(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answers   []string
		repairer  tools.Repairer
		want      verdict
		errIs     error
		problems  []string // in the error and in the correction request
		reason    agent.Reason
		modelCall int
	}{
		{
			name:      "valid",
			answers:   []string{`{"answer":"42","confidence":9}`},
			want:      verdict{Answer: "42", Confidence: 9},
			reason:    agent.ReasonFinalText,
			modelCall: 3,
		},
		{
			name:      "repaired",
			answers:   []string{`{"answer":"42","confidence":9} -- hope that helps`},
			repairer:  trimRepairer{},
			want:      verdict{Answer: "42", Confidence: 9},
			reason:    agent.ReasonFinalText,
			modelCall: 3,
		},
		{
			name:      "invalid then corrected",
			answers:   []string{`{"answer":42}`, `{"answer":"42","confidence":7,"notes":"fixed"}`},
			want:      verdict{Answer: "42", Confidence: 7, Notes: "fixed"},
			problems:  []string{`/: required: missing properties: ["confidence"]`, `/answer: type: 42 has type "integer", want "string"`},
			reason:    agent.ReasonFinalText,
			modelCall: 4,
		},
		{
			name:      "invalid twice",
			answers:   []string{`{"answer":42}`, `{"answer":"42","confidence":"high","extra":1}`},
			errIs:     agent.ErrStructuredAnswer,
			problems:  []string{`/: required: missing properties: ["confidence"]`, `/answer: type: 42 has type "integer", want "string"`},
			reason:    agent.ReasonStructuredAnswer,
			modelCall: 4,
		},
		{
			name:      "not JSON without a repairer",
			answers:   []string{`The answer is 42.`, `still not json`},
			errIs:     agent.ErrStructuredAnswer,
			problems:  []string{"the answer is not valid JSON"},
			reason:    agent.ReasonStructuredAnswer,
			modelCall: 4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := []step{respond(call("c1", "echo", `{}`)), final("I think it is 42.")}
			for _, a := range tc.answers {
				steps = append(steps, final(a))
			}
			model := script(steps...)
			log := &eventLog{}
			run, got, err := agent.RunStructured[verdict](context.Background(), model, newRegistry(t, echo("echo")),
				[]llm.Message{llm.UserMessage("what is it?")}, &agent.Options{Clock: virtual(), Repairer: tc.repairer, Observer: log.observe})
			if tc.errIs == nil && err != nil || tc.errIs != nil && !errors.Is(err, tc.errIs) {
				t.Fatalf("err = %v, want %v", err, tc.errIs)
			}
			if got != tc.want {
				t.Errorf("answer %+v, want %+v", got, tc.want)
			}
			if run.Termination.Reason != tc.reason || run.ModelCalls != tc.modelCall || len(run.Turns) != tc.modelCall {
				t.Errorf("reason %q, %d model calls, %d turns; want %q, %d", run.Termination.Reason, run.ModelCalls, len(run.Turns), tc.reason, tc.modelCall)
			}
			// Phase two: no tools, the schema, and the prompt carrying it.
			req := model.request(t, 3)
			if len(req.Tools) != 0 || len(req.ResponseSchema) == 0 {
				t.Fatalf("phase two request: tools %v, schema %s", req.ToolNames(), req.ResponseSchema)
			}
			var schema map[string]any
			if err := json.Unmarshal(req.ResponseSchema, &schema); err != nil || schema["type"] != "object" {
				t.Errorf("schema %s (%v)", req.ResponseSchema, err)
			}
			last, _ := req.LastMessage()
			if last.Role != llm.RoleUser || last.Content != agent.StructuredAnswerPrompt+string(req.ResponseSchema) {
				t.Errorf("phase two asked %q", last.Content)
			}
			if n := len(req.Messages); req.Messages[n-2].Content != "I think it is 42." {
				t.Errorf("the free-text answer is not in the history: %+v", req.Messages)
			}
			if len(tc.answers) == 2 {
				corr, _ := model.request(t, 4).LastMessage()
				for _, p := range tc.problems {
					if !strings.Contains(corr.Content, p) {
						t.Errorf("correction %q does not name %q", corr.Content, p)
					}
				}
				if len(model.request(t, 4).Tools) != 0 || len(model.request(t, 4).ResponseSchema) == 0 {
					t.Error("the correction request offers tools or lacks the schema")
				}
			}
			if tc.errIs != nil {
				for _, p := range tc.problems[:1] {
					if !strings.Contains(err.Error(), p) && tc.name != "invalid twice" {
						t.Errorf("error %q does not name %q", err, p)
					}
				}
				if tc.name == "invalid twice" && !strings.Contains(err.Error(), `/confidence: type: high has type "string", want "integer"`) {
					t.Errorf("error %q does not name the second answer's problems", err)
				}
			}
			kinds := log.kinds()
			if kinds[len(kinds)-1] != "run_end" || strings.Count(strings.Join(kinds, " "), "run_end") != 1 {
				t.Errorf("events %q", kinds)
			}
			if got := strings.Count(strings.Join(kinds, " "), "model_request"); got != tc.modelCall {
				t.Errorf("%d model_request events, want %d", got, tc.modelCall)
			}
			if ft := run.FinalText(); ft != tc.answers[len(tc.answers)-1] {
				t.Errorf("FinalText %q", ft)
			}
		})
	}
}

func TestRunStructuredWithoutFinalText(t *testing.T) {
	steps := []step{respond(call("c1", "echo", `{}`)), respond(call("c2", "echo", `{}`)), final("never")}
	model := script(steps...)
	run, got, err := agent.RunStructured[verdict](context.Background(), model, newRegistry(t, echo("echo")), nil,
		&agent.Options{Clock: virtual(), MaxIterations: 2})
	if !errors.Is(err, agent.ErrMaxIterations) || run.Termination.Reason != agent.ReasonMaxIterations {
		t.Fatalf("err %v, reason %q", err, run.Termination.Reason)
	}
	if model.count() != 2 || got != (verdict{}) {
		t.Errorf("model called %d times, answer %+v; want no phase two", model.count(), got)
	}
	for _, r := range model.requests {
		if r.ResponseSchema != nil {
			t.Error("a request carried a response schema")
		}
	}
}

func TestRunStructuredModelErrorInPhaseTwo(t *testing.T) {
	boom := errors.New("overloaded")
	model := script(final("42"), step{err: boom})
	run, _, err := agent.RunStructured[verdict](context.Background(), model, newRegistry(t), nil, nil)
	if !errors.Is(err, boom) || !errors.Is(err, agent.ErrModel) || run.Termination.Reason != agent.ReasonModelError {
		t.Fatalf("err %v, reason %q", err, run.Termination.Reason)
	}
}

func TestRunStructuredRejectsAnUninferableType(t *testing.T) {
	run, _, err := agent.RunStructured[chan int](context.Background(), script(), newRegistry(t), nil, nil)
	if err == nil || run != nil {
		t.Fatalf("run %v, err %v; want an error and no run", run, err)
	}
}
