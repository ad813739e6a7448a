package bridge

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// RecordOptions configures Record. A nil *RecordOptions is the zero value.
type RecordOptions struct {
	// Recorder configures the recording (its redactor above all); nil
	// means replay's defaults, which redact the known secrets.
	Recorder *replay.RecorderOptions
	// Run configures the run; its Model is replaced by the recorder.
	Run *harness.RunOptions
}

// Record runs agent on the bridged scenario s with model (a live one)
// answering its calls through a replay.Recorder, and returns the outcome
// and the tape recorded: what the model saw, redacted, each answer or
// provider error, and in a conversation each user turn where it was
// spoken (the tape's user turns drive a live run, see Run.NextUser).
// WriteRecording puts the tape into the scenario's file.
func Record(ctx context.Context, s *scenario.Scenario, agent Agent, model llm.Model, opts *RecordOptions) (*harness.Outcome, *tape.Tape, error) {
	if opts == nil {
		opts = &RecordOptions{}
	}
	rec := replay.NewRecorder(model, opts.Recorder)
	var ro harness.RunOptions
	if opts.Run != nil {
		ro = *opts.Run
	}
	ro.Model = rec
	o, err := Runner(agent, nil)(ctx, s, &ro)
	if err != nil {
		return nil, nil, err
	}
	tp := rec.Tape()
	tp.Entries = o.WithUserTurns(tp.Entries, rec.Redactor())
	if ro.User == nil {
		// The tape's user turns the run never reached stay, at its end.
		spoken := 0
		for _, t := range o.Turns {
			if t.User != nil {
				spoken++
			}
		}
		for _, u := range s.UserTurns()[min(spoken, len(s.UserTurns())):] {
			rec.Redactor().RedactMessage(&u)
			tp.Entries = append(tp.Entries, tape.Entry{User: &u})
		}
	}
	return o, tp, nil
}

// WriteRecording replaces the tape (and the offered block, when the tape
// has one) of the scenario file at path with tape's, in place (comments,
// key order and the rest of the file kept), atomically.
func WriteRecording(path string, tp *tape.Tape) error {
	src, err := regularfile.Read(path, scenario.MaxScenarioSize)
	if err != nil {
		return err
	}
	out, err := scenario.SetTape(src, path, tp.Entries)
	if err == nil && tp.Offered != nil {
		out, err = scenario.SetValue(out, path, []string{"offered"}, tape.EncodeOffered(tp.Offered))
	}
	if err != nil {
		return fmt.Errorf("writing the recording: %w", err)
	}
	return atomicfile.WriteFile(path, out)
}
