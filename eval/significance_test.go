package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFisherExact checks the two-sided p-value against tables worked by
// hand from the hypergeometric formula: with N trials in all, K passes, and
// nA trials in the first run, the chance that the first run holds x passes
// is C(K,x)·C(N-K,nA-x)/C(N,nA); the p-value sums every x no more likely
// than the observed one.
func TestFisherExact(t *testing.T) {
	for _, tc := range []struct {
		passA, nA, passB, nB int
		want                 float64
	}{
		// N=20, K=12, nA=10, C(20,10)=184756; x runs 2..10.
		// P(10) = C(12,10)·C(8,0) = 66 and P(2) = C(12,2)·C(8,8) = 66 are
		// the least likely (P(9) = P(3) = 220·8 = 1760): p = 132/184756.
		{10, 10, 2, 10, 132.0 / 184756},
		// N=9, K=5, nA=5, C(9,5)=126; x=1..5 gives 5, 40, 60, 20, 1.
		// The observed x=3 is the most likely table: p = 1.
		{3, 5, 2, 4, 1},
		// N=9, K=7, nA=5; x=3..5 gives 35, 70, 21. Observed x=4: p = 1.
		{4, 5, 3, 4, 1},
		// N=10, K=5, nA=5, C(10,5)=252: P(5) = P(0) = 1: p = 2/252.
		{5, 5, 0, 5, 2.0 / 252},
		// N=4, K=2, nA=2, C(4,2)=6: P(2) = P(0) = 1, P(1) = 4: p = 2/6.
		{2, 2, 0, 2, 2.0 / 6},
		// N=14, K=9, nA=8, C(14,8)=3003; x=3..8 gives 84, 630, 1260, 840,
		// 180, 9. Observed x=7 (180): 84 + 180 + 9 = 273, p = 273/3003.
		{7, 8, 2, 6, 273.0 / 3003},
		// The same table seen from the other run.
		{2, 6, 7, 8, 273.0 / 3003},
		// No trials, or counts out of range: the data cannot say.
		{0, 0, 3, 5, 1}, {6, 5, 3, 5, 1}, {-1, 5, 3, 5, 1},
	} {
		if got := FisherExact(tc.passA, tc.nA, tc.passB, tc.nB); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("FisherExact(%d/%d, %d/%d) = %v; want %v", tc.passA, tc.nA, tc.passB, tc.nB, got, tc.want)
		}
	}
}

// TestHolm: the i-th smallest of m p-values (from 0) is multiplied by m-i,
// then made no smaller than those before it, capped at 1.
func TestHolm(t *testing.T) {
	// Sorted: .01·4 = .04; .03·3 = .09; .04·2 = .08, raised to .09; .5·1.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.5})
	want := []float64{0.04, 0.09, 0.09, 0.5}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("Holm = %v; want %v", got, want)
			break
		}
	}
	if got := Holm([]float64{0.3, 0.6}); !near(got[0], 0.6) || !near(got[1], 0.6) {
		t.Errorf("Holm(0.3, 0.6) = %v; want [0.6 0.6]", got)
	}
	if got := Holm([]float64{0.9, 0.8}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm(0.9, 0.8) = %v; want capped at 1", got)
	}
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
}

// TestTrialsToDetect checks the sample size against the formula worked by
// hand, with z(0.975) = 1.959964 and z(0.8) = 0.841621.
func TestTrialsToDetect(t *testing.T) {
	for _, tc := range []struct {
		p1, p2 float64
		want   int
	}{
		// p̄ = 0.9: 1.959964·√0.18 + 0.841621·√0.16 = 0.831541 + 0.336649
		// = 1.168190; squared 1.364667, over 0.2² = 34.12: 35 trials.
		{1, 0.8, 35},
		{0.8, 1, 35},
		// p̄ = 0.5: (1.959964·√0.5)² = 1.92, so 2 trials by the
		// approximation; but 2/2 against 0/2 has Fisher p = 2/6 and 3/3
		// against 0/3 p = 2/20; 4/4 against 0/4 has 2/70 = 0.029: 4.
		{1, 0, 4},
		// p̄ = 0.45: 1.959964·√0.495 + 0.841621·√0.49 = 1.378961 + 0.589135
		// = 1.968096; squared 3.873402, over 0.1² = 387.34: 388 trials.
		{0.5, 0.4, 388},
		// The quotient is 35.0000000005, a whole number but for
		// floating-point noise: 35 trials, not 36.
		{1, 0.804399180290722, 35},
		{0.6, 0.6, 0}, {1.2, 0.5, 0}, {0.5, -0.1, 0},
	} {
		if got := TrialsToDetect(tc.p1, tc.p2); got != tc.want {
			t.Errorf("TrialsToDetect(%v, %v) = %d; want %d", tc.p1, tc.p2, got, tc.want)
		}
	}
}

