package tape

import (
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// A request's breakpoints are kept in the offered block as places a
// reviewer reads, read back from the file, and put back on each request
// rebuilt from the tape: a breakpoint on the last message stays on the
// last message of a longer request.
func TestCachePlacesKeptAndReadBack(t *testing.T) {
	tools := []llm.ToolDefinition{{Name: "read_file"}, {Name: "write_file"}}
	req := &llm.Request{Tools: tools, Messages: []llm.Message{llm.SystemMessage("Rules."), llm.SystemMessage("Style."),
		llm.UserMessage("Read a.txt."), llm.AssistantMessage("Done."), llm.UserMessage("Now b.txt.")},
		Cache: []llm.CacheMark{{Tools: true, Index: 0}, {Tools: true, Index: 1}, {Index: 0}, {Index: 1}, {Index: 2}, {Index: 4}}}
	want := []string{"tools[0]", "tools", "system[0]", "system", "messages[-3]", "messages[-1]"}
	if got := CachePlaces(req); !slices.Equal(got, want) {
		t.Fatalf("places %q, want %q", got, want)
	}
	var b strings.Builder
	if err := Encode(&b, &Tape{Offered: OfferedOf(req)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "cache: [tools[0], tools, system[0], system, messages[-3], messages[-1]]") &&
		!strings.Contains(b.String(), `cache: ['tools[0]', tools, 'system[0]', system, 'messages[-3]', 'messages[-1]']`) {
		t.Errorf("the offered block reads\n%s\nwant a cache: line of the places", b.String())
	}
	back, err := Decode(strings.NewReader(b.String()), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Offered.Cache, want) {
		t.Errorf("read back %q, want %q", back.Offered.Cache, want)
	}
	if got := CacheMarks(back.Offered.Cache, req); !slices.Equal(got, req.Cache) {
		t.Errorf("marks %+v, want %+v", got, req.Cache)
	}
	longer := *req
	longer.Messages = append(slices.Clone(req.Messages), llm.AssistantMessage("Done too."), llm.UserMessage("Thanks."))
	wantLonger := []llm.CacheMark{{Tools: true, Index: 0}, {Tools: true, Index: 1}, {Index: 0}, {Index: 1}, {Index: 4}, {Index: 6}}
	if got := CacheMarks(back.Offered.Cache, &longer); !slices.Equal(got, wantLonger) {
		t.Errorf("on a longer request: marks %+v, want %+v", got, wantLonger)
	}
	// A request that marks none says so; one that does not know says nothing.
	none := &llm.Request{Messages: req.Messages, Cache: []llm.CacheMark{}}
	if got := OfferedOf(none).Cache; got == nil || len(got) != 0 {
		t.Errorf("no breakpoint: %q, want an empty list", got)
	}
	if got := OfferedOf(&llm.Request{Messages: req.Messages}).Cache; got != nil {
		t.Errorf("breakpoints not known: %q, want nil", got)
	}
}

// An older tape has no cache: and loads as before; a place that is not
// one is refused with its file, line and key.
func TestCachePlacesDecode(t *testing.T) {
	tp, err := Decode(strings.NewReader("format: tapeloop/v1\noffered:\n  system: Rules.\ntape: []\n"), "t.yaml")
	if err != nil || tp.Offered.Cache != nil {
		t.Fatalf("no cache key: %v, cache %q; want it loaded, nothing recorded", err, tp.Offered.Cache)
	}
	for _, bad := range []string{"messages", "tools[-1]", "history[2]", "system[x]"} {
		_, err := Decode(strings.NewReader("format: tapeloop/v1\noffered:\n  system: Rules.\n  cache: [system, '"+bad+"']\ntape: []\n"), "t.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:4: offered.cache[1]: ") {
			t.Errorf("cache place %q: error %v, want t.yaml:4: offered.cache[1]: ...", bad, err)
		}
	}
}
