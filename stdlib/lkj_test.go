package stdlib_test

import (
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// lkjOnionLogC is log c_K, the LKJ normalising constant, in the form the
// onion method of Lewandowski, Kurowicka and Joe (2009) gives it,
//
//	c_K = Π_{k=1}^{K-1} π^(k/2) Γ(η + (K-1-k)/2) / Γ(η + (K-1)/2),
//
// a different product of Γ functions from the vine form the op uses (they
// agree by the duplication formula; for K = 3, η = 1 both give the volume
// π²/2 of the 3 × 3 correlation matrices).
func lkjOnionLogC(eta float64, k int) float64 {
	c := 0.0
	for j := 1; j < k; j++ {
		c += float64(j)/2*math.Log(math.Pi) + lg(eta+float64(k-1-j)/2) - lg(eta+float64(k-1)/2)
	}
	return c
}

// TestLKJCorrCholesky runs the density through the harness against the
// onion form of the constant plus Σ_{k≥2} (K-k+2η-2) log L_kk, at the
// harness's 1e-10. L is any lower-triangular matrix with a positive
// diagonal: the density reads only the diagonal, so the finite differences
// need not stay on unit rows.
func TestLKJCorrCholesky(t *testing.T) {
	layouts := []struct {
		name    string
		l, eta  ad.Shape // L's leading shape, eta's shape
		k       int
		etaData bool
	}{
		{"single", ad.Shape{}, ad.Shape{}, 3, false},
		{"batch", ad.Shape{3}, ad.Shape{3}, 2, false},
		{"outer", ad.Shape{3}, ad.Shape{2, 1}, 4, false},
		{"k1", ad.Shape{}, ad.Shape{}, 1, false},
		{"k6_data_eta", ad.Shape{2}, ad.Shape{}, 6, true},
	}
	for _, l := range layouts {
		k := l.k
		adtest.Run(t, adtest.Case{Name: "lkj_corr_cholesky/" + l.name,
			Inputs: []adtest.Input{
				{Shape: append(l.l.Clone(), k, k), Draw: adtest.Uniform(0.3, 1.5)},
				{Shape: l.eta, Draw: adtest.Uniform(0.3, 4), Data: l.etaData},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.LKJCorrCholeskyLPDF(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				return broadcastReference([]ad.Shape{l.l, l.eta}, func(v []float64) float64 {
					m, eta := x[0][int(v[0])*k*k:][:k*k], v[1]
					lp := -lkjOnionLogC(eta, k)
					for i := 1; i < k; i++ { // row k = i+1
						lp += (float64(k-i-1) + 2*eta - 2) * math.Log(m[i*k+i])
					}
					return lp
				})([][]float64{indices(l.l.Size()), x[1]})
			}})
	}
}

// indices is 0, 1, …, n-1 as float64: row numbers for broadcastReference.
func indices(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

// tanhSinh returns the nodes of the tanh-sinh (double exponential) rule on
// (-1, 1) with step h: x_j = tanh(u_j), u_j = (π/2) sinh(jh), weight
// h (π/2) cosh(jh)/cosh²(u_j), and 1 - |x_j| = e^-u/cosh u computed apart so
// that points next to ±1 keep their distance from it. The rule's error falls
// like e^(-c/h) even for integrands with algebraic singularities at the
// ends, as (1 - r²)^(η-1) has for η < 1.
func tanhSinh(h float64) (x, comp, w []float64) {
	for j := -int(4.5 / h); j <= int(4.5/h); j++ {
		t := float64(j) * h
		u := math.Pi / 2 * math.Sinh(t)
		c := math.Exp(-math.Abs(u)) / math.Cosh(u)
		wt := h * math.Pi / 2 * math.Cosh(t) / (math.Cosh(u) * math.Cosh(u))
		if c == 0 || wt < 1e-300 {
			continue
		}
		x, comp, w = append(x, math.Tanh(u)), append(comp, c), append(w, wt)
	}
	return x, comp, w
}

// lkjMass integrates exp(lkj_corr_cholesky(L | η)) over the Cholesky
// factors of K × K correlation matrices, the op evaluated at every node at
// once (L a batch [nodes, K, K]).
func lkjMass(t *testing.T, k int, eta float64) float64 {
	x, comp, w := tanhSinh(1.0 / 12)
	var mats, weights []float64
	sq := func(c float64) float64 { return math.Sqrt(c * (2 - c)) } // √(1 - s²) from c = 1 - |s|
	switch k {
	case 2:
		// The free coordinate is r = L_21 = R_21 (L_22 = √(1 - r²)), and the
		// map from L_21 to R_21 is the identity: the integral over r of the
		// density on L is that of the correlation's density (1-r²)^(η-1)/c_2.
		for j := range x {
			mats = append(mats, 1, 0, x[j], sq(comp[j]))
			weights = append(weights, w[j])
		}
	case 3:
		// The free coordinates are a = L_21 ∈ (-1, 1) and (L_31, L_32) =
		// ρ(cos φ, sin φ) in the unit disc, L_22 = √(1 - a²), L_33 = √(1 - ρ²),
		// with area element ρ dρ dφ. R = L Lᵀ has R_21 = a, R_31 = L_31,
		// R_32 = a L_31 + L_22 L_32: the Jacobian of (a, L_31, L_32) ↦ R is
		// L_22 = Π_k L_kk^(K-k), the factor the density on L carries, so
		// this integral is ∫ det(R)^(η-1) dR / c_3 = 1. ρ = (1 + x)/2 maps
		// the rule to (0, 1), 1 - ρ = comp/2 kept exact; φ takes the
		// trapezoid rule, exact here for any number of points since the
		// density does not depend on φ, and 5 points check that.
		const phis = 5
		for i := range x {
			for j := range x {
				rho, c := (1+x[j])/2, comp[j]/2
				if x[j] < 0 {
					c = 1 - rho
				}
				for p := range phis {
					phi := 2 * math.Pi * float64(p) / phis
					mats = append(mats, 1, 0, 0, x[i], sq(comp[i]), 0, rho*math.Cos(phi), rho*math.Sin(phi), math.Sqrt(c*(1+rho)))
					weights = append(weights, w[i]*w[j]/2*rho*2*math.Pi/phis)
				}
			}
		}
	}
	n := len(weights)
	vals, _ := evalDensity(t, func(in ...*ad.Node) *ad.Node { return stdlib.LKJCorrCholeskyLPDF(in[0], in[1]) },
		[]ad.Shape{{n, k, k}, {}}, [][]float64{mats, {eta}})
	mass := 0.0
	for i, v := range vals {
		mass += weights[i] * math.Exp(v)
	}
	return mass
}

// TestLKJNormalisation integrates the density on L over the factors of all
// 2 × 2 and 3 × 3 correlation matrices (see lkjMass for the coordinates and
// Jacobians) with the tanh-sinh rule at h = 1/12. The rule has converged
// there to rounding for these integrands (analytic inside, algebraic
// singularities of order ≥ -1/2 at the edges for η ≥ 1/2): halving h moves
// the sums by under 1e-13, and they lie within 2e-14 of 1. The tolerance,
// 1e-12, leaves a factor 50 for other platforms' rounding, while a wrong
// constant (a missing 2^i, a Jacobian power off by one) is off by a factor.
func TestLKJNormalisation(t *testing.T) {
	for _, k := range []int{2, 3} {
		for _, eta := range []float64{0.5, 1, 2.5, 7} {
			if m := lkjMass(t, k, eta); math.Abs(m-1) > 1e-12 {
				t.Errorf("K = %d, η = %v: the density integrates to %.15g", k, eta, m)
			}
		}
	}
}
