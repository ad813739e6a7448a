// Package replay records and replays the model side of a tool-calling run:
// it serves, records and rebases the tapes package tape defines and
// encodes (see there for the format).
//
// A Model serves a tape's entries in order and fails closed: a request that
// differs from what the tape recorded (each part only when recorded) fails
// with ErrDiverged and a diff (of the prompt, per tool of its description
// and schema, of the messages), a
// request past the end fails with ErrTapeExhausted, Unused names the entries
// a run left, and nothing ever goes to the network. A Recorder wraps a live model and records a tape from it,
// redacting secrets from every string of every entry before anything is
// kept (see redact.Redactor: known values in any encoding, key shapes, bearer
// tokens and credential headers).
//
//	rec := replay.NewRecorder(live, nil)
//	// ... run the agent with rec as its model ...
//	if err := tape.Save("testdata/weather.yaml", rec.Tape()); err != nil { ... }
//
//	tp, err := tape.Load("testdata/weather.yaml")
//	model := replay.NewModel(tp, nil)
//	// ... run the agent with model; same responses, no network ...
package replay
