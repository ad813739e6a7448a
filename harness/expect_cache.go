package harness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/scenario"
)

// CacheOutcome is the prefix stability of a run's model requests, read for
// expect.cache (package cost).
type CacheOutcome struct {
	// Run is the requests' prefix stability under the rules expect.cache
	// names; zero when Err is set.
	Run cost.Run
	// Err says why the requests could not be read (one that cannot be
	// encoded); nil when they were.
	Err error
}

// cacheOutcome reads calls under the rules c names.
func cacheOutcome(c *scenario.CacheExpect, calls []cost.Call) *CacheOutcome {
	rules, _ := cost.VendorRules(c.Rules)
	run, err := rules.Analyze(calls)
	return &CacheOutcome{Run: run, Err: err}
}

// checkCache is the failure of expect.cache, naming where the prefix broke;
// "" when the share holds.
func checkCache(c *scenario.CacheExpect, o *CacheOutcome) string {
	want := "expected a cacheable share of at least " + percent(c.MinShare)
	if c.Rules != "" {
		want += " under " + c.Rules + "'s cache rules"
	}
	switch {
	case o == nil:
		return want + ", found no requests read"
	case o.Err != nil:
		return fmt.Sprintf("%s, found requests that cannot be read: %v", want, o.Err)
	}
	run := o.Run
	if run.Share() >= c.MinShare {
		return ""
	}
	how := "estimated"
	if !run.Estimated() {
		how = "recorded"
	}
	msg := fmt.Sprintf("%s, found %s (%d of %d input tokens, %s)", want, percent(run.Share()), run.SharedTokens, run.InputTokens, how)
	if bs := run.Breakers(); len(bs) > 0 {
		places := make([]string, len(bs))
		for i, b := range bs {
			places[i] = fmt.Sprintf("request %d: %s", b.Request, b.Breaker)
		}
		msg += "; the prefix broke at " + strings.Join(places, ", ")
	} else {
		msg += "; no request broke the prefix: the requests are too short, or too few, for more"
	}
	return msg
}

// percent prints a share as a percentage, to a tenth where it has one.
func percent(share float64) string {
	return strconv.FormatFloat(float64(int(share*1000+0.5))/10, 'f', -1, 64) + "%"
}
