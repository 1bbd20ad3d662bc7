package autodiff

import (
	"math"
	"math/big"
)

// Log1pUnit is log(1 + x) for 0 ≤ x ≤ 1, the range softplus and the
// logistic densities need (x = e^(−|α|)), within an ulp (1.0 ulp at worst
// over TestLog1pUnit's points, as math.Log1p), in about half the time of
// math.Log1p, whose reduction serves every x > −1 and was the largest cost
// of a logistic regression's row. Outside [0, 1] (and NaN) it is
// math.Log1p.
//
// With u = 1 + x rounded, x − (u − 1) is exactly what the rounding lost
// (u − 1 is exact, Sterbenz), so log(1 + x) = log(u) + (x − (u − 1))/u to
// first order in a correction below an ulp of u. log(u) is reduced by a
// table of 129 points c_i = 1 + i/128 around u: d = u − c_i is exact
// (Sterbenz again) and r = d·(1/c_i) is d/c_i within two roundings, |r| ≤
// 1/256, so log(u) = log(c_i) + log(1 + r), the first from the table in two
// parts (hi + lo, to about 2⁻¹⁰⁶) and the second by its Taylor series to r⁷
// (the first term left out is below 2⁻⁶⁷ of r). The entry for c_0 = 1 is
// exact, so below x = 1/256 the result keeps its relative accuracy: r = u
// − 1 exactly and the correction restores x's bits lost in u.
//
// Every step is a plain multiply, add or subtract rounded as Go rounds it
// (the float64 conversions forbid fusing into FMAs, which Go may do on
// some architectures), so that the vector form of the logistic densities
// (stdlib's bernoulli_logit) gives the same bits on every machine.
func Log1pUnit(x float64) float64 {
	if !(x >= 0 && x <= 1) {
		return math.Log1p(x)
	}
	return log1pUnit(x)
}

// log1pUnit is Log1pUnit for x in [0, 1], with no range check: small
// enough to be inlined into the loops that call it per row.
func log1pUnit(x float64) float64 {
	u := 1 + x
	i := int(x*log1pTableSize+0.5) & (2*log1pTableSize - 1) // the mask drops the bounds check
	t := &log1pTable[i]
	r := float64(u-t.c) * t.inv
	p := float64(r*r) * (-1.0/2 + float64(r*(1.0/3+float64(r*(-1.0/4+float64(r*(1.0/5+float64(r*(-1.0/6+float64(r*(1.0/7)))))))))))
	return t.hi + (t.lo + float64(float64(x-(u-1))*t.inv) + p + r)
}

const log1pTableSize = 128

// log1pTable[i] holds c_i = 1 + i/128, 1/c_i rounded, and log c_i in two
// parts, hi + lo to about 2⁻¹⁰⁶; it is sized to a power of two for the
// index's mask (entries past 128 are never used).
var log1pTable [2 * log1pTableSize]struct{ c, inv, hi, lo float64 }

func init() {
	const prec = 128
	for i := 0; i <= log1pTableSize; i++ {
		c := 1 + float64(i)/log1pTableSize
		bc := new(big.Float).SetPrec(prec).SetFloat64(c)
		v := bigLog(new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).SetInt64(1), bc), prec)
		v.Neg(v) // log c = −log(1/c), 1/c in [1/2, 1]
		hi, _ := v.Float64()
		lo, _ := v.Sub(v, new(big.Float).SetFloat64(hi)).Float64()
		log1pTable[i] = struct{ c, inv, hi, lo float64 }{c, 1 / c, hi, lo}
	}
}

// bigLog is log x for x in [1/2, 1] to prec bits: 2·atanh(s) =
// 2Σ s^(2k+1)/(2k+1) with s = (x − 1)/(x + 1), |s| ≤ 1/3, summed until a
// term falls below the sum by prec + 8 bits.
func bigLog(x *big.Float, prec uint) *big.Float {
	f := func() *big.Float { return new(big.Float).SetPrec(prec) }
	one := f().SetInt64(1)
	s := f().Quo(f().Sub(x, one), f().Add(x, one))
	s2 := f().Mul(s, s)
	sum, power := f(), f().Set(s)
	for k := int64(1); k < 1000; k += 2 {
		term := f().Quo(power, f().SetInt64(k))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(prec)-8 {
			break
		}
		power.Mul(power, s2)
	}
	return sum.Mul(sum, f().SetInt64(2))
}
