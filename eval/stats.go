package eval

import (
	"math"
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
