package adtest_test

import (
	"math"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// The harness must be able to fail: each broken op below is caught by the
// check meant for it.

var cube = &ad.ScalarFunc{Name: "cube", Arity: 1,
	Value: func(x []float64) float64 { return x[0] * x[0] * x[0] },
	Grad:  func(dx, x []float64, _ float64) { dx[0] = 3 * x[0] * x[0] }}

func cubeCase(f *ad.ScalarFunc, ref func(float64) float64) adtest.Case {
	return adtest.Case{
		Name:   f.Name,
		Inputs: []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Real}},
		Build:  func(x []*ad.Node) *ad.Node { return ad.Elementwise(f, x[0]) },
		Reference: func(x [][]float64) []float64 {
			out := make([]float64, len(x[0]))
			for i, v := range x[0] {
				out[i] = ref(v)
			}
			return out
		},
	}
}

func TestHarnessPassesCorrectOp(t *testing.T) {
	adtest.Run(t, cubeCase(cube, func(v float64) float64 { return math.Pow(v, 3) }))
}

func TestHarnessCatchesWrongGradient(t *testing.T) {
	// A derivative off by one part in 10⁵: small, but far beyond GradRelTol.
	wrong := *cube
	wrong.Grad = func(dx, x []float64, _ float64) { dx[0] = 3 * x[0] * x[0] * (1 + 1e-5) }
	expectFailure(t, adtest.Check(cubeCase(&wrong, func(v float64) float64 { return math.Pow(v, 3) }), 1), "finite difference")
}

func TestHarnessCatchesWrongValue(t *testing.T) {
	expectFailure(t, adtest.Check(cubeCase(cube, func(v float64) float64 { return v * v * v * (1 + 1e-9) }), 1), "reference")
}

func TestHarnessCatchesReplicaLeak(t *testing.T) {
	// An op whose result depends on the replica it runs in.
	expectFailure(t, adtest.Check(adtest.Case{
		Name:   "leaky",
		Inputs: []adtest.Input{{Shape: ad.Shape{2}, Draw: adtest.Real}},
		Build: func(x []*ad.Node) *ad.Node {
			return x[0].Graph().Apply(leakyOp{}, ad.Shape{2}, x[0])
		},
	}, 1), "alone")
}

type leakyOp struct{}

func (leakyOp) Name() string { return "leaky" }
func (leakyOp) Forward(a *ad.Args) {
	for i, v := range a.In[0] {
		a.Out[i] = v + float64(a.Replica)
	}
}
func (leakyOp) Backward(a *ad.Args) {
	for i, g := range a.GradOut {
		a.GradIn[0][i] += g
	}
}

func expectFailure(t *testing.T, errs []error, want string) {
	t.Helper()
	if len(errs) == 0 {
		t.Fatalf("the harness passed a broken op; want an error mentioning %q", want)
	}
	for _, err := range errs {
		if strings.Contains(err.Error(), want) {
			return
		}
	}
	t.Fatalf("errors %v do not mention %q", errs, want)
}

func TestHarnessCatchesWrongFloat32Kernel(t *testing.T) {
	// A float32 kernel off by one part in 10³: within float32's reach of
	// the float64 one, so beyond Float32RelTol.
	expectFailure(t, adtest.Check(adtest.Case{
		Name:   "drifting",
		Inputs: []adtest.Input{{Shape: ad.Shape{3}, Draw: adtest.Real}},
		Build: func(x []*ad.Node) *ad.Node {
			return x[0].Graph().Apply(driftOp{}, ad.Shape{3}, x[0])
		},
	}, 1), "float32")
}

// driftOp is the identity in float64 and slightly off in float32.
type driftOp struct{}

func (driftOp) Name() string        { return "drift" }
func (driftOp) Forward(a *ad.Args)  { copy(a.Out, a.In[0]) }
func (driftOp) Backward(a *ad.Args) { addGrad(a.GradIn[0], a.GradOut) }
func (driftOp) Forward32(a *ad.Args32) {
	for i, v := range a.In[0] {
		a.Out[i] = v * (1 + 1e-3)
	}
}
func (driftOp) Backward32(a *ad.Args32) { addGrad(a.GradIn[0], a.GradOut) }

func addGrad[T ad.Float](dst, src []T) {
	for i, g := range src {
		dst[i] += g
	}
}

// TestHarnessCatchesPartialAssignment: an op that claims to assign its
// operand's gradient (autodiff.GradAssigner) but, asked to, skips an
// element or adds instead.
func TestHarnessCatchesPartialAssignment(t *testing.T) {
	for _, bug := range []string{"skip", "add"} {
		expectFailure(t, adtest.Check(adtest.Case{
			Name:   "assigner/" + bug,
			Inputs: []adtest.Input{{Shape: ad.Shape{3}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node {
				return x[0].Graph().Apply(twiceOp{bug}, ad.Shape{3}, x[0])
			},
		}, 1), "finite difference")
	}
}

// twiceOp is 2x, a GradAssigner with a bug.
type twiceOp struct{ bug string }

func (twiceOp) Name() string           { return "twice" }
func (twiceOp) AssignsGrad(i int) bool { return true }
func (op twiceOp) Forward(a *ad.Args) {
	for i, v := range a.In[0] {
		a.Out[i] = 2 * v
	}
}
func (op twiceOp) Backward(a *ad.Args) {
	for i, g := range a.GradOut {
		switch {
		case !a.Assign(0) || op.bug == "add":
			a.GradIn[0][i] += 2 * g
		case i > 0 || op.bug != "skip":
			a.GradIn[0][i] = 2 * g
		}
	}
}
