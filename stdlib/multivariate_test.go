package stdlib_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// The vector densities through the harness, with references from gonum's
// distuv.Categorical, an explicit log-softmax, and the multivariate normal
// through a gonum Cholesky factorization of the covariance LLᵀ (distmv.Normal
// computes it so, but importing distmv needs golang.org/x/tools in go.sum),
// on broadcasting layouts of their leading axes.

// rowsOf returns a reference over a batch: shapes are the operands' leading
// shapes (their last axes of k, ks[i], are vectors), and f gets each
// operand's vector (a slice of length ks[i], or 1 for a label).
func rowsOf(shapes []ad.Shape, ks []int, f func(rows [][]float64) float64) func([][]float64) []float64 {
	return func(x [][]float64) []float64 {
		// Broadcast row indices with broadcastReference's arithmetic, one
		// "element" per row.
		rowIndex := make([][]float64, len(shapes))
		for i, s := range shapes {
			rowIndex[i] = make([]float64, s.Size())
			for r := range rowIndex[i] {
				rowIndex[i][r] = float64(r)
			}
		}
		rows := make([][]float64, len(shapes))
		return broadcastReference(shapes, func(idx []float64) float64 {
			for i, r := range idx {
				rows[i] = x[i][int(r)*ks[i] : (int(r)+1)*ks[i]]
			}
			return f(rows)
		})(rowIndex)
	}
}

func softmaxRow(x []float64) []float64 {
	p := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		p[i] = math.Exp(v)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// logSoftmaxAt is x_i - log Σ e^x, shifted by the maximum.
func logSoftmaxAt(x []float64, i int) float64 {
	m := x[0]
	for _, v := range x {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return x[i] - m - math.Log(s)
}

// categoricalLayouts are label shapes against vector shapes [..., K].
var categoricalLayouts = []struct {
	name         string
	label, batch ad.Shape // batch: the vectors' leading shape
	k            int
}{
	{"rows", ad.Shape{4}, ad.Shape{4}, 3},
	{"shared_vector", ad.Shape{5}, ad.Shape{}, 3},
	{"outer", ad.Shape{4}, ad.Shape{2, 1}, 3},
	{"outer_labels", ad.Shape{2, 1}, ad.Shape{5}, 4},
	{"scalar", ad.Shape{}, ad.Shape{}, 6},
}

func TestCategorical(t *testing.T) {
	for _, l := range categoricalLayouts {
		ks := []int{1, l.k}
		inputs := []adtest.Input{
			{Shape: l.label, Draw: adtest.Ints(1, l.k), Data: true},
			{Shape: append(l.batch.Clone(), l.k), Draw: adtest.Real},
		}
		shapes := []ad.Shape{l.label, l.batch}
		adtest.Run(t, adtest.Case{Name: "categorical/" + l.name, Inputs: inputs,
			// A parameter on the simplex, as the compiler's transform gives it.
			Build: func(x []*ad.Node) *ad.Node { return stdlib.CategoricalLPMF(x[0], ad.Softmax(x[1], -1)) },
			Reference: rowsOf(shapes, ks, func(rows [][]float64) float64 {
				return distuv.NewCategorical(softmaxRow(rows[1]), nil).LogProb(rows[0][0] - 1)
			})})
		adtest.Run(t, adtest.Case{Name: "categorical_logit/" + l.name, Inputs: inputs,
			Build: func(x []*ad.Node) *ad.Node { return stdlib.CategoricalLogitLPMF(x[0], x[1]) },
			Reference: rowsOf(shapes, ks, func(rows [][]float64) float64 {
				return logSoftmaxAt(rows[1], int(rows[0][0])-1)
			})})
	}
	// Far tails: logits a thousand apart, where e^β overflows.
	adtest.Run(t, adtest.Case{Name: "categorical_logit/tails",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{3}, Values: []float64{1, 2, 3}, Data: true},
			{Shape: ad.Shape{3, 3}, Values: []float64{1000, -1000, 0, 1000, -1000, 0, -800, 0, 800}},
		},
		Build: func(x []*ad.Node) *ad.Node { return stdlib.CategoricalLogitLPMF(x[0], x[1]) },
		Reference: func(x [][]float64) []float64 {
			return []float64{logSoftmaxAt(x[1][0:3], 0), logSoftmaxAt(x[1][3:6], 1), logSoftmaxAt(x[1][6:9], 2)}
		}})
	// Close logits far from zero: log p_1 = -log(1 + e^-10) in closed form,
	// which β_1 - log Σ e^β would get only to about 1e-9 relative (β_1 and the
	// log-sum-exp agree in their first 8 digits).
	adtest.Run(t, adtest.Case{Name: "categorical_logit/close",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{2}, Values: []float64{1, 2}, Data: true},
			{Shape: ad.Shape{2}, Values: []float64{1000, 990}, Data: true},
		},
		Build: func(x []*ad.Node) *ad.Node { return stdlib.CategoricalLogitLPMF(x[0], x[1]) },
		Reference: func([][]float64) []float64 {
			return []float64{-math.Log1p(math.Exp(-10)), -10 - math.Log1p(math.Exp(-10))}
		}})
}

