package stdlib_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// Each transform is tested three ways: value and log-Jacobian against closed
// forms and gradients through the harness; the log-Jacobian against the log
// determinant of a finite-difference Jacobian; and the inverse round trip.

type transformCase struct {
	name   string
	inputs []adtest.Input
	apply  func(x []*ad.Node) (*ad.Node, *ad.Node)
	value  func(u, lb, ub float64) float64
	logJac func(u, lb, ub float64) float64
}

func sigmoid(u float64) float64 { return 1 / (1 + math.Exp(-u)) }

var transformCases = []transformCase{
	{"lower", []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Real}},
		func(x []*ad.Node) (*ad.Node, *ad.Node) { return stdlib.LowerBound(x[0], x[1]) },
		func(u, lb, _ float64) float64 { return lb + math.Exp(u) },
		func(u, _, _ float64) float64 { return u }},
	{"upper", []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Real}},
		func(x []*ad.Node) (*ad.Node, *ad.Node) { return stdlib.UpperBound(x[0], x[1]) },
		func(u, ub, _ float64) float64 { return ub - math.Exp(u) },
		func(u, _, _ float64) float64 { return u }},
	{"interval", []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Uniform(-3, -1)}, {Shape: ad.Shape{}, Draw: adtest.Uniform(1, 4)}},
		func(x []*ad.Node) (*ad.Node, *ad.Node) { return stdlib.Interval(x[0], x[1], x[2]) },
		func(u, lb, ub float64) float64 { return lb + (ub-lb)/(1+math.Exp(-u)) },
		func(u, lb, ub float64) float64 { s := sigmoid(u); return math.Log((ub - lb) * s * (1 - s)) }},
	// Stan's offset and multiplier: lb is the offset, ub the multiplier.
	{"affine", []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Uniform(0.5, 3)}},
		func(x []*ad.Node) (*ad.Node, *ad.Node) { return stdlib.Affine(x[0], x[1], x[2]) },
		func(u, offset, multiplier float64) float64 { return offset + multiplier*u },
		func(_, _, multiplier float64) float64 { return math.Log(multiplier) }},
}

func TestBoundTransforms(t *testing.T) {
	for _, c := range transformCases {
		bound := func(x [][]float64, i int) (float64, float64) {
			lb, ub := x[1][0], 0.0
			if len(x) > 2 {
				ub = x[2][0]
			}
			return lb, ub
		}
		for part, f := range []func(u, lb, ub float64) float64{c.value, c.logJac} {
			name := c.name + []string{"/value", "/log_jacobian"}[part]
			t.Run(name, func(t *testing.T) {
				adtest.Run(t, adtest.Case{
					Name:   name,
					Inputs: c.inputs,
					Build: func(x []*ad.Node) *ad.Node {
						v, lj := c.apply(x)
						return []*ad.Node{v, lj}[part]
					},
					Reference: func(x [][]float64) []float64 {
						out := make([]float64, len(x[0]))
						for i, u := range x[0] {
							lb, ub := bound(x, i)
							out[i] = f(u, lb, ub)
						}
						return out
					},
					ValueTol: 1e-9, // log((ub-lb)·s·(1-s)) loses a few digits to the product
				})
			})
		}
	}
}

// TestBoundLogJacobiansMatchDerivatives checks log|dx/du| against the log of
// a central difference of x(u): the tolerance 1e-6 covers the O(h²) error at
// h = 1e-4 for |u| ≤ 2.
func TestBoundLogJacobiansMatchDerivatives(t *testing.T) {
	for _, c := range transformCases {
		for _, u := range []float64{-2, -0.3, 0, 0.7, 2} {
			lb, ub := -1.5, 2.5
			h := 1e-4
			d := (c.value(u+h, lb, ub) - c.value(u-h, lb, ub)) / (2 * h)
			got := evalPair(t, c, u, lb, ub)
			if math.Abs(got-math.Log(math.Abs(d))) > 1e-6 {
				t.Errorf("%s at u=%v: log-Jacobian %v, log|dx/du| %v", c.name, u, got, math.Log(math.Abs(d)))
			}
		}
	}
}

func evalPair(t *testing.T, c transformCase, u, lb, ub float64) float64 {
	t.Helper()
	g := ad.NewGraph(1)
	ins := []*ad.Node{g.Input("u", ad.Param, 4), g.Input("lb", ad.Data), g.Input("ub", ad.Data)}
	_, lj := c.apply(ins[:len(c.inputs)])
	p, err := g.Compile(lj)
	if err != nil {
		t.Fatal(err)
	}
	copy(p.Value(ins[0]), []float64{u, u, u, u})
	p.Value(ins[1])[0], p.Value(ins[2])[0] = lb, ub
	if c.name == "upper" {
		p.Value(ins[1])[0] = ub
	}
	p.Forward()
	return p.Value(lj)[0]
}

