package autodiff

import (
	"math"
	"math/big"
)

// ExpNonPos is e^t for t ≤ 0, the exponential of softplus, the logistic
// function and the logistic densities (t = −|α|), within an ulp (math.Exp
// is 2 ulp off at worst over TestExpNonPos's points) and without a branch
// or a call in its range, so that the rows of a logistic regression
// overlap in the CPU. Elsewhere (t > 0, t < −707 where the result nears
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
	return expNonPos(t)
}

// expNonPosMin is where 2^(n div 64) stops being a normal number's
// exponent for every table entry and r: below, ExpNonPos is math.Exp.
const expNonPosMin = -707

// expNonPos is ExpNonPos for t in [−707, 0], with no range check.
func expNonPos(t float64) float64 {
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