func TestHierarchicalBootstrap(t *testing.T) {
	// One scenario of one trial a side, A 1/1 and B 0/1: the smoothed
	// rates are 1.5/2 = 0.75 and 0.5/2 = 0.25, so B - A is -1 with chance
	// 0.75·0.75 = 0.5625, 0 with 0.25·0.75 + 0.75·0.25 = 0.375, and 1 with
	// 0.25·0.25 = 0.0625: the 2.5th percentile is -1, and the 97.5th is 1
	// (only 0.9375 lies at or below 0).
	got := HierarchicalBootstrap([]Counts{{1, 1}}, []Counts{{0, 1}}, 10000, 0.95, 3)
	if got != (Bootstrap{-1, -1, 1}) {
		t.Errorf("one trial a side: got %+v; want -1 [-1, 1]", got)
	}
	// One scenario, A 1/2 and B 2/2; smoothed rates 1.5/3 = 0.5 and
	// 2.5/3 = 5/6. A's resampled rate is 0, 0.5, 1 with chances 1/4, 1/2,
	// 1/4; B's with 1/36, 10/36, 25/36. B - A = -1 only for B 0 and A 1:
	// 1/144 = 0.007; -0.5 adds 1/72 + 10/144, reaching 0.090: the 2.5th
	// percentile is -0.5. B 1 and A 0 alone give 1 with 25/144 = 0.17: the
	// 97.5th is 1. A bootstrap of the scenario's trials as they were
	// (without smoothing) would have said [0, 1], and one over scenarios
	// alone [0.5, 0.5].
	got = HierarchicalBootstrap([]Counts{{1, 2}}, []Counts{{2, 2}}, 10000, 0.95, 7)
	if got != (Bootstrap{0.5, -0.5, 1}) {
		t.Errorf("trials resampled: got %+v; want 0.5 [-0.5, 1]", got)
	}
	// The two runs of one model: 3/5 then 2/4, 4/5 then 3/4. The
	// interval must hold zero: a few trials cannot tell the runs apart.
	a, b := []Counts{{3, 5}, {4, 5}}, []Counts{{2, 4}, {3, 4}}
	got = HierarchicalBootstrap(a, b, 10000, 0.95, 1)
	if !near(got.Difference, ((0.5-0.6)+(0.75-0.8))/2) || !(got.Low < 0 && got.High > 0) {
		t.Errorf("same model twice: got %+v; want -0.075 in an interval holding 0", got)
	}
	if again := HierarchicalBootstrap(a, b, 10000, 0.95, 1); again != got {
		t.Errorf("same seed gave %+v then %+v", got, again)
	}
	// 2/2 against 0/2 on one scenario is no proof (Fisher p = 1/3).
	if got := HierarchicalBootstrap([]Counts{{2, 2}}, []Counts{{0, 2}}, 10000, 0.95, 1); got.High < 0 {
		t.Errorf("2/2 then 0/2: got %+v; want an interval reaching 0", got)
	}
	// Ten of ten, then none of ten, on three scenarios is.
	a, b = []Counts{{10, 10}, {10, 10}, {10, 10}}, []Counts{{0, 10}, {0, 10}, {0, 10}}
	if got := HierarchicalBootstrap(a, b, 10000, 0.95, 1); got.Difference != -1 || got.High >= 0 {
		t.Errorf("10/10 then 0/10: got %+v; want -1 in an interval below 0", got)
	}
	if z := HierarchicalBootstrap(nil, nil, 100, 0.95, 1); z != (Bootstrap{}) {
		t.Errorf("empty input gave %+v", z)
	}
}

