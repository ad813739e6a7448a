package replay

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// offeredWatch keeps a copy of each Offered it is shown, by address, so
// that a test can check later that none of them changed: an exchange
// hands the same Offered to every request that offers the same, and a
// Model skips comparing a pair it found alike, both of which hold only
// while no Offered is changed once built.
type offeredWatch map[*tape.Offered]*tape.Offered

func (w offeredWatch) see(offered ...*tape.Offered) {
	for _, o := range offered {
		if o != nil && w[o] == nil {
			w[o] = o.Clone()
		}
	}
}

// current checks that what x says the latest request offered is still
// what req, that request, offers: the Offered was not changed while the
// request was served, before the watch first saw it.
func (w offeredWatch) current(t *testing.T, x *exchange, req *llm.Request) {
	t.Helper()
	if want := tape.OfferedOf(req); !reflect.DeepEqual(x.current, want) {
		t.Errorf("what the request offered changed while it was served:\nwas %+v\nnow %+v", want, x.current)
	}
	w.see(x.first, x.current)
}

// model notes every Offered m holds: the tape's, the entries' changes,
// what it expects, what the requests offered, and the rebase steps'.
func (w offeredWatch) model(m *Model) {
	w.see(m.offered, m.expect, m.x.first, m.x.current, m.agreed[0], m.agreed[1])
	for _, e := range m.entries {
		if e.Request != nil {
			w.see(e.Request.Offered)
		}
	}
	if m.rb != nil {
		for _, st := range m.rb.steps {
			w.see(st.offered, st.change)
		}
	}
}

func (w offeredWatch) check(t *testing.T) {
	t.Helper()
	for o, was := range w {
		if !reflect.DeepEqual(o, was) {
			t.Errorf("an Offered changed after it was built:\nwas %+v\nnow %+v", was, o)
		}
	}
}

// secretSystem is a system prompt holding a key, which the recorder
// redacts, so that replay compares it through the tape's redaction.
const secretSystem = "You keep notes. Use key sk-live-abcdef0123456789abcdef."

// offers returns what an agent offers at each of its four requests: the
// tools change at the third (read_file's description), the fourth offers
// what the third did. changedAt, when not 0, changes the system prompt
// from that request on.
func offers(changedAt int) []agentSetup {
	out := make([]agentSetup, 4)
	for i := range out {
		a := baseAgent()
		a.system = secretSystem
		if i >= 2 {
			a.tools[1].Description = "Read a text file."
		}
		if changedAt > 0 && i >= changedAt {
			a.system = "You keep notes in full sentences."
		}
		out[i] = a
	}
	return out
}

// runOffers drives m with four requests of one growing conversation, the
// i-th offering offers[i], calling after with each one once m answered it;
// it returns the first error.
func runOffers(m llm.Model, offers []agentSetup, after func(*llm.Request)) error {
	var conv []llm.Message
	conv = append(conv, llm.UserMessage("Keep notes."))
	for _, a := range offers {
		tools := append([]llm.ToolDefinition(nil), a.tools...) // a copy each time, as an agent rebuilds them
		req := &llm.Request{Messages: append([]llm.Message{llm.SystemMessage(a.system)}, conv...), Tools: tools}
		resp, err := m.Generate(context.Background(), req)
		after(req)
		if err != nil {
			return err
		}
		conv = append(conv, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			conv = append(conv, llm.ToolMessage(c.ID, c.Name, "ran "+c.Name))
		}
	}
	return nil
}

func fourResponses() llm.Model {
	call := func(id string) *llm.Response {
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "read_file", Arguments: `{"path":"notes.txt"}`})}
	}
	return scriptedModel(call("c1"), call("c2"), call("c3"), &llm.Response{Message: llm.AssistantMessage("Done.")})
}

