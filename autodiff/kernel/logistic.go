package kernel

import (
	"math"
	"math/big"
)

// The logistic regression's row (BernoulliLogit) and the two functions it
// is made of, e^t for t ≤ 0 and log(1 + x) on [0, 1], here beside their
// vector form (asm/logistic.go) so that both are one computation: every
// step of the scalar code is a plain IEEE multiply, add, subtract or divide
// rounded as Go rounds it (the float64 conversions forbid fusing into
// FMAs, which Go does on some architectures), and the vector code does the
// same steps in the same order, so the two give the same bits.

// ExpNonPos is e^t for t ≤ 0, the exponential of softplus, the logistic
// function and the logistic densities (t = −|α|), within an ulp (math.Exp
// is 2 ulp off at worst over TestExpNonPos's points), with no call and no
// branch but its range check, and in the steps asm/logistic.go repeats
// eight lanes at a time. Elsewhere (t > 0, t < −707 where the result nears
// the subnormals, NaN) it is math.Exp.
//
// The reduction is Tang's ("Table-driven implementation of the exponential
// function in IEEE floating-point arithmetic", ACM TOMS 15, 1989): n =
// round(t·64/ln 2), t = n·(ln 2)/64 + r with |r| ≤ (ln 2)/128, so e^t =
// 2^(n div 64) · 2^((n mod 64)/64) · e^r, the middle factor from a table
// in two parts (hi + lo, to about 2⁻¹⁰⁶) and e^r − 1 by its Taylor series
// to r⁶ (the first term left out is below 2⁻⁶⁴). (ln 2)/64 is split into a
// head of 32 bits, whose product by n (|n| < 2¹⁷) is exact, and a tail, so
// r = (t − n·head) − n·tail loses nothing but the last rounding. As in
// Log1pUnit, every step is a plain rounded multiply or add, never fused.
func ExpNonPos(t float64) float64 {
	if !(t <= 0 && t >= expNonPosMin) {
		return math.Exp(t)
	}
	const (
		shifter = 0x1.8p52 // adding it rounds to an integer
		scale   = expTableSize / math.Ln2
		head    = 0x1.62e42feep-7 // (ln 2)/64 to 32 bits
		tail    = 0x1.a39ef35793c76p-39
	)
	n := float64(t*scale) + shifter - shifter
	r := float64(t-float64(n*head)) - float64(n*tail)
	p := r + float64(float64(r*r)*(1.0/2+float64(r*(1.0/6+float64(r*(1.0/24+float64(r*(1.0/120+float64(r*(1.0/720))))))))))
	k := int64(n)
	e := &expTable[k&(expTableSize-1)]
	v := e.hi + (e.lo + float64(e.hi*p))
	return math.Float64frombits(math.Float64bits(v) + uint64(k>>expTableBits)<<52)
}

// expNonPosMin is where 2^(n div 64) stops being a normal number's
// exponent for every table entry and r: below, ExpNonPos is math.Exp.
const expNonPosMin = -707

const (
	expTableBits = 6
	expTableSize = 1 << expTableBits
)

// expTable[j] is 2^(j/64) in two parts, hi + lo to about 2⁻¹⁰⁶: six square
// roots of 2^j in math/big.
var expTable [expTableSize]struct{ hi, lo float64 }

func init() {
	const prec = 128
	for j := range expTable {
		v := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), j)
		for range expTableBits {
			v.Sqrt(v)
		}
		hi, _ := v.Float64()
		lo, _ := v.Sub(v, new(big.Float).SetFloat64(hi)).Float64()
		expTable[j].hi, expTable[j].lo = hi, lo
	}
}

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
// As in ExpNonPos, these are the steps asm/logistic.go repeats eight lanes
// at a time.
func Log1pUnit(x float64) float64 {
	if !(x >= 0 && x <= 1) {
		return math.Log1p(x)
	}
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

// BernoulliLogit sets out[i] = log p(y[i] | α[i]) under bernoulli_logit
// (log σ(α) where y = 1, log σ(−α) where y = 0) and partial[i] to its
// derivative in α (y − σ(α)), for i < len(alpha); where α[i] is not finite
// or y[i] is neither 0 nor 1, −Inf and 0. It runs eight rows at once
// with AVX-512 (asm/logistic.go) and gives the bits of BernoulliLogitRow
// on every machine. It panics if a slice is shorter than alpha.
func BernoulliLogit(out, partial, y, alpha []float64) {
	n := len(alpha)
	out, partial, y = out[:n], partial[:n], y[:n]
	done := bernoulliLogitVec(out, partial, y, alpha)
	const block = 256
	var exps [block]float64
	for lo := done; lo < n; lo += block {
		// Two passes a block, the exponentials and then the rest: one
		// row's chain (exponential, logarithm, division) is longer than
		// the CPU overlaps with the next rows' in one loop.
		hi := min(lo+block, n)
		es := exps[:hi-lo]
		for j, x := range alpha[lo:hi] {
			es[j] = ExpNonPos(-math.Abs(x))
		}
		for j, e := range es {
			out[lo+j], partial[lo+j] = bernoulliLogitRest(y[lo+j], alpha[lo+j], e)
		}
	}
}

// BernoulliLogitRow is BernoulliLogit's row: log p(y | α) and its
// derivative in α.
func BernoulliLogitRow(y, alpha float64) (lp, dlp float64) {
	return bernoulliLogitRest(y, alpha, ExpNonPos(-math.Abs(alpha)))
}

// bernoulliLogitRest is the row given e = ExpNonPos(−|α|). With s = ±α (+
// where y = 1): lp = log σ(s) = −(max(−s, 0) + log(1 + e)) and ∂lp/∂α =
// ±σ(−s) = ±1/(1 + e) where s ≤ 0, ±e/(1 + e) where it is above (the
// forms of autodiff's Softplus64 and Sigmoid64, whose bits these are),
// chosen by s's sign bit rather than by a branch: y and α's sign are
// random from row to row.
func bernoulliLogitRest(y, alpha, e float64) (lp, dlp float64) {
	if alpha-alpha != 0 || y != 0 && y != 1 {
		return math.Inf(-1), 0
	}
	sign := 2*y - 1
	s := sign * alpha
	neg := uint64(int64(math.Float64bits(s)) >> 63) // all ones where s < 0 or s = −0
	num := math.Float64frombits(math.Float64bits(e)&^neg | math.Float64bits(1)&neg)
	return -(math.Float64frombits(math.Float64bits(-s)&neg) + Log1pUnit(e)), sign * num / (1 + e)
}
