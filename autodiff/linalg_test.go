package autodiff_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"gonum.org/v1/gonum/mat"
)

// The linear-algebra ops through the harness: values against gonum's
// factorisations (an independent implementation), gradients against
// finite differences, replicas against single passes. The operands are
// made well conditioned inside Build from free draws: X Xᵀ + K·I for the
// Cholesky factor, X + K·I (diagonally dominant enough) for the LU-based
// ops, X + 3·I for a triangular solve's L.

// spd is X Xᵀ + K·I of the free K × K operand.
func spd(x *ad.Node, k int) *ad.Node {
	return ad.Add(ad.Matmul(x, ad.Transpose(x, 1, 0)), identity(x.Graph(), k, float64(k)))
}

// identity is s·I, K × K.
func identity(g *ad.Graph, k int, s float64) *ad.Node {
	v := make([]float64, k*k)
	for i := range k {
		v[i*k+i] = s
	}
	return g.Const(ad.Shape{k, k}, v...)
}

// dense is the K × K matrix of x plus s·I, as gonum's.
func dense(x []float64, k int, s float64) *mat.Dense {
	m := mat.NewDense(k, k, append([]float64(nil), x...))
	for i := range k {
		m.Set(i, i, m.At(i, i)+s)
	}
	return m
}

// spdDense is X Xᵀ + K·I, as gonum's.
func spdDense(x []float64, k int) *mat.SymDense {
	xm := mat.NewDense(k, k, append([]float64(nil), x...))
	var a mat.Dense
	a.Mul(xm, xm.T())
	s := mat.NewSymDense(k, nil)
	for i := range k {
		for j := range k {
			s.SetSym(i, j, a.At(i, j))
		}
		s.SetSym(i, i, a.At(i, i)+float64(k))
	}
	return s
}

// gonumCholesky is the lower factor of X Xᵀ + K·I, row-major.
func gonumCholesky(x []float64, k int) []float64 {
	var c mat.Cholesky
	if !c.Factorize(spdDense(x, k)) {
		panic("not positive definite")
	}
	var l mat.TriDense
	c.LTo(&l)
	return mat.DenseCopyOf(&l).RawMatrix().Data
}

func gonumInverse(x []float64, k int) []float64 {
	var inv mat.Dense
	if err := inv.Inverse(dense(x, k, float64(k))); err != nil {
		panic(err)
	}
	return inv.RawMatrix().Data
}

// gonumLowerSolve is L⁻¹ B for the lower triangle of X + 3·I.
func gonumLowerSolve(x, b []float64, k, n int) []float64 {
	l := mat.NewTriDense(k, mat.Lower, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			v := x[i*k+j]
			if i == j {
				v += 3
			}
			l.SetTri(i, j, v)
		}
	}
	var out mat.Dense
	if err := out.Solve(l, mat.NewDense(k, n, append([]float64(nil), b...))); err != nil {
		panic(err)
	}
	return out.RawMatrix().Data
}

// perMatrix applies a reference to each K × K matrix of a stack.
func perMatrix(k int, f func(x []float64) []float64) func(x [][]float64) []float64 {
	return func(in [][]float64) []float64 {
		var out []float64
		for m := 0; m < len(in[0]); m += k * k {
			out = append(out, f(in[0][m:m+k*k])...)
		}
		return out
	}
}

