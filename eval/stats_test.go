package eval

import (
	"math"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestPassAtK checks the estimator against values computed by hand from
// 1 - C(n-c,k)/C(n,k).
func TestPassAtK(t *testing.T) {
	for _, tc := range []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4},             // 1 - 3/5
		{5, 2, 2, 0.7},             // 1 - C(3,2)/C(5,2) = 1 - 3/10
		{5, 2, 3, 0.9},             // 1 - C(3,3)/C(5,3) = 1 - 1/10
		{5, 2, 4, 1},               // C(3,4) = 0
		{10, 3, 5, 1 - 21.0/252},   // 1 - C(7,5)/C(10,5)
		{10, 1, 1, 0.1},            // 1 - 9/10
		{10, 1, 10, 1},             // every trial drawn
		{4, 0, 2, 0},               // nothing passed
		{4, 4, 4, 1},               // everything passed
		{20, 10, 2, 1 - 45.0/190},  // 1 - C(10,2)/C(20,2)
		{3, 1, 2, 1 - 1.0/3},       // 1 - C(2,2)/C(3,2)
		{5, 2, 0, 0}, {5, 2, 6, 0}, // k out of range
		{5, 6, 1, 0}, {5, -1, 1, 0}, // c out of range
	} {
		if got := PassAtK(tc.n, tc.c, tc.k); !near(got, tc.want) {
			t.Errorf("PassAtK(n=%d, c=%d, k=%d) = %v; want %v", tc.n, tc.c, tc.k, got, tc.want)
		}
	}
}

// TestPassHatK checks pass^k against values computed by hand from
// C(c,k)/C(n,k).
func TestPassHatK(t *testing.T) {
	for _, tc := range []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4},         // 2/5
		{5, 2, 2, 0.1},         // C(2,2)/C(5,2) = 1/10
		{5, 2, 3, 0},           // C(2,3) = 0
		{10, 7, 3, 35.0 / 120}, // C(7,3)/C(10,3)
		{4, 4, 4, 1},
		{4, 3, 4, 0},
		{3, 1, 2, 0},
		{6, 3, 2, 3.0 / 15}, // C(3,2)/C(6,2)
		{5, 2, 0, 0}, {5, 2, 6, 0},
	} {
		if got := PassHatK(tc.n, tc.c, tc.k); !near(got, tc.want) {
			t.Errorf("PassHatK(n=%d, c=%d, k=%d) = %v; want %v", tc.n, tc.c, tc.k, got, tc.want)
		}
	}
}

// TestPassAtKLargeN checks that the product form stays finite and in [0, 1]
// where the binomials themselves would overflow.
func TestPassAtKLargeN(t *testing.T) {
	got := PassAtK(2000, 1, 1000)
	if !near(got, 0.5) { // 1 - C(1999,1000)/C(2000,1000) = 1 - 1000/2000
		t.Errorf("PassAtK(2000, 1, 1000) = %v; want 0.5", got)
	}
	if got := PassHatK(2000, 1999, 1000); !near(got, 0.5) { // C(1999,1000)/C(2000,1000) = 999/2000+... = 1000/2000
		t.Errorf("PassHatK(2000, 1999, 1000) = %v; want 0.5", got)
	}
}

func TestClass(t *testing.T) {
	for _, tc := range []struct {
		n, c int
		want string
	}{
		{5, 5, report.ClassPass}, {5, 0, report.ClassFail}, {5, 3, report.ClassFlaky},
		{1, 1, report.ClassPass}, {1, 0, report.ClassFail}, {0, 0, report.ClassError},
	} {
		if got := Class(tc.n, tc.c); got != tc.want {
			t.Errorf("Class(%d, %d) = %q; want %q", tc.n, tc.c, got, tc.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {10, 1}, {100, 10}, {1, 1}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("Percentile(1..10, %v) = %v; want %v", tc.p, got, tc.want)
		}
	}
	if got := Percentile([]float64{15, 20, 35, 40, 50}, 30); got != 20 {
		t.Errorf("Percentile(30) = %v; want 20", got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v; want 0", got)
	}
	if xs[0] != 10 {
		t.Errorf("Percentile sorted its input")
	}
}