// mvnLogProb is the normal log density at y with mean mu and covariance
// sigma: -k/2 log 2π - ½ log det Σ - ½ (y-μ)ᵀ Σ⁻¹ (y-μ), through gonum's
// Cholesky factorization of Σ.
func mvnLogProb(y, mu []float64, sigma *mat.SymDense) float64 {
	var chol mat.Cholesky
	if !chol.Factorize(sigma) {
		panic("covariance not positive definite")
	}
	k := len(mu)
	d := mat.NewVecDense(k, nil)
	d.SubVec(mat.NewVecDense(k, append([]float64(nil), y...)), mat.NewVecDense(k, append([]float64(nil), mu...)))
	var s mat.VecDense
	if err := chol.SolveVecTo(&s, d); err != nil {
		panic(err)
	}
	return -0.5*float64(k)*math.Log(2*math.Pi) - 0.5*chol.LogDet() - 0.5*mat.Dot(d, &s)
}

// mvnReference is mvnLogProb with covariance L Lᵀ, L the lower triangle of
// l (k × k, row-major).
func mvnReference(y, mu, l []float64) float64 {
	k := len(mu)
	low := mat.NewDense(k, k, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			low.Set(i, j, l[i*k+j])
		}
	}
	sigma := mat.NewSymDense(k, nil)
	sigma.SymOuterK(1, low)
	return mvnLogProb(y, mu, sigma)
}

func TestMVNDiag(t *testing.T) {
	layouts := []struct {
		name   string
		shapes []ad.Shape // y, mu, sigma
		data   bool       // y is data
	}{
		{"rows", []ad.Shape{{4, 3}, {3}, {3}}, false},
		{"same", []ad.Shape{{2, 3}, {2, 3}, {2, 3}}, false},
		{"outer", []ad.Shape{{3}, {2, 3}, {}}, true},
		{"outer_sigma", []ad.Shape{{4, 3}, {1}, {2, 1, 3}}, true},
	}
	for _, l := range layouts {
		full, _ := ad.BroadcastShapes(l.shapes...)
		k := full[len(full)-1]
		adtest.Run(t, adtest.Case{Name: "multi_normal_diag/" + l.name,
			Inputs: []adtest.Input{
				{Shape: l.shapes[0], Draw: adtest.Real, Data: l.data},
				{Shape: l.shapes[1], Draw: adtest.Real},
				{Shape: l.shapes[2], Draw: adtest.Positive},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.MultiNormalDiagLPDF(x[0], x[1], x[2]) },
			Reference: func(x [][]float64) []float64 {
				// Broadcast each operand to the full shape, then one row at a time.
				var b [3][]float64
				for i := range b {
					b[i] = broadcastReference([]ad.Shape{full, l.shapes[i]}, func(v []float64) float64 { return v[1] })(
						[][]float64{make([]float64, full.Size()), x[i]})
				}
				out := make([]float64, full.Size()/k)
				for r := range out {
					cov := mat.NewSymDense(k, nil)
					for j := range k {
						s := b[2][r*k+j]
						cov.SetSym(j, j, s*s)
					}
					out[r] = mvnLogProb(b[0][r*k:(r+1)*k], b[1][r*k:(r+1)*k], cov)
				}
				return out
			}})
	}
}

