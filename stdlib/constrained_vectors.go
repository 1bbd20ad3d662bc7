package stdlib

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// simplexTransform is Stan's stick-breaking transform (Reference Manual,
// "Unit simplex", as of Stan 2.36; 2.37 moved to a softmax of a
// sum-to-zero vector): K-1 unconstrained reals to a point of the
// K-simplex. With z_k = σ(u_k - log(K - k)) (k = 1..K-1, the shift making
// u = 0 the uniform point), x_k = (1 - Σ_{j<k} x_j)·z_k and
// x_K = 1 - Σ_{j<K} x_j. The log-Jacobian of x_1..x_{K-1} is
// Σ_k log z_k + log(1 - z_k) + log(1 - Σ_{j<k} x_j).
type simplexTransform struct{}

func (simplexTransform) free(k int) int { return k - 1 }

// stick is z_j for 0-based j of a simplex with km1+1 entries.
func stick(u []float64, j int) float64 {
	return autodiff.Sigmoid64(u[j] - math.Log(float64(len(u)-j)))
}

func (simplexTransform) value(k int, u, x []float64) {
	rest := 1.0
	for j := range u {
		z := stick(u, j)
		x[j] = rest * z
		rest -= rest * z
	}
	x[k-1] = rest
}

func (simplexTransform) logJacobian(k int, u []float64) float64 {
	rest, logJ := 1.0, 0.0
	for j := range u {
		z := stick(u, j)
		logJ += math.Log(z) + math.Log1p(-z) + math.Log(rest)
		rest -= rest * z
	}
	return logJ
}

// simplexBackward runs the stick-breaking recursion in reverse. With
// rest_0 = 1, rest_{j+1} = rest_j·(1 - z_j) and x_j = rest_j·z_j, the
// adjoints are ∂/∂z_j = ∂z_j·rest_j - r̄_{j+1}·rest_j and
// ∂/∂rest_j = ∂rest_j + r̄_{j+1}·(1 - z_j), where ∂z_j and ∂rest_j are the
// direct derivatives of the output through z_j and rest_j (given by terms),
// r̄_K is the adjoint of rest_K, and dz/du = z(1 - z).
func simplexBackward(u, uBar []float64, restKBar float64, terms func(j int, z, rest float64) (dz, drest float64)) {
	n := len(u)
	var zs, rests [64]float64
	z, rest := zs[:0], rests[:0]
	if n > len(zs) {
		z, rest = make([]float64, 0, n), make([]float64, 0, n)
	}
	cur := 1.0
	for j := range u {
		zj := stick(u, j)
		z, rest = append(z, zj), append(rest, cur)
		cur -= cur * zj
	}
	restBar := restKBar
	for j := n - 1; j >= 0; j-- {
		dz, drest := terms(j, z[j], rest[j])
		zBar := dz - restBar*rest[j]
		restBar = drest + restBar*(1-z[j])
		uBar[j] += zBar * z[j] * (1 - z[j])
	}
}

func (simplexTransform) valueGrad(k int, u, _, xBar, uBar []float64) {
	simplexBackward(u, uBar, xBar[k-1], func(j int, z, rest float64) (float64, float64) {
		return xBar[j] * rest, xBar[j] * z
	})
}

func (simplexTransform) logJacobianGrad(_ int, u []float64, g float64, uBar []float64) {
	// d/dz [log z + log(1-z)] = 1/z - 1/(1-z); d/drest log rest = 1/rest.
	simplexBackward(u, uBar, 0, func(_ int, z, rest float64) (float64, float64) {
		return g * (1/z - 1/(1-z)), g / rest
	})
}

