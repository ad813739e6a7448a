package eval

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Significance is the level below which a p-value (after Holm's correction
// over a comparison's scenarios) counts as a significant change, and
// the level the suite's confidence interval and TrialsToDetect use.
const Significance = 0.05

// detectPower is the power TrialsToDetect sizes for: the chance that a drop
// of the given size is found significant.
const detectPower = 0.8

// The standard normal quantiles for a two-sided test at Significance and
// for detectPower: z(0.975) and z(0.8).
const (
	zAlpha = 1.959963984540054
	zBeta  = 0.8416212335729143
)

// FisherExact is the two-sided p-value of Fisher's exact test on the 2×2
// table of two runs' trials: passA of nA passed in one, passB of nB in the
// other. Given the total passes, the number in the first run follows the
// hypergeometric distribution; the p-value sums the probabilities of every
// table no more likely than the one observed. It is 1 when either run has
// no trial or a count is out of range (the data cannot say).
func FisherExact(passA, nA, passB, nB int) float64 {
	if nA <= 0 || nB <= 0 || passA < 0 || passA > nA || passB < 0 || passB > nB {
		return 1
	}
	n, k := nA+nB, passA+passB
	lo, hi := max(0, nA-(n-k)), min(k, nA)
	logP := func(x int) float64 {
		return logChoose(k, x) + logChoose(n-k, nA-x) - logChoose(n, nA)
	}
	observed := logP(passA)
	p := 0.0
	for x := lo; x <= hi; x++ {
		// A relative tolerance keeps tables exactly as likely as the
		// observed one (symmetric tables) from being lost to rounding.
		if lx := logP(x); lx <= observed+1e-9 {
			p += math.Exp(lx)
		}
	}
	return min(p, 1)
}

// logChoose is log C(n, k) for 0 <= k <= n.
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Holm adjusts the p-values of a family of tests for their number by
// Holm's step-down method: the i-th smallest (from 0) is multiplied by
// len(ps)-i, then each is raised to the largest adjusted value before it
// and capped at 1. The result is in the order of ps; ps is not changed.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case ps[x] < ps[y]:
			return -1
		case ps[x] > ps[y]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(m-rank)*ps[i]))
		out[i] = running
	}
	return out
}

// TrialsToDetect is the number of trials each of two runs needs for a
// two-sided test at Significance to find the difference between pass rates
// p1 and p2 (a drop from p1 to p2, say). It starts from the normal
// approximation for two proportions at 80% power,
//
//	n = (z(1-α/2)·√(2·p̄·(1-p̄)) + z(power)·√(p1(1-p1) + p2(1-p2)))² / (p1-p2)²
//
// with p̄ the mean of p1 and p2, rounded up, and raises it where that is too
// few for Fisher's exact test (near 0 and 1 the approximation is poor): the
// result is the smallest n at least that large for which round(p1·n) of n
// against round(p2·n) of n has FisherExact below Significance. It is 0 when
// p1 equals p2 (no difference to detect), either is outside [0, 1], or the
// difference is out of reach: no n up to 100000 trials per run will do.
func TrialsToDetect(p1, p2 float64) int {
	if p1 == p2 || p1 < 0 || p1 > 1 || p2 < 0 || p2 > 1 || math.IsNaN(p1) || math.IsNaN(p2) {
		return 0
	}
	bar := (p1 + p2) / 2
	num := zAlpha*math.Sqrt(2*bar*(1-bar)) + zBeta*math.Sqrt(p1*(1-p1)+p2*(1-p2))
	d := p1 - p2
	// A tiny epsilon keeps an exact integer quotient from rounding up past
	// itself through floating-point noise. A tiny difference makes the
	// quotient huge, even +Inf: it is capped before it becomes an int.
	n := max(1, int(math.Ceil(min(num*num/(d*d)-1e-9, maxTrials+1))))
	// The exact test needs at most a few more; the search ends at
	// maxTrials, past which the difference is out of reach.
	for ; n <= maxTrials; n++ {
		ca, cb := int(math.Round(p1*float64(n))), int(math.Round(p2*float64(n)))
		if significant(FisherExact(ca, n, cb, n)) {
			return n
		}
	}
	return 0
}