func TestMultiNormalCholesky(t *testing.T) {
	layouts := []struct {
		name  string
		y, mu ad.Shape // leading shapes
		k     int
		data  bool // y is data
	}{
		{"rows", ad.Shape{4}, ad.Shape{}, 3, false},
		{"rows_data", ad.Shape{5}, ad.Shape{}, 4, true},
		{"single", ad.Shape{}, ad.Shape{}, 3, false},
		{"outer", ad.Shape{}, ad.Shape{2, 1}, 3, true},
		{"outer_both", ad.Shape{4}, ad.Shape{2, 1}, 2, false},
		{"k1", ad.Shape{5}, ad.Shape{}, 1, false},
		{"k7", ad.Shape{2}, ad.Shape{2}, 7, false},
	}
	for _, l := range layouts {
		k := l.k
		adtest.Run(t, adtest.Case{Name: "multi_normal_cholesky/" + l.name,
			Inputs: []adtest.Input{
				{Shape: append(l.y.Clone(), k), Draw: adtest.Real, Data: l.data},
				{Shape: append(l.mu.Clone(), k), Draw: adtest.Real},
				// Entries of both signs, the diagonal positive: a
				// well-conditioned factor whose upper triangle is noise.
				{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(0.5, 1.5)},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.MultiNormalCholeskyLPDF(x[0], x[1], x[2]) },
			Reference: func(x [][]float64) []float64 {
				return rowsOf([]ad.Shape{l.y, l.mu}, []int{k, k}, func(rows [][]float64) float64 {
					return mvnReference(rows[0], rows[1], x[2])
				})(x[:2])
			}})
	}
}

