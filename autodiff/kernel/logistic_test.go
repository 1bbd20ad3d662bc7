package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logisticRows are rows for BernoulliLogit: α normal of scale 3 with y
// drawn from σ(α), and rows the scalar code treats apart sprinkled in
// (±0, |α| near and past 707, ±Inf, NaN, y = 0.5 or 2), so that vectors
// of eight hold a mix of both.
func logisticRows(rng *rand.Rand, n int) (y, alpha []float64) {
	specials := []float64{0, math.Copysign(0, -1), 706.9, -706.9, 707, -707.5, 720, -745, -800, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-20}
	y, alpha = make([]float64, n), make([]float64, n)
	for i := range alpha {
		alpha[i] = 3 * rng.NormFloat64()
		if rng.IntN(40) == 0 {
			alpha[i] = specials[rng.IntN(len(specials))]
		}
		if rng.Float64()*(1+math.Exp(-alpha[i])) < 1 {
			y[i] = 1
		}
		if rng.IntN(200) == 0 {
			y[i] = []float64{0.5, 2, -1}[rng.IntN(3)]
		}
	}
	return y, alpha
}

// TestBernoulliLogit: the vector form gives BernoulliLogitRow's bits on
// every row, at lengths that leave every tail of a vector; rows the scalar
// code treats apart are −Inf and 0 where α is not finite or y not 0 or 1;
// and each row is log σ(±α) and its derivative σ(∓α) as float64's own
// functions give them: log σ(s) = −log1p(e^−s) for s ≥ 0, s − log1p(e^s)
// below, within 1.2e-15 relative (5.4 ulp: the reference's math.Exp is up
// to 2 ulp off and math.Log1p 1, the row's ExpNonPos and Log1pUnit 1 each,
// TestExpNonPos and TestLog1pUnit in package autodiff), and σ within 6e-16
// (an exponential and a division each side).
func TestBernoulliLogit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 255, 256, 257, 1000, 4099} {
		y, alpha := logisticRows(rng, n)
		out, partial := make([]float64, n), make([]float64, n)
		BernoulliLogit(out, partial, y, alpha)
		for i := range n {
			lp, dlp := BernoulliLogitRow(y[i], alpha[i])
			if math.Float64bits(lp) != math.Float64bits(out[i]) || math.Float64bits(dlp) != math.Float64bits(partial[i]) {
				t.Fatalf("n=%d row %d (y %v, α %v): (%v, %v), the row's (%v, %v)", n, i, y[i], alpha[i], out[i], partial[i], lp, dlp)
			}
		}
	}
	y, alpha := logisticRows(rng, 20_000)
	for i := range alpha {
		lp, dlp := BernoulliLogitRow(y[i], alpha[i])
		x := alpha[i]
		if math.IsInf(x, 0) || math.IsNaN(x) || y[i] != 0 && y[i] != 1 {
			if !math.IsInf(lp, -1) || dlp != 0 {
				t.Fatalf("y %v, α %v: (%v, %v), want (-Inf, 0)", y[i], x, lp, dlp)
			}
			continue
		}
		s := x
		if y[i] == 0 {
			s = -x
		}
		// log σ(s) = −log1p(e^−s) for s ≥ 0, s − log1p(e^s) below; σ(−s).
		var want float64
		if s >= 0 {
			want = -math.Log1p(math.Exp(-s))
		} else {
			want = s - math.Log1p(math.Exp(s))
		}
		if d := math.Abs(lp - want); d > 1.2e-15*math.Abs(want) && d > 1e-300 {
			t.Errorf("y %v, α %v: lp %v, want %v (%.2g relative)", y[i], x, lp, want, d/math.Abs(want))
		}
		wantD := 1 / (1 + math.Exp(s))
		if y[i] == 0 {
			wantD = -wantD
		}
		if d := math.Abs(dlp - wantD); d > 6e-16*math.Abs(wantD) && d > 1e-300 {
			t.Errorf("y %v, α %v: ∂ %v, want %v (%.2g relative)", y[i], x, dlp, wantD, d/math.Abs(wantD))
		}
	}
}

// BenchmarkBernoulliLogit: one pass of the logistic density's rows, in the
// vector form and row by row.
//
//	go test -run '^$' -bench BernoulliLogit ./autodiff/kernel
func BenchmarkBernoulliLogit(b *testing.B) {
	const n = 100_000
	y, alpha := logisticRows(rand.New(rand.NewPCG(1, 2)), n)
	for i := range alpha { // ordinary rows only
		alpha[i], y[i] = max(min(alpha[i], 30), -30), float64(int(y[i])&1)
		if alpha[i] != alpha[i] {
			alpha[i] = 0
		}
	}
	out, partial := make([]float64, n), make([]float64, n)
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			BernoulliLogit(out, partial, y, alpha)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	})
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			for i, x := range alpha {
				out[i], partial[i] = BernoulliLogitRow(y[i], x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	})
}
