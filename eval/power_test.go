package eval

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// simulatedSuitePower runs the suite test compare uses (HierarchicalBootstrap
// at 95%, a drop found when the interval lies wholly below zero) on
// replicates simulated pairs of runs of n trials per scenario, the later run
// passing scenario i at q_i = p_i·(1 − drop/p̄), and returns the share of
// them in which it finds the drop. The generator is seeded: the share is
// the same on every run.
func simulatedSuitePower(rates []float64, drop float64, n, replicates, resamples int) float64 {
	mean := 0.0
	for _, p := range rates {
		mean += p
	}
	mean /= float64(len(rates))
	rng := rand.New(rand.NewPCG(7, 11))
	draw := func(p float64) Counts {
		c := Counts{Trials: n}
		for range n {
			if rng.Float64() < p {
				c.Passed++
			}
		}
		return c
	}
	found := 0
	for r := range replicates {
		a, b := make([]Counts, len(rates)), make([]Counts, len(rates))
		for i, p := range rates {
			a[i], b[i] = draw(p), draw(p*(1-drop/mean))
		}
		if HierarchicalBootstrap(a, b, resamples, comparisonConfidence, uint64(r)).High < 0 {
			found++
		}
	}
	return float64(found) / float64(replicates)
}

// TestSuiteTrialsToDetectMatchesTheTest checks the worked-out sizing
// against the test it sizes: runs simulated with the trials it asks for
// find the drop about 80% of the time (the binomial spread of 300
// replicates is ±2.3 points; the normal approximation is allowed a few
// more), and runs with half as many find it clearly less often.
func TestSuiteTrialsToDetectMatchesTheTest(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 600 bootstraps")
	}
	for _, tc := range []struct {
		rates []float64
		drop  float64
	}{
		{[]float64{0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6}, 0.3},
		{[]float64{1, 1, 0.5, 0.8, 0.95, 0.6}, 0.25},
	} {
		n := SuiteTrialsToDetect(tc.rates, tc.drop)
		if n < 2 {
			t.Fatalf("SuiteTrialsToDetect(%v, %v) = %d; want a sizing", tc.rates, tc.drop, n)
		}
		at := simulatedSuitePower(tc.rates, tc.drop, n, 300, 1000)
		half := simulatedSuitePower(tc.rates, tc.drop, n/2, 300, 1000)
		t.Logf("rates %v, drop %v: n = %d, simulated power %.3f (%.3f at n/2)", tc.rates, tc.drop, n, at, half)
		if at < 0.72 || at > 0.9 {
			t.Errorf("rates %v, drop %v: at n = %d the test found the drop in %.3f of the runs; want about 0.8", tc.rates, tc.drop, n, at)
		}
		if half > at-0.15 {
			t.Errorf("rates %v, drop %v: at n/2 = %d the power %.3f is not clearly below %.3f", tc.rates, tc.drop, n/2, half, at)
		}
	}
}

// TestSuiteTrialsToDetectBounds: what cannot be sized is 0, and a larger
// drop needs fewer trials.
func TestSuiteTrialsToDetectBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rates []float64
		drop  float64
	}{
		{"no scenarios", nil, 0.1},
		{"no drop", []float64{0.8}, 0},
		{"a negative drop", []float64{0.8}, -0.1},
		{"a drop past the mean", []float64{0.2, 0.3}, 0.3},
		{"a rate out of range", []float64{0.8, 1.5}, 0.1},
		// The drops are 0.9, 0 and 0: resampling three scenarios leaves
		// an interval of ±0.39 from their spread alone, wider than 0.3.
		{"drops too uneven", []float64{1, 0, 0}, 0.3},
	} {
		if n := SuiteTrialsToDetect(tc.rates, tc.drop); n != 0 {
			t.Errorf("%s: SuiteTrialsToDetect(%v, %v) = %d; want 0", tc.name, tc.rates, tc.drop, n)
		}
	}
	rates := []float64{0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6}
	small, large := SuiteTrialsToDetect(rates, 0.05), SuiteTrialsToDetect(rates, 0.2)
	if !(large > 0 && small > large) {
		t.Errorf("trials for a drop of 0.05: %d, of 0.2: %d; want fewer for the larger drop", small, large)
	}
}

// A scenario that never passes (rate 0) is part of the suite's mean and is
// sized with the rest; so is a drop of the whole mean, to 0 (the documented
// range is (0, mean]).
func TestSuiteTrialsToDetectEdges(t *testing.T) {
	if n := SuiteTrialsToDetect([]float64{0, 1, 1}, 0.2); n == 0 {
		t.Errorf("a suite with a scenario at rate 0: no sizing, want one")
	}
	if n := SuiteTrialsToDetect([]float64{0.5, 0.5}, 0.5); n == 0 {
		t.Errorf("a drop of the whole mean 0.5: no sizing, want one")
	}
	if n := SuiteTrialsToDetect([]float64{0.5, 0.5}, 0.5000001); n != 0 {
		t.Errorf("a drop past the mean: %d trials, want 0", n)
	}
}

// The suite's sizing reaches its bounds exactly: a power of exactly 80%
// is enough, and a drop that needs exactly 100000 trials per scenario is
// sized, while a slightly smaller one is out of reach (0).
func TestSuiteTrialsToDetectAtItsBounds(t *testing.T) {
	// Found by a search over drops on amd64 (also with GOAMD64=v3): at 3
	// trials the power of this drop from 0.95 computes to exactly 0.8 (at
	// 2, to 0.45). Other processors may round the float arithmetic
	// differently (fused multiply-adds), so only amd64 checks it.
	if n := SuiteTrialsToDetect([]float64{0.95}, 0.8126544018937061); n != 3 && runtime.GOARCH == "amd64" {
		t.Errorf("a drop whose power at 3 trials is exactly 0.8: %d trials, want 3", n)
	}
	// One scenario at 0.5: the power first reaches 0.8 at 100000 trials.
	if n := SuiteTrialsToDetect([]float64{0.5}, 0.00626434); n != 100000 {
		t.Errorf("a drop of 0.00626434 from 0.5: %d trials, want 100000", n)
	}
	if n := SuiteTrialsToDetect([]float64{0.5}, 0.00626433); n != 0 {
		t.Errorf("a drop of 0.00626433 from 0.5: %d trials, want 0 (more than 100000)", n)
	}
}