// Counts are one scenario's scored trials in one run: Passed of Trials.
type Counts struct {
	Passed, Trials int
}

func (c Counts) rate() float64 {
	if c.Trials == 0 {
		return 0
	}
	return float64(c.Passed) / float64(c.Trials)
}

// Bootstrap is the result of a bootstrap: the observed mean difference and
// a percentile confidence interval around it.
type Bootstrap struct {
	Difference float64
	Low, High  float64
}

// HierarchicalBootstrap estimates the mean over scenarios of the difference
// in pass rate b[i] - a[i] (the same scenario in two runs) and its
// confidence interval (confidence in (0, 1), such as 0.95) by a two-level
// bootstrap: each of resamples rounds draws the scenarios with replacement,
// then, within each drawn scenario, each run's trials anew, so the interval
// carries both the spread between scenarios and the chance in a scenario's
// few trials. A run's trials are drawn with the pass rate (c+½)/(n+1)
// rather than c/n (half a pass and half a failure added, Jeffreys' prior):
// a scenario that passed all its trials, or none, would otherwise resample
// to itself every time, and 2/2 against 0/2 would look certain. Difference
// is the observed mean of c/n. The generator is PCG seeded with seed: the
// same data and seed give the same interval on every run. a and b must have
// the same length; empty input gives a zero Bootstrap.
func HierarchicalBootstrap(a, b []Counts, resamples int, confidence float64, seed uint64) Bootstrap {
	n := min(len(a), len(b))
	if n == 0 {
		return Bootstrap{}
	}
	sum := 0.0
	for i := range n {
		sum += b[i].rate() - a[i].rate()
	}
	mean := sum / float64(n)
	out := Bootstrap{Difference: mean, Low: mean, High: mean}
	if resamples < 1 {
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	// resampleRate draws c.Trials trials at c's smoothed pass rate and
	// returns the pass rate of the draw.
	resampleRate := func(c Counts) float64 {
		if c.Trials == 0 {
			return 0
		}
		p := (float64(c.Passed) + 0.5) / float64(c.Trials+1)
		if c.Trials > exactDraws {
			return normalRate(rng, p, c.Trials)
		}
		passed := 0
		for range c.Trials {
			if rng.Float64() < p {
				passed++
			}
		}
		return float64(passed) / float64(c.Trials)
	}
	means := make([]float64, resamples)
	for r := range resamples {
		s := 0.0
		for range n {
			i := rng.IntN(n)
			s += resampleRate(b[i]) - resampleRate(a[i])
		}
		means[r] = s / float64(n)
	}
	slices.Sort(means)
	tail := (1 - confidence) / 2
	lo := int(math.Floor(tail * float64(resamples)))
	hi := int(math.Ceil((1-tail)*float64(resamples))) - 1
	out.Low = means[min(max(lo, 0), resamples-1)]
	out.High = means[min(max(hi, 0), resamples-1)]
	return out
}

// exactDraws is the most trials HierarchicalBootstrap draws one by one;
// past it, a scenario's resampled pass rate is drawn from the normal
// approximation of the binomial (n p (1-p) is then large for any pass rate
// the smoothing leaves), so a round costs the same however many trials a
// report claims.
const exactDraws = 1000

// normalRate draws the pass rate of n trials at rate p from the normal
// approximation of the binomial, rounded to a whole number of passes in
// [0, n].
func normalRate(rng *rand.Rand, p float64, n int) float64 {
	fn := float64(n)
	passed := math.Round(fn*p + rng.NormFloat64()*math.Sqrt(fn*p*(1-p)))
	return min(max(passed, 0), fn) / fn
}

// significant reports whether a p-value counts as a significant change:
// strictly below Significance.
func significant(p float64) bool { return p < Significance }