// TestVectorOutOfSupport checks -Inf with zero partials for the vector
// densities: a bad row is -Inf and passes no gradient, the other rows are
// untouched.
func TestVectorOutOfSupport(t *testing.T) {
	f2 := func(f func(a, b *ad.Node) *ad.Node) func(...*ad.Node) *ad.Node {
		return func(x ...*ad.Node) *ad.Node { return f(x[0], x[1]) }
	}
	f3 := func(f func(a, b, c *ad.Node) *ad.Node) func(...*ad.Node) *ad.Node {
		return func(x ...*ad.Node) *ad.Node { return f(x[0], x[1], x[2]) }
	}
	cases := []struct {
		name   string
		f      func(...*ad.Node) *ad.Node
		shapes []ad.Shape
		args   [][]float64
		bad    []bool // per result element
	}{
		{"categorical labels", f2(stdlib.CategoricalLPMF), []ad.Shape{{5}, {3}},
			[][]float64{{0, 4, 1.5, -1, 2}, {0.2, 0.3, 0.5}}, []bool{true, true, true, true, false}},
		{"categorical theta", f2(stdlib.CategoricalLPMF), []ad.Shape{{5}, {5, 3}},
			[][]float64{{1, 1, 2, 3, 3}, {0.5, 0.6, -0.1, 0.2, 0.3, 0.6, 0.5, 0.5, 1e-7, 1.5, -0.25, -0.25, 0.5, 0.5, 0}},
			[]bool{true, true, true, true, true}},
		{"categorical_logit", f2(stdlib.CategoricalLogitLPMF), []ad.Shape{{4}, {4, 2}},
			[][]float64{{0, 3, 1, 2}, {1, 2, 1, 2, plusInf, 0, 0, -plusInf}}, []bool{true, true, true, true}},
		{"multi_normal_diag", f3(stdlib.MultiNormalDiagLPDF), []ad.Shape{{3, 2}, {2}, {3, 2}},
			[][]float64{{0, 1, 2, 3, 4, plusInf}, {0, 1}, {1, 0, -1, 1, 1, 1}}, []bool{true, true, true}},
		{"multi_normal_cholesky diagonal", f3(stdlib.MultiNormalCholeskyLPDF), []ad.Shape{{2, 2}, {2}, {2, 2}},
			[][]float64{{0, 1, 2, 3}, {0, 1}, {1, 0, 0.5, -1}}, []bool{true, true}},
		{"multi_normal_cholesky zero", f3(stdlib.MultiNormalCholeskyLPDF), []ad.Shape{{2}, {2}, {2, 2}},
			[][]float64{{0, 1}, {0, 1}, {0, 0, 0.5, 1}}, []bool{true}},
		{"multi_normal_cholesky infinite", f3(stdlib.MultiNormalCholeskyLPDF), []ad.Shape{{2}, {2}, {2, 2}},
			[][]float64{{0, 1}, {0, 1}, {1, 0, -plusInf, 1}}, []bool{true}},
		{"multi_normal_cholesky y", f3(stdlib.MultiNormalCholeskyLPDF), []ad.Shape{{3, 2}, {2}, {2, 2}},
			[][]float64{{0, plusInf, -plusInf, 1, 0.5, 0.5}, {0, 1}, {1, 0, 0.5, 1}}, []bool{true, true, false}},
		{"dirichlet theta", f2(stdlib.DirichletLPDF), []ad.Shape{{5, 3}, {3}},
			[][]float64{{0.5, 0.6, -0.1, 0, 0.5, 0.5, 0.2, 0.2, 0.2, 1.5, -0.25, -0.25, 0.2, 0.3, 0.5}, {1.5, 2, 0.5}},
			[]bool{true, true, true, true, false}},
		{"dirichlet alpha", f2(stdlib.DirichletLPDF), []ad.Shape{{3}, {4, 3}},
			[][]float64{{0.2, 0.3, 0.5}, {0, 1, 1, -1, 1, 1, 1, plusInf, 1, 1, 1, 1}}, []bool{true, true, true, false}},
		{"multi_normal asymmetric", f3(stdlib.MultiNormalLPDF), []ad.Shape{{2, 2}, {2}, {2, 2}},
			[][]float64{{0, 1, 2, 3}, {0, 1}, {1, 0.5, 0.4, 1}}, []bool{true, true}},
		{"multi_normal indefinite", f3(stdlib.MultiNormalLPDF), []ad.Shape{{2}, {2}, {2, 2}},
			[][]float64{{0, 1}, {0, 1}, {1, 2, 2, 1}}, []bool{true}},
		{"multi_normal singular", f3(stdlib.MultiNormalLPDF), []ad.Shape{{2}, {2}, {2, 2}},
			[][]float64{{0, 1}, {0, 1}, {1, 1, 1, 1}}, []bool{true}},
		{"multi_normal infinite", f3(stdlib.MultiNormalLPDF), []ad.Shape{{2}, {2}, {2, 2}},
			[][]float64{{0, 1}, {0, 1}, {plusInf, 0, 0, 1}}, []bool{true}},
		{"multi_normal y", f3(stdlib.MultiNormalLPDF), []ad.Shape{{3, 2}, {2}, {2, 2}},
			[][]float64{{0, plusInf, -plusInf, 1, 0.5, 0.5}, {0, 1}, {1, 0.5, 0.5, 1}}, []bool{true, true, false}},
		{"lkj eta", f2(stdlib.LKJCorrCholeskyLPDF), []ad.Shape{{3, 2, 2}, {3}},
			[][]float64{{1, 0, 0.6, 0.8, 1, 0, 0.6, 0.8, 1, 0, 0.6, 0.8}, {0, -1, plusInf}}, []bool{true, true, true}},
		{"lkj diagonal", f2(stdlib.LKJCorrCholeskyLPDF), []ad.Shape{{4, 2, 2}, {}},
			[][]float64{{1, 0, 0.6, 0, 1, 0, 0.6, -0.8, 0, 0, 0.6, 0.8, 1, 0, plusInf, 0.8}, {2}}, []bool{true, true, true, true}},
		{"ordered_logistic labels", f3(stdlib.OrderedLogisticLPMF), []ad.Shape{{5}, {}, {2}},
			[][]float64{{0, 4, 1.5, -1, 2}, {0.3}, {-1, 1}}, []bool{true, true, true, true, false}},
		{"ordered_logistic cutpoints", f3(stdlib.OrderedLogisticLPMF), []ad.Shape{{}, {}, {4, 2}},
			[][]float64{{2}, {0.3}, {1, 1, 1, -1, -plusInf, 1, 0, plusInf}}, []bool{true, true, true, true}},
		{"ordered_logistic eta", f3(stdlib.OrderedLogisticLPMF), []ad.Shape{{}, {2}, {2}},
			[][]float64{{2}, {plusInf, -plusInf}, {-1, 1}}, []bool{true, true}},
	}
	for _, c := range cases {
		vals, grads := evalDensity(t, c.f, c.shapes, c.args)
		for j, v := range vals {
			if c.bad[j] != math.IsInf(v, -1) || math.IsNaN(v) {
				t.Errorf("%s: value %d = %v, want -Inf: %v", c.name, j, v, c.bad[j])
			}
		}
		allBad := true
		for _, b := range c.bad {
			allBad = allBad && b
		}
		for i, g := range grads {
			for e, v := range g {
				if math.IsNaN(v) || allBad && v != 0 {
					t.Errorf("%s: ∂/∂operand %d element %d = %v, want 0", c.name, i, e, v)
				}
			}
		}
	}
	// The good row of a partly bad multi_normal_diag gets its gradient, the bad rows none.
	_, grads := evalDensity(t, f3(stdlib.MultiNormalDiagLPDF), []ad.Shape{{2, 2}, {2}, {2, 2}},
		[][]float64{{0, 1, 2, 3}, {0, 1}, {1, 1, -1, 1}})
	if g := grads[2]; g[0] == 0 || g[1] == 0 || g[2] != 0 || g[3] != 0 {
		t.Errorf("multi_normal_diag: ∂/∂sigma = %v, want nonzero on row 0 only", g)
	}
}

func TestVectorShapeErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *ad.Graph) *ad.Node
	}{
		{"categorical of a scalar", func(g *ad.Graph) *ad.Node {
			return stdlib.CategoricalLPMF(g.Input("y", ad.Data), g.Input("theta", ad.Param))
		}},
		{"categorical labels", func(g *ad.Graph) *ad.Node {
			return stdlib.CategoricalLogitLPMF(g.Input("y", ad.Data, 3), g.Input("beta", ad.Param, 4, 2))
		}},
		{"multi_normal_diag of scalars", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalDiagLPDF(g.Input("y", ad.Data), g.Input("mu", ad.Param), g.Scalar(1))
		}},
		{"multi_normal_diag shapes", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalDiagLPDF(g.Input("y", ad.Data, 3), g.Input("mu", ad.Param, 2), g.Scalar(1))
		}},
		{"cholesky not square", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(g.Input("y", ad.Data, 3), g.Input("mu", ad.Param, 3), g.Input("L", ad.Param, 3, 2))
		}},
		{"cholesky size", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(g.Input("y", ad.Data, 2), g.Input("mu", ad.Param, 3), g.Input("L", ad.Param, 3, 3))
		}},
		{"cholesky batch", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(g.Input("y", ad.Data, 4, 3), g.Input("mu", ad.Param, 2, 3), g.Input("L", ad.Param, 3, 3))
		}},
		{"dirichlet lengths", func(g *ad.Graph) *ad.Node {
			return stdlib.DirichletLPDF(g.Input("theta", ad.Param, 3), g.Input("alpha", ad.Data, 4))
		}},
		{"dirichlet of a scalar", func(g *ad.Graph) *ad.Node {
			return stdlib.DirichletLPDF(g.Input("theta", ad.Param), g.Input("alpha", ad.Data))
		}},
		{"multi_normal not square", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalLPDF(g.Input("y", ad.Data, 3), g.Input("mu", ad.Param, 3), g.Input("S", ad.Param, 3, 2))
		}},
		{"multi_normal size", func(g *ad.Graph) *ad.Node {
			return stdlib.MultiNormalLPDF(g.Input("y", ad.Data, 2), g.Input("mu", ad.Param, 3), g.Input("S", ad.Param, 3, 3))
		}},
		{"lkj not square", func(g *ad.Graph) *ad.Node {
			return stdlib.LKJCorrCholeskyLPDF(g.Input("L", ad.Param, 3, 2), g.Scalar(1))
		}},
		{"lkj eta batch", func(g *ad.Graph) *ad.Node {
			return stdlib.LKJCorrCholeskyLPDF(g.Input("L", ad.Param, 4, 3, 3), g.Input("eta", ad.Param, 3))
		}},
		{"ordered_logistic no cutpoints", func(g *ad.Graph) *ad.Node {
			return stdlib.OrderedLogisticLPMF(g.Input("k", ad.Data, 3), g.Input("eta", ad.Param, 3), g.Input("c", ad.Param))
		}},
		{"ordered_logistic batch", func(g *ad.Graph) *ad.Node {
			return stdlib.OrderedLogisticLPMF(g.Input("k", ad.Data, 3), g.Input("eta", ad.Param, 4), g.Input("c", ad.Param, 2))
		}},
		{"glm beta matrix", func(g *ad.Graph) *ad.Node {
			return stdlib.BernoulliLogitGLMLPMF(g.Input("y", ad.Data, 5), g.Input("x", ad.Data, 5, 3), g.Scalar(0), g.Input("b", ad.Param, 3, 1))
		}},
		{"glm lengths", func(g *ad.Graph) *ad.Node {
			return stdlib.NormalIDGLMLPDF(g.Input("y", ad.Data, 5), g.Input("x", ad.Data, 5, 3), g.Scalar(0), g.Input("b", ad.Param, 4), g.Scalar(1))
		}},
		{"failed operand", func(g *ad.Graph) *ad.Node {
			bad := ad.Add(g.Input("a", ad.Param, 2), g.Input("b", ad.Param, 3))
			return stdlib.MultiNormalCholeskyLPDF(bad, g.Input("mu", ad.Param, 3), g.Input("L", ad.Param, 3, 3))
		}},
	}
	for _, c := range cases {
		g := ad.NewGraph(2)
		if out := c.build(g); out == nil || !out.Failed() || g.Err() == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if stdlib.CategoricalLPMF(nil, nil) != nil {
		t.Error("categorical of nil operands is not nil")
	}
}

