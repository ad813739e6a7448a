package eval

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tapeloop/tapeloop/report"
)

// PassAtK is the unbiased estimate of pass@k from n scored trials of which c
// passed: the chance that at least one of k trials drawn without replacement
// passed, 1 - C(n-c,k)/C(n,k). It is computed as a product, so that large n
// does not overflow. It returns 0 when k < 1, k > n or c is out of [0, n].
func PassAtK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return 0
	}
	if n-c < k {
		return 1
	}
	// C(n-c,k)/C(n,k) = prod_{i=n-c+1}^{n} (1 - k/i)
	q := 1.0
	for i := n - c + 1; i <= n; i++ {
		q *= 1 - float64(k)/float64(i)
	}
	return 1 - q
}

// PassHatK is pass^k (tau-bench): the chance that k trials drawn without
// replacement from n scored trials, of which c passed, all passed,
// C(c,k)/C(n,k). It returns 0 when k < 1, k > n or c is out of [0, n].
func PassHatK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return 0
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return max(p, 0)
}

// Class is the class of a scenario × model row with n scored trials of which
// c passed: report.ClassPass when all passed, report.ClassFail when none,
// report.ClassFlaky when some, report.ClassError when n is 0.
func Class(n, c int) string {
	switch {
	case n == 0:
		return report.ClassError
	case c == n:
		return report.ClassPass
	case c == 0:
		return report.ClassFail
	}
	return report.ClassFlaky
}

// kValues returns f(n, c, k) for k = 1..n, keyed by k; an empty map when n is 0.
func kValues(n, c int, f func(n, c, k int) float64) map[int]float64 {
	out := make(map[int]float64, n)
	for k := 1; k <= n; k++ {
		out[k] = f(n, c, k)
	}
	return out
}

// Percentile returns the p-th percentile (0 < p <= 100) of xs by the nearest
// rank method: the smallest value such that at least p% of xs are at or below
// it. It returns 0 for an empty xs; xs is not changed.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// Bootstrap is the result of a paired bootstrap: the observed mean
// difference and a percentile confidence interval around it.
type Bootstrap struct {
	Difference float64
	Low, High  float64
}

// PairedBootstrap estimates the mean of b[i] - a[i] over paired observations
// (one pair per scenario: each model's pass rate on it) and its confidence
// interval (confidence in (0, 1), such as 0.95), by resampling the pairs with
// replacement resamples times with a PCG generator seeded with seed: the same
// data and seed give the same interval on every run. a and b must have the
// same length; empty input gives a zero Bootstrap.
func PairedBootstrap(a, b []float64, resamples int, confidence float64, seed uint64) Bootstrap {
	n := min(len(a), len(b))
	if n == 0 {
		return Bootstrap{}
	}
	d := make([]float64, n)
	sum := 0.0
	for i := range n {
		d[i] = b[i] - a[i]
		sum += d[i]
	}
	out := Bootstrap{Difference: sum / float64(n), Low: sum / float64(n), High: sum / float64(n)}
	if resamples < 1 {
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for r := range resamples {
		s := 0.0
		for range n {
			s += d[rng.IntN(n)]
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