func TestBoundInverses(t *testing.T) {
	for _, u := range []float64{-3, -0.5, 0, 1.2, 3} {
		x := 1.5 + math.Exp(u)
		if back, err := stdlib.LowerBoundInverse(x, 1.5); err != nil || math.Abs(back-u) > 1e-12 {
			t.Errorf("lower: u=%v back %v, %v", u, back, err)
		}
		x = 1.5 - math.Exp(u)
		if back, err := stdlib.UpperBoundInverse(x, 1.5); err != nil || math.Abs(back-u) > 1e-12 {
			t.Errorf("upper: u=%v back %v, %v", u, back, err)
		}
		x = -1 + 3*sigmoid(u)
		if back, err := stdlib.IntervalInverse(x, -1, 2); err != nil || math.Abs(back-u) > 1e-12 {
			t.Errorf("interval: u=%v back %v, %v", u, back, err)
		}
	}
	for _, err := range []error{
		second(stdlib.LowerBoundInverse(1, 1)),
		second(stdlib.UpperBoundInverse(2, 1)),
		second(stdlib.IntervalInverse(3, -1, 2)),
		second(stdlib.IntervalInverse(0, 2, 2)),
		second(stdlib.SimplexInverse([]float64{0.5, 0.6})),
		second(stdlib.SimplexInverse([]float64{1, 0})),
	} {
		if err == nil {
			t.Error("an inverse accepted a value outside its support")
		}
	}
}

func second(_ any, err error) error { return err }

func TestSimplex(t *testing.T) {
	for _, s := range []ad.Shape{{1}, {3}, {2, 4}} {
		for part, name := range []string{"simplex", "simplex_log_jacobian"} {
			t.Run(name+s.String(), func(t *testing.T) {
				adtest.Run(t, adtest.Case{
					Name:   name,
					Inputs: []adtest.Input{{Shape: s, Draw: adtest.Real}},
					Build: func(x []*ad.Node) *ad.Node {
						v, lj := stdlib.Simplex(x[0])
						return []*ad.Node{v, lj}[part]
					},
					Reference: func(x [][]float64) []float64 {
						km1 := s[len(s)-1]
						var out []float64
						for r := 0; r < len(x[0]); r += km1 {
							v, lj := simplexReference(x[0][r : r+km1])
							if part == 0 {
								out = append(out, v...)
							} else {
								out = append(out, lj)
							}
						}
						return out
					},
					ValueTol: 1e-9, // the log-determinant reference sums K-1 logs
				})
			})
		}
	}
}

// simplexReference computes the stick-breaking map in closed form and its
// log-Jacobian as the log-determinant of the (K-1)×(K-1) Jacobian of
// x_1..x_{K-1} with respect to u, built analytically column by column from
// the product form x_k = σ_k Π_{j<k} (1 - σ_j).
func simplexReference(u []float64) ([]float64, float64) {
	km1 := len(u)
	z := make([]float64, km1)
	for j := range u {
		z[j] = sigmoid(u[j] - math.Log(float64(km1-j)))
	}
	x := make([]float64, km1+1)
	jac := mat.NewDense(km1, km1, nil)
	for k := range km1 {
		prod := 1.0
		for j := range k {
			prod *= 1 - z[j]
		}
		x[k] = z[k] * prod
		for j := range km1 {
			dz := z[j] * (1 - z[j])
			switch {
			case j == k:
				jac.Set(k, j, dz*prod)
			case j < k:
				jac.Set(k, j, -x[k]/(1-z[j])*dz)
			}
		}
	}
	x[km1] = 1
	for k := range km1 {
		x[km1] -= x[k]
	}
	logDet, sign := mat.LogDet(jac)
	if sign <= 0 {
		panic("simplex Jacobian is not positive")
	}
	return x, logDet
}

func TestSimplexRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		k := 2 + rng.IntN(6)
		x := make([]float64, k)
		sum := 0.0
		for i := range x {
			x[i] = 0.05 + rng.Float64()
			sum += x[i]
		}
		for i := range x {
			x[i] /= sum
		}
		u, err := stdlib.SimplexInverse(x)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := simplexReference(u)
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-12 {
				t.Fatalf("round trip of %v gave %v", x, back)
			}
		}
	}
}