func (simplexTransform) inverse(k int, x []float64) ([]float64, error) {
	sum := 0.0
	for i, v := range x {
		if !(v > 0) {
			return nil, fmt.Errorf("entry %d is %v; the entries must be positive", i+1, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > simplexTol {
		return nil, fmt.Errorf("its entries sum to %.10g, not 1", sum)
	}
	u := make([]float64, k-1)
	rest := 1.0
	for j := range u {
		z := math.Min(x[j]/rest, 1-1e-16)
		u[j] = math.Log(z) - math.Log1p(-z) + math.Log(float64(k-1-j))
		rest -= x[j]
	}
	return u, nil
}

// orderedTransform is Stan's ordered transform (Reference Manual, "Ordered
// vector": x_1 = u_1, x_k = x_{k-1} + exp(u_k), log-Jacobian Σ_{k≥2} u_k)
// and, with positive, the positive ordered one ("Positive ordered vector":
// x_1 = exp(u_1) as well, log-Jacobian Σ_k u_k).
type orderedTransform struct{ positive bool }

func (orderedTransform) free(k int) int { return k }

// step is x_k - x_{k-1} as a function of u_k (x_1 for k = 1).
func (t orderedTransform) step(u []float64, k int) float64 {
	if k == 0 && !t.positive {
		return u[0]
	}
	return math.Exp(u[k])
}

func (t orderedTransform) value(_ int, u, x []float64) {
	sum := 0.0
	for k := range u {
		sum += t.step(u, k)
		x[k] = sum
	}
}

// valueGrad: x_k depends on u_j for j ≤ k through step j, so ū_j is the
// step's derivative times the sum of x̄ over k ≥ j.
func (t orderedTransform) valueGrad(_ int, u, _, xBar, uBar []float64) {
	tail := 0.0
	for k := len(u) - 1; k >= 0; k-- {
		tail += xBar[k]
		if k == 0 && !t.positive {
			uBar[0] += tail
		} else {
			uBar[k] += tail * math.Exp(u[k])
		}
	}
}

func (t orderedTransform) first() int {
	if t.positive {
		return 0
	}
	return 1
}

func (t orderedTransform) logJacobian(_ int, u []float64) float64 {
	s := 0.0
	for _, v := range u[t.first():] {
		s += v
	}
	return s
}

func (t orderedTransform) logJacobianGrad(_ int, u []float64, g float64, uBar []float64) {
	for k := t.first(); k < len(u); k++ {
		uBar[k] += g
	}
}

func (t orderedTransform) inverse(_ int, x []float64) ([]float64, error) {
	u := make([]float64, len(x))
	for k, v := range x {
		switch {
		case k == 0 && t.positive && !(v > 0):
			return nil, fmt.Errorf("entry 1 is %v; the entries must be positive", v)
		case k == 0 && t.positive:
			u[0] = math.Log(v)
		case k == 0:
			u[0] = v
		case !(v > x[k-1]):
			return nil, fmt.Errorf("entry %d (%v) is not above entry %d (%v)", k+1, v, k, x[k-1])
		default:
			u[k] = math.Log(v - x[k-1])
		}
	}
	return u, nil
}

// unitVectorTransform is Stan's unit vector transform (Reference Manual,
// "Unit vector"): x = u/‖u‖ from K unconstrained reals. The map forgets
// the radius, so there is no Jacobian; the term the energy adds in its
// place is -½‖u‖², a standard normal on u, which makes the radius proper
// and, as the normal is isotropic, leaves x uniform on the sphere under a
// flat density.
type unitVectorTransform struct{}

func (unitVectorTransform) free(k int) int { return k }

func norm(u []float64) float64 {
	s := 0.0
	for _, v := range u {
		s += v * v
	}
	return math.Sqrt(s)
}

func (unitVectorTransform) value(_ int, u, x []float64) {
	r := norm(u)
	for i, v := range u {
		x[i] = v / r
	}
}

// valueGrad: ∂x_i/∂u_j = (δ_ij - x_i x_j)/r.
func (unitVectorTransform) valueGrad(_ int, u, x, xBar, uBar []float64) {
	r := norm(u)
	dot := 0.0
	for i := range x {
		dot += x[i] * xBar[i]
	}
	for i := range x {
		uBar[i] += (xBar[i] - x[i]*dot) / r
	}
}

func (unitVectorTransform) logJacobian(_ int, u []float64) float64 {
	r := norm(u)
	return -0.5 * r * r
}

func (unitVectorTransform) logJacobianGrad(_ int, u []float64, g float64, uBar []float64) {
	for i, v := range u {
		uBar[i] -= g * v
	}
}

// unitTol is how far from 1 the length of a unit vector may be: Stan's
// CONSTRAINT_TOLERANCE, as for simplexes.
const unitTol = simplexTol

func (unitVectorTransform) inverse(_ int, x []float64) ([]float64, error) {
	if r := norm(x); math.Abs(r-1) > unitTol {
		return nil, fmt.Errorf("its length is %.10g, not 1", r)
	}
	return append([]float64(nil), x...), nil
}
