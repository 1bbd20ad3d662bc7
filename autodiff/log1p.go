package autodiff

import (
	"math"
	"math/big"
)

// Log1pUnit is log(1 + x) for 0 ≤ x ≤ 1, the range softplus and the
// logistic densities need (x = e^(−|α|)), within an ulp or two (1.0 ulp
// at worst over TestLog1pUnit's points, as math.Log1p), in about half the
// time of math.Log1p, whose reduction serves every x > −1 and was the
// largest cost of a logistic regression's row. Outside [0, 1] (and NaN)
// it is math.Log1p.
//
// With u = 1 + x rounded, x − (u − 1) is exactly what the rounding lost
// (u − 1 is exact, Sterbenz), so log(1 + x) = log(u) + (x − (u − 1))/u to
// first order in a correction below an ulp of u. log(u) is reduced by a
// table of 129 points c_i = 1 + i/128 around u: with r = u·(1/c_i) − 1
// (one fused multiply-add, |r| ≤ 1/256 + an ulp), log(u) = −log(1/c_i) +
// log(1 + r), the first from the table in two parts (hi + lo, to about
// 2⁻¹⁰⁶) and the second by its Taylor series to r⁷ (the first term left
// out is below 2⁻⁶⁷ of r). The entry for c_0 = 1 is exact, so below
// x = 1/256 the result keeps its relative accuracy: r = u − 1 exactly and
// the correction restores x's bits lost in u.
func Log1pUnit(x float64) float64 {
	if !(x >= 0 && x <= 1) {
		return math.Log1p(x)
	}
	u := 1 + x
	lost := x - (u - 1)
	i := int(x*log1pTableSize + 0.5)
	inv := log1pInv[i]
	r := math.FMA(u, inv, -1)
	p := r * r * (-1.0/2 + r*(1.0/3+r*(-1.0/4+r*(1.0/5+r*(-1.0/6+r*(1.0/7))))))
	return log1pHi[i] + (log1pLo[i] + lost*inv + p + r)
}

const log1pTableSize = 128

// log1pInv[i] is 1/c_i rounded, c_i = 1 + i/128; log1pHi[i] + log1pLo[i]
// is −log of that rounded value, to about 2⁻¹⁰⁶.
var log1pInv, log1pHi, log1pLo [log1pTableSize + 1]float64

func init() {
	const prec = 128
	for i := range log1pInv {
		inv := 1 / (1 + float64(i)/log1pTableSize)
		log1pInv[i] = inv
		v := bigLog(new(big.Float).SetPrec(prec).SetFloat64(inv), prec)
		v.Neg(v)
		hi, _ := v.Float64()
		lo, _ := v.Sub(v, new(big.Float).SetFloat64(hi)).Float64()
		log1pHi[i], log1pLo[i] = hi, lo
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
