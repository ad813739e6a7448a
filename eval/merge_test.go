package eval

import (
	"testing"
	"time"
)

// TestFromMSRoundTrips: a wall time read back from a report gives the same
// milliseconds when merged (64.610216 ms once came back as 64.610215).
func TestFromMSRoundTrips(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, 64610216, 64610215, 123456789012, 7*time.Hour + 3} {
		if got := ms(fromMS(ms(d))); got != ms(d) {
			t.Errorf("%d ns: %v ms came back as %v", d, ms(d), got)
		}
	}
}
