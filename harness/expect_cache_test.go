package harness

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// bundled reads a bundled scenario and gives it the expect.cache block
// cache in place of its expect block's end.
func withCache(t *testing.T, file, cache string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../scenarios/" + file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(data), "\n") + "\n  cache: " + cache + "\n"
	s, err := scenario.Parse([]byte(text), file, strings.TrimSuffix(file, ".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expect.cache fails a run whose prefix breaks below the share, naming the
// place, and holds for one that only appends.
func TestExpectCache(t *testing.T) {
	for _, tt := range []struct {
		file, cache string
		want        string // "" when it holds
	}{
		{"conversations/notes-over-three-turns.yaml", "{min_cached_share: 0.8}", ""},
		{"conversations/notes-over-three-turns.yaml", "{min_cached_share: 0.9}",
			"expect.cache: expected a cacheable share of at least 90%, found 81% (3153 of 3892 input tokens, estimated); no request broke the prefix"},
		{"availability/until-iteration.yaml", "{min_cached_share: 0.5}",
			"expect.cache: expected a cacheable share of at least 50%, found 36.6% (258 of 704 input tokens, estimated); the prefix broke at request 1: tools[0] added"},
		{"conversations/notes-over-three-turns.yaml", "{min_cached_share: 0.1, rules: openai}",
			"expect.cache: expected a cacheable share of at least 10% under openai's cache rules, found 0% (0 of 3892 input tokens, estimated)"},
		{"availability/until-iteration.yaml", "{min_cached_share: 0}", ""},
	} {
		t.Run(tt.file+" "+tt.cache, func(t *testing.T) {
			s := withCache(t, tt.file, tt.cache)
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if o.Cache == nil || o.Cache.Err != nil || len(o.Cache.Run.Steps) != o.Iterations {
				t.Fatalf("Outcome.Cache = %+v, want one step per model call (%d)", o.Cache, o.Iterations)
			}
			var got []string
			for _, f := range Failures(s, o) {
				if expectationOf(f) == "cache" {
					got = append(got, f.Error())
				}
			}
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("want it to hold, got %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], s.Path+":") || !strings.Contains(got[0], tt.want)):
				t.Errorf("got %q, want one failure at %s:LINE containing %q", got, s.Path, tt.want)
			}
		})
	}
}

// Without expect.cache the requests are not gathered.
func TestNoExpectCacheNoOutcome(t *testing.T) {
	o := runInline(t, demoScenario)
	if o.Cache != nil {
		t.Errorf("Outcome.Cache = %+v without expect.cache", o.Cache)
	}
	if msg := checkCache(&scenario.CacheExpect{MinShare: 0.5}, nil); !strings.Contains(msg, "found no requests read") {
		t.Errorf("checkCache(nil) = %q", msg)
	}
}
