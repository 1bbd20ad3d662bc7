package autodiff_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
)

// TestLog1pUnit: Log1pUnit is within 2 ulp of log(1 + x) computed to 200
// bits (by math/big, the atanh series of its own here) at 30,000 points of
// [0, 1]: uniform, log-uniform down to e⁻⁴⁰ (where the result must keep
// its relative accuracy) and around the table's points, and exact at 0
// and 1's neighbours alike. math.Log1p's own worst over the same points is
// 1 ulp.
func TestLog1pUnit(t *testing.T) {
	worst, at := worstULP(ad.Log1pUnit, log1pReference, rand.New(rand.NewPCG(1, 2)), func(rng *rand.Rand, k int) float64 {
		switch k % 3 {
		case 0:
			return rng.Float64()
		case 1:
			return math.Exp(-40 * rng.Float64())
		}
		x := (float64(rng.IntN(129)) + 0.5*(2*rng.Float64()-1)) / 128
		return min(max(x, 0), 1)
	})
	if worst > 2 {
		t.Errorf("Log1pUnit is %.2f ulp off at x = %v", worst, at)
	}
	for _, x := range []float64{0, 1, math.SmallestNonzeroFloat64, 1e-300, 0x1p-53, 0.5} {
		if got, want := ad.Log1pUnit(x), math.Log1p(x); math.Abs(got-want) > 2*(math.Nextafter(want, 2)-want) {
			t.Errorf("Log1pUnit(%v) = %v, math.Log1p %v", x, got, want)
		}
	}
	t.Logf("worst %.2f ulp at %v", worst, at)
}

// log1pReference is log(1 + x) rounded from 200 bits: 2·atanh(x/(2 + x)).
func log1pReference(x float64) float64 {
	const prec = 200
	f := func() *big.Float { return new(big.Float).SetPrec(prec) }
	bx := f().SetFloat64(x)
	s := f().Quo(bx, f().Add(f().SetInt64(2), bx))
	s2 := f().Mul(s, s)
	sum, power := f(), f().Set(s)
	for k := int64(1); k < 2000; k += 2 {
		term := f().Quo(power, f().SetInt64(k))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-prec-8 {
			break
		}
		power.Mul(power, s2)
	}
	v, _ := sum.Mul(sum, f().SetInt64(2)).Float64()
	return v
}

func BenchmarkLog1pUnit(b *testing.B) {
	x := make([]float64, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = math.Exp(-math.Abs(0.3 * rng.NormFloat64()))
	}
	var s float64
	b.Run("Log1pUnit", func(b *testing.B) {
		for b.Loop() {
			for _, v := range x {
				s += ad.Log1pUnit(v)
			}
		}
	})
	b.Run("math.Log1p", func(b *testing.B) {
		for b.Loop() {
			for _, v := range x {
				s += math.Log1p(v)
			}
		}
	})
	_ = s
}
