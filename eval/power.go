package eval

import "math"

// maxTrials bounds the searches of SuiteTrialsToDetect and TrialsToDetect:
// a drop that needs more trials (per scenario and run) than this is
// reported as out of reach (0).
const maxTrials = 100000

// SuiteTrialsToDetect is the number of trials n per scenario, in each of two
// runs, with which the suite test of compare (the hierarchical bootstrap's
// 95% interval of the difference in mean pass rate lying wholly below zero)
// detects, with 80% power, a drop of drop in the suite's mean pass rate.
// rates are the baseline's pass rates, one per shared scenario. The drop is
// spread in proportion: the later run passes scenario i at
// q_i = p_i·(1 − drop/p̄), p̄ the mean of rates, so every scenario loses the
// same share of its pass rate and the mean falls by exactly drop.
//
// The power is worked out, not simulated, from the normal approximation of
// the bootstrap: with v̄ the mean over scenarios of p_i(1−p_i) + q_i(1−q_i)
// and s² the variance over scenarios of the true drops p_i − q_i, the
// observed difference D has variance v̄/(nS) over S scenarios; the
// bootstrap's spread adds the trials it draws anew to the scenarios it
// resamples (whose observed drops vary by s² + v̄/n, taken over S, not
// S − 1), SE² = ((S−1)/S·(s² + v̄/n) + v̄/n)/S, and its smoothed rates
// (c+½)/(n+1) shrink the interval's centre by n/(n+1). The test fires when
// D·n/(n+1) + z(0.975)·SE < 0, so the power at n is
//
//	Φ((drop·n/(n+1) − z(0.975)·SE) / (n/(n+1)·√(v̄/(nS))))
//
// and the result is the smallest n from 1 at which it reaches 80%. It is 0
// when there is nothing to detect (no rates, drop not in (0, p̄], a rate
// outside [0, 1]) or the drop is out of reach: the spread of the drops
// between scenarios alone keeps the interval wider than drop, or more than
// 100000 trials would be needed. The suite test is the one sized here; a
// single scenario's Fisher test may flag a drop with fewer trials.
func SuiteTrialsToDetect(rates []float64, drop float64) int {
	s := float64(len(rates))
	if len(rates) == 0 || !(drop > 0) {
		return 0
	}
	mean := 0.0
	for _, p := range rates {
		if !(p >= 0 && p <= 1) {
			return 0
		}
		mean += p
	}
	mean /= s
	if drop > mean {
		return 0
	}
	keep := 1 - drop/mean
	v, spread := 0.0, 0.0
	for _, p := range rates {
		q := p * keep
		v += p*(1-p) + q*(1-q)
		d := p - q - drop
		spread += d * d
	}
	v /= s
	spread /= s
	for n := 1; n <= maxTrials; n++ {
		if suitePower(n, s, v, spread, drop) >= detectPower {
			return n
		}
	}
	return 0
}

// suitePower is the chance that the suite test finds a drop at n trials
// per scenario (see SuiteTrialsToDetect).
func suitePower(n int, s, v, spread, drop float64) float64 {
	fn := float64(n)
	shrink := fn / (fn + 1)
	se := math.Sqrt(((s-1)/s*(spread+v/fn) + v/fn) / s)
	sd := shrink * math.Sqrt(v/(fn*s))
	if sd == 0 {
		// No chance in the trials (every rate 0 or 1): the observed drop
		// is the true one.
		if drop*shrink > zAlpha*se {
			return 1
		}
		return 0
	}
	return normalCDF((drop*shrink - zAlpha*se) / sd)
}

// normalCDF is the standard normal distribution function Φ.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
