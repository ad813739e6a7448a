package eval

import (
	"testing"
)

// Options.Trials of zero means DefaultTrials per scenario and model.
func TestZeroTrialsMeansTheDefault(t *testing.T) {
	for _, c := range []struct{ trials, want int }{{0, DefaultTrials}, {-1, DefaultTrials}, {1, 1}, {12, 12}} {
		if got := (&Options{Trials: c.trials}).trials(); got != c.want {
			t.Errorf("Trials %d: %d trials, want %d", c.trials, got, c.want)
		}
	}
}