// TestTrialsToDetectOutOfReach: a difference that needs more than 100000
// trials per run (the bound SuiteTrialsToDetect has too) is out of reach,
// 0, at once: neither a sizing read off an overflowed approximation (a
// difference of 1e-10 needs about 4·10²⁰ trials, which once came out as
// 104) nor a Fisher search over hundreds of millions of trials (0.5
// against 0.4999 once took most of a minute to come out as 392443982).
func TestTrialsToDetectOutOfReach(t *testing.T) {
	for _, tc := range []struct{ p1, p2 float64 }{
		{0.5, 0.5 + 1e-10}, {0.5, 0.5 - 1e-10}, // about 4·10²⁰ trials
		{0.5, 0.4999}, // 392 million
		{0.5, 0.496},  // about 245000
		{0, 1e-300},   // a squared difference of 0: +Inf
		// The approximation gives 100000.48: 100001 trials.
		{0.5, 0.49373564},
	} {
		if got := TrialsToDetect(tc.p1, tc.p2); got != 0 {
			t.Errorf("TrialsToDetect(%v, %v) = %d; want 0 (more than 100000 trials)", tc.p1, tc.p2, got)
		}
	}
	// The approximation gives 99999.21, and 50000 of 100000 against 49374
	// of 100000 is significant (Fisher p about 0.005): just within reach.
	if got := TrialsToDetect(0.5, 0.4937356); got != 100000 {
		t.Errorf("TrialsToDetect(0.5, 0.4937356) = %d; want 100000, the most that is sized", got)
	}
}

// TestHierarchicalBootstrapAveragesScenarios: a round's difference is the
// mean over the scenarios it drew, not their sum. Two scenarios, each A
// 1/1 and B 0/1, whose smoothed draws give B - A = -1, 0, 1 with chances
// 0.5625, 0.375, 0.0625 (see TestHierarchicalBootstrap). The mean of two
// such draws is -1 with chance 0.316, so the 2.5th percentile is -1; it
// is 0.5 or more with chance 2·0.0625·0.375 + 0.0625² = 0.051 but 1 only
// with 0.004, so the 97.5th percentile is 0.5.
func TestHierarchicalBootstrapAveragesScenarios(t *testing.T) {
	a, b := []Counts{{1, 1}, {1, 1}}, []Counts{{0, 1}, {0, 1}}
	if got := HierarchicalBootstrap(a, b, 10000, 0.95, 5); got != (Bootstrap{-1, -1, 0.5}) {
		t.Errorf("two scenarios, A 1/1 and B 0/1 each: got %+v; want -1 [-1, 0.5]", got)
	}
}

// TestHierarchicalBootstrapEndsArePercentiles checks which draws the
// interval's ends are, by how often they land on a value over many seeds.
// One scenario of one trial a side, A 0/1 and B 0/1: both smoothed rates are
// 0.5/2 = 0.25, so a round's B - A is 1 with chance q = 0.25·0.75 = 0.1875,
// -1 with the same chance, and 0 otherwise. With 10 rounds and confidence
// 0.25 the tails are 0.375 each: Low is the 4th smallest draw
// (floor(3.75) = 3, from 0) and High the 7th (ceil(6.25) - 1 = 6). High is
// 1 exactly when at least 4 of the 10 draws are 1, which happens with
// chance P(Binomial(10, q) >= 4) ≈ 0.0999; Low is -1 with the same chance.
// One place off (the 6th or the 8th draw) moves that chance to 0.025 or
// 0.285, two places to 0.0045 or 0.585.
func TestHierarchicalBootstrapEndsArePercentiles(t *testing.T) {
	const seeds, rounds, q = 4000, 10, 0.1875
	want := 0.0
	for k := 4; k <= rounds; k++ {
		want += binomial(rounds, k) * math.Pow(q, float64(k)) * math.Pow(1-q, float64(rounds-k))
	}
	a, b := []Counts{{0, 1}}, []Counts{{0, 1}}
	high, low := 0, 0
	for seed := range uint64(seeds) {
		got := HierarchicalBootstrap(a, b, rounds, 0.25, seed)
		if got.High == 1 {
			high++
		}
		if got.Low == -1 {
			low++
		}
	}
	// 4000 seeds: the standard error is sqrt(0.1·0.9/4000) ≈ 0.0047, and
	// 0.02 is over four of them, yet far from the neighbours' 0.025 and 0.285.
	for _, end := range []struct {
		name  string
		count int
	}{{"High = 1", high}, {"Low = -1", low}} {
		if got := float64(end.count) / seeds; math.Abs(got-want) > 0.02 {
			t.Errorf("%s in %.4f of %d seeds; want %.4f: that end is not its percentile", end.name, got, seeds, want)
		}
	}
}

// binomial is C(n, k) for small n.
func binomial(n, k int) float64 {
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}