func linalgCases() []adtest.Case {
	var cases []adtest.Case
	for _, k := range []int{1, 2, 4, 6} {
		sq := ad.Shape{k, k}
		in := []adtest.Input{{Shape: sq, Draw: adtest.Real}}
		shift := func(x *ad.Node) *ad.Node { return ad.Add(x, identity(x.Graph(), k, float64(k))) }
		cases = append(cases,
			adtest.Case{Name: "cholesky_decompose/" + sq.String(), Inputs: in,
				Build:     func(x []*ad.Node) *ad.Node { return ad.CholeskyDecompose(spd(x[0], k)) },
				Reference: perMatrix(k, func(x []float64) []float64 { return gonumCholesky(x, k) })},
			adtest.Case{Name: "inverse/" + sq.String(), Inputs: in,
				Build:     func(x []*ad.Node) *ad.Node { return ad.Inverse(shift(x[0])) },
				Reference: perMatrix(k, func(x []float64) []float64 { return gonumInverse(x, k) })},
			adtest.Case{Name: "determinant/" + sq.String(), Inputs: in,
				Build: func(x []*ad.Node) *ad.Node { return ad.Determinant(shift(x[0])) },
				Reference: perMatrix(k, func(x []float64) []float64 {
					return []float64{mat.Det(dense(x, k, float64(k)))}
				})},
			// -(X + K·I): a negative determinant for odd K, whose log |det| is
			// still defined.
			adtest.Case{Name: "log_determinant/" + sq.String(), Inputs: in,
				Build: func(x []*ad.Node) *ad.Node { return ad.LogDeterminant(ad.Neg(shift(x[0]))) },
				Reference: perMatrix(k, func(x []float64) []float64 {
					m := dense(x, k, float64(k))
					m.Scale(-1, m)
					v, _ := mat.LogDet(m)
					return []float64{v}
				})},
		)
		for _, n := range []int{0, 1, 3} { // 0: b a vector
			bs := ad.Shape{k, n}
			if n == 0 {
				bs = ad.Shape{k}
			}
			cases = append(cases, adtest.Case{Name: "mdivide_left_tri_low/" + sq.String() + bs.String(),
				Inputs: []adtest.Input{{Shape: sq, Draw: adtest.Real}, {Shape: bs, Draw: adtest.Real}},
				Build: func(x []*ad.Node) *ad.Node {
					return ad.MdivideLeftTriLow(ad.Add(x[0], identity(x[0].Graph(), k, 3)), x[1])
				},
				Reference: func(x [][]float64) []float64 { return gonumLowerSolve(x[0], x[1], k, max(n, 1)) }})
		}
	}
	// Stacks of matrices: each solved apart.
	stack := ad.Shape{2, 3, 3}
	cases = append(cases,
		adtest.Case{Name: "cholesky_decompose/stack", Inputs: []adtest.Input{{Shape: stack, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node {
				// X_m X_mᵀ + 3·I of each matrix: Σ_p X[m, i, p]·X[m, j, p].
				xxt := ad.Sum(ad.Mul(ad.Reshape(x[0], 2, 3, 1, 3), ad.Reshape(x[0], 2, 1, 3, 3)), 3)
				return ad.CholeskyDecompose(ad.Add(xxt, identity(x[0].Graph(), 3, 3)))
			}},
		adtest.Case{Name: "log_determinant/stack", Inputs: []adtest.Input{{Shape: stack, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node {
				return ad.LogDeterminant(ad.Add(x[0], identity(x[0].Graph(), 3, 3)))
			},
			Reference: perMatrix(3, func(x []float64) []float64 { v, _ := mat.LogDet(dense(x, 3, 3)); return []float64{v} })},
		adtest.Case{Name: "mdivide_left_tri_low/stack", Inputs: []adtest.Input{{Shape: stack, Draw: adtest.Real}, {Shape: ad.Shape{2, 3}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node {
				return ad.MdivideLeftTriLow(ad.Add(x[0], identity(x[0].Graph(), 3, 3)), x[1])
			},
			Reference: func(x [][]float64) []float64 {
				return append(gonumLowerSolve(x[0][:9], x[1][:3], 3, 1), gonumLowerSolve(x[0][9:], x[1][3:], 3, 1)...)
			}},
		adtest.Case{Name: "cumulative_sum", Inputs: []adtest.Input{{Shape: ad.Shape{2, 5}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.CumulativeSum(x[0]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, len(x[0]))
				for i := range out {
					out[i] = x[0][i]
					if i%5 != 0 {
						out[i] += out[i-1]
					}
				}
				return out
			}},
	)
	return cases
}

func TestLinalgOps(t *testing.T) {
	for _, c := range linalgCases() {
		t.Run(c.Name, func(t *testing.T) { adtest.Run(t, c) })
	}
}

// TestLinalgAgainstGonum compares the ops with gonum on random well-
// conditioned matrices up to 40 × 40, normwise: the largest error of an
// element over the largest element of gonum's result. Backward-stable
// factorisations of matrices of condition number κ differ by about
// κ·K·ε, here far below 1e-11.
func TestLinalgAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	worst := map[string]float64{}
	for _, k := range []int{1, 2, 3, 5, 8, 13, 20, 40} {
		for range 3 {
			x := make([]float64, k*k)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			b := make([]float64, k*2)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			g := ad.NewGraph(1)
			xn := g.Const(ad.Shape{k, k}, x...)
			shifted := ad.Add(xn, identity(g, k, float64(k)))
			outs := map[string]*ad.Node{
				"cholesky_decompose":   ad.CholeskyDecompose(spd(xn, k)),
				"inverse":              ad.Inverse(shifted),
				"determinant":          ad.Determinant(shifted),
				"log_determinant":      ad.LogDeterminant(shifted),
				"mdivide_left_tri_low": ad.MdivideLeftTriLow(ad.Add(xn, identity(g, k, 3)), g.Const(ad.Shape{k, 2}, b...)),
			}
			var nodes []*ad.Node
			for _, n := range outs {
				nodes = append(nodes, n)
			}
			prog, err := g.Compile(nodes...)
			if err != nil {
				t.Fatal(err)
			}
			prog.Forward()
			det := mat.Det(dense(x, k, float64(k)))
			logDet, _ := mat.LogDet(dense(x, k, float64(k)))
			want := map[string][]float64{
				"cholesky_decompose":   gonumCholesky(x, k),
				"inverse":              gonumInverse(x, k),
				"determinant":          {det},
				"log_determinant":      {logDet},
				"mdivide_left_tri_low": gonumLowerSolve(x, b, k, 2),
			}
			for name, n := range outs {
				got, ref := prog.Value(n), want[name]
				scale, diff := 0.0, 0.0
				for i := range ref {
					scale = math.Max(scale, math.Abs(ref[i]))
					diff = math.Max(diff, math.Abs(got[i]-ref[i]))
				}
				worst[name] = math.Max(worst[name], diff/scale)
			}
		}
	}
	for name, w := range worst {
		t.Logf("%s: worst normwise relative error %.2g", name, w)
		if !(w < 1e-11) {
			t.Errorf("%s differs from gonum by %.3g relative", name, w)
		}
	}
}

// TestCholeskyOutsideDomain: a matrix that is not positive definite, or
// not symmetric, gives a NaN factor and NaN gradients, never a panic, so
// that a log density through it is NaN and the sampler rejects the point
// (Stan's domain error).
func TestCholeskyOutsideDomain(t *testing.T) {
	for name, a := range map[string][]float64{
		"indefinite":    {1, 2, 2, 1},
		"singular":      {1, 1, 1, 1},
		"not symmetric": {2, 1, 0, 2},
	} {
		g := ad.NewGraph(1)
		x := g.Input("A", ad.Param, 2, 2)
		loss := ad.SumAll(ad.CholeskyDecompose(x))
		prog, err := g.Compile(loss)
		if err != nil {
			t.Fatal(err)
		}
		if err := prog.Set(x, a); err != nil {
			t.Fatal(err)
		}
		if err := prog.ForwardBackward(loss); err != nil {
			t.Fatal(err)
		}
		if v := prog.Value(loss)[0]; !math.IsNaN(v) {
			t.Errorf("%s: sum of the factor = %v, want NaN", name, v)
		}
		for i, d := range prog.Grad(x) {
			if !math.IsNaN(d) {
				t.Errorf("%s: gradient %d = %v, want NaN", name, i, d)
			}
		}
	}
}

// TestLinalgShapes: operands that are not square matrices, or a right
// side that does not fit, are build errors naming the shapes.
func TestLinalgShapes(t *testing.T) {
	for name, build := range map[string]func(g *ad.Graph) *ad.Node{
		"cholesky_decompose takes a square matrix [K, K], and this has shape [2, 3]": func(g *ad.Graph) *ad.Node {
			return ad.CholeskyDecompose(g.Input("x", ad.Param, 2, 3))
		},
		"log_determinant takes a square matrix [K, K], and this has shape [3]": func(g *ad.Graph) *ad.Node {
			return ad.LogDeterminant(g.Input("x", ad.Param, 3))
		},
		"b must be a vector [3] or a matrix [3, N]": func(g *ad.Graph) *ad.Node {
			return ad.MdivideLeftTriLow(g.Input("L", ad.Param, 3, 3), g.Input("b", ad.Param, 2))
		},
	} {
		g := ad.NewGraph(1)
		build(g)
		if err := g.Err(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v, want one containing %q", err, name)
		}
	}
}
