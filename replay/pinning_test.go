package replay

import (
	"testing"

	"github.com/tapeloop/tapeloop/tape"
)

func TestPinningOf(t *testing.T) {
	tp := recordAgent(t)
	if p := PinningOf(tp); !p.All() || p.String() != "system prompt pinned, tools pinned, messages pinned on 3 of 3 model calls" {
		t.Errorf("a recorded tape: %+v %q", p, p)
	}
	tp.Offered.System = nil
	last := tp.Entries[1].Request.New[0].Clone()
	tp.Entries[1].Request = &tape.RequestSummary{Tools: []string{"read_file"}, LastMessage: &last}
	tp.Entries[2].Request = nil
	p := PinningOf(tp)
	if p.All() || len(p.Unpinned) != 2 || p.Unpinned[0] != 1 || p.String() != "system prompt not pinned, tools pinned, messages pinned on 1 of 3 model calls (the last message only on 1)" {
		t.Errorf("a partly pinned tape: %+v %q", p, p)
	}
	tp.Offered = nil
	if p := PinningOf(tp); p.String() != "system prompt not pinned, tools: names only, on 1 of 3 model calls, messages pinned on 1 of 3 model calls (the last message only on 1)" {
		t.Errorf("no offered block: %q", p)
	}
	if p := PinningOf(nil); p.All() || p.Calls != 0 {
		t.Errorf("nil: %+v", p)
	}
}

// Without an offered block, PinningOf counts the model calls whose request
// pins the tool names, and only those.
func TestPinningCountsCallsThatPinToolNames(t *testing.T) {
	tp := recordAgent(t)
	tp.Offered = nil
	tp.Entries[0].Request.Tools = []string{"read_file", "write_file"}
	tp.Entries[1].Request.Tools = []string{"read_file"}
	tp.Entries[2].Request.Tools = nil
	if p := PinningOf(tp); p.ToolNames != 2 || p.Calls != 3 {
		t.Errorf("%+v: want tool names pinned on 2 of 3 model calls", p)
	}
}
