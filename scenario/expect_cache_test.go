package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestExpectCacheDecode(t *testing.T) {
	const head = "format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\ntape: []\nexpect:\n  cache: "
	s, err := Parse([]byte(head+"{min_cached_share: 0.8, rules: anthropic}\n"), "c.yaml", "c")
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Expect.Cache; c == nil || c.MinShare != 0.8 || c.Rules != "anthropic" || c.Line != 6 || s.Expect.Line("cache") != 6 {
		t.Errorf("Cache = %+v", c)
	}
	s, err = Parse([]byte(head+"{min_cached_share: 1, rules: generic}\n"), "c.yaml", "c")
	if err != nil || s.Expect.Cache.Rules != "" || s.Expect.Cache.MinShare != 1 {
		t.Errorf("generic rules: %+v, %v; want Rules \"\"", s.Expect.Cache, err)
	}
	for _, tt := range []struct{ value, want string }{
		{"{min_cached_share: 1.5}", "c.yaml:6: expect.cache.min_cached_share: want a number from 0 to 1, got 1.5"},
		{"{min_cached_share: high}", "c.yaml:6: expect.cache.min_cached_share: want a number from 0 to 1"},
		{"{min_share: 0.8}", `c.yaml:6: expect.cache: unknown key "min_share" (want min_cached_share, rules)`},
		{"{rules: openai}", `c.yaml:6: expect.cache: missing key "min_cached_share"`},
		{"{min_cached_share: 0.8, rules: mistral}", `c.yaml:6: expect.cache.rules: unknown value "mistral"`},
		{"0.8", "c.yaml:6: expect.cache: want a mapping"},
	} {
		_, err := Parse([]byte(head+tt.value+"\n"), "c.yaml", "c")
		if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("cache: %s: err = %v, want %q", tt.value, err, tt.want)
		}
	}
}