// TestDensitiesDoNotAllocate: a compiled program replays the densities
// without allocating, the vector ones included (their scratch lives on the
// stack for K ≤ 64).
func TestDensitiesDoNotAllocate(t *testing.T) {
	g := ad.NewGraph(2)
	y := g.Input("y", ad.Data, 8, 3)
	labels := g.Input("labels", ad.Data, 8)
	mu := g.Input("mu", ad.Param, 3)
	sigma := g.Input("sigma", ad.Param, 3)
	l := g.Input("L", ad.Param, 3, 3)
	beta := g.Input("beta", ad.Param, 8, 3)
	cov := g.Input("Sigma", ad.Param, 3, 3)
	terms := []*ad.Node{
		stdlib.MultiNormalLPDF(y, mu, cov),
		stdlib.DirichletLPDF(ad.Softmax(beta, -1), sigma),
		stdlib.LKJCorrCholeskyLPDF(l, sigma),
		stdlib.OrderedLogisticLPMF(labels, ad.Sum(beta, 1), mu),
		stdlib.NormalLPDF(y, mu, sigma),
		stdlib.StudentTLPDF(y, sigma, mu, sigma),
		stdlib.MultiNormalDiagLPDF(y, mu, sigma),
		stdlib.MultiNormalCholeskyLPDF(y, mu, l),
		stdlib.CategoricalLogitLPMF(labels, beta),
		stdlib.CategoricalLPMF(labels, ad.Softmax(beta, -1)),
	}
	loss := ad.SumAll(terms[0])
	for _, n := range terms[1:] {
		loss = ad.Add(loss, ad.SumAll(n))
	}
	prog, err := g.Compile(loss)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*ad.Node{sigma, l} {
		v := prog.Value(in)
		for i := range v {
			v[i] = 1
		}
	}
	for i, v := range []float64{2, 0.5, 0, 0.5, 2, 0.5, 0, 0.5, 2} {
		prog.Value(cov)[i] = v
	}
	for i, v := range []float64{-1, 0, 1} {
		prog.Value(mu)[i] = v
	}
	lv := prog.Value(labels)
	for i := range lv {
		lv[i] = float64(1 + i%3)
	}
	allocs := testing.AllocsPerRun(10, func() {
		prog.Forward()
		if err := prog.Backward(loss); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Forward and Backward allocate %v times", allocs)
	}
	if v := prog.Value(loss); math.IsNaN(v[0]) || math.IsInf(v[0], 0) {
		t.Errorf("loss = %v", v)
	}
}
