package autodiff_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
)

// TestExpNonPos: ExpNonPos is within 1 ulp of e^t computed to 200 bits (by
// math/big, a series of its own here) at 30,000 points of [−707, 0]:
// uniform, log-uniform down to |t| = 1e-20 (where e^t rounds to 1 or
// just below it) and around the table's points n·(ln 2)/64; math.Exp's
// own worst over the same points is 2 ulp. Beyond its range it is
// math.Exp, and it is exact at 0.
func TestExpNonPos(t *testing.T) {
	worst, at := worstULP(ad.ExpNonPos, expReference, rand.New(rand.NewPCG(3, 4)), func(rng *rand.Rand, k int) float64 {
		switch k % 3 {
		case 0:
			return -707 * rng.Float64()
		case 1:
			return -math.Pow(10, -20+22*rng.Float64())
		}
		x := -(float64(rng.IntN(65_000)) + 0.5*(2*rng.Float64()-1)) * math.Ln2 / 64
		return max(min(x, 0), -707)
	})
	if worst > 1 {
		t.Errorf("ExpNonPos is %.2f ulp off at t = %v", worst, at)
	}
	if got := ad.ExpNonPos(0); got != 1 {
		t.Errorf("ExpNonPos(0) = %v, want 1", got)
	}
	for _, x := range []float64{-707.5, -745, -800, 3, math.Inf(-1), math.NaN()} {
		if got, want := ad.ExpNonPos(x), math.Exp(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("ExpNonPos(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	t.Logf("worst %.2f ulp at %v", worst, at)
}

// expReference is e^t rounded from 200 bits: (e^(t/4096))^4096, the inner
// one by its Taylor series.
func expReference(t float64) float64 {
	const prec = 200
	f := func() *big.Float { return new(big.Float).SetPrec(prec) }
	x := f().SetMantExp(f().SetFloat64(t), -12)
	sum, term := f().SetInt64(1), f().SetInt64(1)
	for k := int64(1); k < 200; k++ {
		term.Quo(term.Mul(term, x), f().SetInt64(k))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-prec-8 {
			break
		}
	}
	for range 12 {
		sum.Mul(sum, sum)
	}
	v, _ := sum.Float64()
	return v
}

// worstULP is the largest error of f, in ulps of the reference, over
// 30,000 points drawn by point (given its index, to mix kinds of points),
// and the point where it was.
func worstULP(f, reference func(float64) float64, rng *rand.Rand, point func(rng *rand.Rand, k int) float64) (worst, at float64) {
	for k := range 30_000 {
		x := point(rng, k)
		want := reference(x)
		ulp := math.Nextafter(want, math.Inf(1)) - want
		if e := math.Abs(f(x)-want) / ulp; e > worst {
			worst, at = e, x
		}
	}
	return worst, at
}