// TestOfferedIsNeverChanged records a run whose tools change midway and
// whose system prompt is redacted on the tape, then replays it: as it is,
// with a changed prompt (a divergence), and in rebase mode; no Offered any
// of them built or was given changes afterwards.
func TestOfferedIsNeverChanged(t *testing.T) {
	w := offeredWatch{}
	rec := NewRecorder(fourResponses(), &RecorderOptions{Redactor: redact.New(nil)})
	if err := runOffers(rec, offers(0), func(req *llm.Request) { w.current(t, &rec.x, req); w.see(rec.offered) }); err != nil {
		t.Fatal(err)
	}
	tp := rec.Tape()
	if !strings.Contains(tp.Offered.System[0], redact.Redacted) || tp.Entries[2].Request.Offered == nil {
		t.Fatalf("the tape's offered block %+v and third entry %+v: want the key redacted and the tools' change recorded", tp.Offered, tp.Entries[2].Request)
	}
	w.see(tp.Offered, tp.Entries[2].Request.Offered)

	m := NewModel(tp, nil)
	if err := runOffers(m, offers(0), func(req *llm.Request) { w.current(t, &m.x, req); w.model(m) }); err != nil {
		t.Fatalf("the unchanged agent: %v", err)
	}
	m = NewModel(tp, nil)
	if err := runOffers(m, offers(3), func(req *llm.Request) { w.current(t, &m.x, req); w.model(m) }); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "offered.system") {
		t.Fatalf("a prompt changed at the fourth request: err = %v, want offered.system to diverge", err)
	}
	m = NewModel(tp, &ModelOptions{Rebase: true})
	if err := runOffers(m, offers(1), func(req *llm.Request) { w.current(t, &m.x, req); w.model(m) }); err != nil {
		t.Fatalf("rebase: %v", err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || len(rb.Entries) == 0 {
		t.Fatalf("Rebased = %+v, %v; want the entries whose prompt changed rebased", rb, err)
	}
	w.model(m)
	if len(w) < 8 {
		t.Fatalf("the test watched %d Offered values; it should see the tape's, its changes and the requests'", len(w))
	}
	w.check(t)
}

// TestOfferedReusedWhileUnchanged: a request that offers what the one
// before it did is given that request's Offered, and one that offers
// anything else a new one, equal to OfferedOf's; a change after a reused
// offer still diverges, with its diff.
func TestOfferedReusedWhileUnchanged(t *testing.T) {
	var got []*tape.Offered
	x := &exchange{}
	seq := offers(0)
	for i, a := range seq {
		req := &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage("go")}, Tools: append([]llm.ToolDefinition(nil), a.tools...)}
		st := x.next(req)
		if want := tape.OfferedOf(req); !reflect.DeepEqual(st.offered, want) {
			t.Fatalf("request %d offered %+v, want %+v", i, st.offered, want)
		}
		got = append(got, st.offered)
	}
	if got[1] != got[0] || got[3] != got[2] {
		t.Errorf("an unchanged offer was not reused: %p %p %p %p", got[0], got[1], got[2], got[3])
	}
	if got[2] == got[1] {
		t.Errorf("a changed offer reused the one before")
	}

	tp := recordTape(t, offers(0))
	a := offers(0)
	a[3].tools[0].Description = "Write a text file."
	err := runOffers(NewModel(tp, nil), a, func(*llm.Request) {})
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "tape[3]") ||
		!strings.Contains(err.Error(), "  tool write_file: description changed:\n    --- recorded\n    +++ actual\n    @@ -1 +1 @@\n    -Write a file.\n    +Write a text file.") {
		t.Errorf("a tool changed at the fourth request: err = %v, want tape[3] to diverge with the description's diff", err)
	}
	// The tape's tools change at the third entry: an agent that goes on
	// offering the first tools, one Offered throughout, diverges there.
	same := offers(0)
	same[2], same[3] = same[0], same[0]
	err = runOffers(NewModel(tp, nil), same, func(*llm.Request) {})
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "tape[2]") || !strings.Contains(err.Error(), "  tool read_file: description changed:") {
		t.Errorf("the tools left unchanged where the tape changes them: err = %v, want tape[2] to diverge", err)
	}
}

// TestOfferedBy compares offeredBy with OfferedOf: for requests that
// differ in each part OfferedOf reads (and one part it does not), the
// Offered of one is offered by another exactly when OfferedOf gives them
// equal values.
func TestOfferedBy(t *testing.T) {
	base := func() *llm.Request {
		a := baseAgent()
		return &llm.Request{Messages: []llm.Message{llm.SystemMessage("one"), llm.SystemMessage("two"), llm.UserMessage("go")}, Tools: a.tools, ResponseSchema: []byte(`{"type":"object"}`)}
	}
	var reqs []*llm.Request
	for _, change := range []func(*llm.Request){
		func(*llm.Request) {},
		func(r *llm.Request) { r.Messages = append(r.Messages, llm.UserMessage("more")) },
		func(r *llm.Request) { r.Messages[1].Content = "three" },
		func(r *llm.Request) { r.Messages = r.Messages[1:] },
		func(r *llm.Request) { r.Messages = r.Messages[2:] },
		func(r *llm.Request) { r.Messages = append([]llm.Message{llm.SystemMessage("zero")}, r.Messages...) },
		func(r *llm.Request) { r.Messages = append(r.Messages, llm.SystemMessage("late")) },
		func(r *llm.Request) { r.Tools[0].Name = "put_file" },
		func(r *llm.Request) { r.Tools[1].Description = "" },
		func(r *llm.Request) { r.Tools[1].Parameters = []byte(`{"type":"object"}`) },
		func(r *llm.Request) { r.Tools[1].Parameters = nil },
		func(r *llm.Request) { r.Tools[1].Parameters = []byte{} },
		func(r *llm.Request) { r.Tools[0], r.Tools[1] = r.Tools[1], r.Tools[0] },
		func(r *llm.Request) { r.Tools = r.Tools[:1] },
		func(r *llm.Request) { r.Tools = nil },
		func(r *llm.Request) { r.Tools = []llm.ToolDefinition{} },
		func(r *llm.Request) { r.ResponseSchema = []byte(`{"type":"array"}`) },
		func(r *llm.Request) { r.ResponseSchema = nil },
		func(r *llm.Request) { r.ResponseSchema = []byte{} },
	} {
		req := base()
		req.Tools = append([]llm.ToolDefinition(nil), req.Tools...)
		change(req)
		reqs = append(reqs, req)
	}
	for i, a := range reqs {
		o := tape.OfferedOf(a)
		for j, b := range reqs {
			if got, want := offeredBy(o, b), reflect.DeepEqual(o, tape.OfferedOf(b)); got != want {
				t.Errorf("request %d's Offered offered by request %d: %v, want %v (OfferedOf's equal)", i, j, got, want)
			}
		}
	}
	if offeredBy((*tape.Offered)(nil), base()) || offeredBy(tape.OfferedOf(base()), nil) {
		t.Errorf("offeredBy with a nil Offered or request is true")
	}
}

// recordTape records runOffers' run of seq, as TestOfferedIsNeverChanged
// does.
func recordTape(t *testing.T, seq []agentSetup) *tape.Tape {
	t.Helper()
	rec := NewRecorder(fourResponses(), &RecorderOptions{Redactor: redact.New(nil)})
	if err := runOffers(rec, seq, func(*llm.Request) {}); err != nil {
		t.Fatal(err)
	}
	return rec.Tape()
}