// TestBootstrapDrawsLargeRunsInBoundedWork: a scenario of many trials is
// resampled from the normal approximation of the binomial, whose draws
// have the binomial's mean and spread, and stay whole numbers of passes in
// range (issue 39, item 11: a report's trial counts no longer set the
// bootstrap's work).
func TestBootstrapDrawsLargeRunsInBoundedWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, p, draws = 100000, 0.3, 20000
	sum, sq := 0.0, 0.0
	for range draws {
		r := normalRate(rng, p, n)
		if r < 0 || r > 1 || math.Abs(r*n-math.Round(r*n)) > 1e-6 {
			t.Fatalf("a draw of %v is not a whole number of passes in [0, %d]", r*n, n)
		}
		sum += r
		sq += r * r
	}
	mean := sum / draws
	sd := math.Sqrt(sq/draws - mean*mean)
	wantSD := math.Sqrt(p * (1 - p) / n)
	if math.Abs(mean-p) > 4*wantSD/math.Sqrt(draws) || math.Abs(sd-wantSD) > 0.05*wantSD {
		t.Errorf("mean %v sd %v, want %v and %v", mean, sd, p, wantSD)
	}
	for _, edge := range []float64{1e-6, 1 - 1e-6} {
		if r := normalRate(rng, edge, n); r < 0 || r > 1 {
			t.Errorf("p = %v drew %v", edge, r)
		}
	}
	// The whole bootstrap over rows at the report limit gives an interval
	// around the observed difference.
	a := []Counts{{Passed: 70000, Trials: 100000}, {Passed: 50000, Trials: 100000}}
	b := []Counts{{Passed: 60000, Trials: 100000}, {Passed: 40000, Trials: 100000}}
	bs := HierarchicalBootstrap(a, b, 10000, 0.95, 1)
	if math.Abs(bs.Difference+0.1) > 1e-12 || bs.Low > -0.09 || bs.High < -0.11 || bs.Low > bs.High {
		t.Errorf("bootstrap = %+v, want an interval around -0.1", bs)
	}
}

// A rise from a pass rate of 0 needs as many trials to detect as the same
// drop to 0: the sizing is symmetric, and 0 is a rate like any other.
func TestTrialsToDetectFromZero(t *testing.T) {
	if up, down := TrialsToDetect(0, 1), TrialsToDetect(1, 0); up != 4 || down != 4 {
		t.Errorf("TrialsToDetect(0, 1) = %d, (1, 0) = %d; want 4 both (4/4 against 0/4: Fisher p = 2/70)", up, down)
	}
}

// One resample gives an interval: the difference of that one resample at
// both ends, not the observed difference, which only zero resamples give.
func TestHierarchicalBootstrapOneResample(t *testing.T) {
	a, b := []Counts{{5, 10}, {3, 10}}, []Counts{{5, 10}, {3, 10}}
	if none := HierarchicalBootstrap(a, b, 0, 0.95, 1); none.Low != 0 || none.High != 0 || none.Difference != 0 {
		t.Errorf("no resample: %+v, want the observed difference 0 at both ends", none)
	}
	resampled := false
	for seed := uint64(1); seed <= 5; seed++ {
		one := HierarchicalBootstrap(a, b, 1, 0.95, seed)
		if one.Low != one.High || one.Difference != 0 {
			t.Errorf("seed %d, one resample: %+v, want one value at both ends and the observed difference 0", seed, one)
		}
		resampled = resampled || one.Low != 0
	}
	if !resampled {
		t.Errorf("one resample gave the observed difference 0 for every seed: the resample was not drawn")
	}
}

// A resampled trial passes when the uniform draw in [0, 1) falls below the
// smoothed pass rate, so that it passes with exactly that chance: a draw
// equal to the rate is a failure.
func TestHierarchicalBootstrapDrawAtTheRateFails(t *testing.T) {
	// The seed was worked out by inverting the generator (PCG-DXSM, the
	// stream HierarchicalBootstrap uses): its second number, the one B's
	// single trial is drawn with after the draw of the scenario, is exactly
	// 0.25, B's smoothed rate (0 + 1/2) / (1 + 1).
	const seed = 14921872881287231627
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rng.IntN(1)
	if u := rng.Float64(); u != 0.25 {
		t.Fatalf("the seed's second draw is %v, not 0.25: the test's premise no longer holds", u)
	}
	// A has no trial (rate 0, nothing drawn): the one resample's difference
	// is B's drawn rate.
	got := HierarchicalBootstrap([]Counts{{0, 0}}, []Counts{{0, 1}}, 1, 0.95, seed)
	if got.Low != 0 || got.High != 0 {
		t.Errorf("B's trial drawn at exactly its rate 0.25: interval [%v, %v], want [0, 0] (a failure)", got.Low, got.High)
	}
}
