package autodiff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// The op table: every op of the package, on several shapes including
// broadcasting and random ones, run through the shared harness (value against
// an independent reference, gradient against finite differences, replicas
// against single passes).

func TestOps(t *testing.T) {
	for _, c := range opCases() {
		t.Run(c.Name, func(t *testing.T) { adtest.Run(t, c) })
	}
}

type unaryCase struct {
	name  string
	build func(*ad.Node) *ad.Node
	ref   func(float64) float64
	draw  func(*rand.Rand) float64
}

var unaryCases = []unaryCase{
	{"neg", ad.Neg, func(x float64) float64 { return -x }, adtest.Real},
	{"exp", ad.Exp, math.Exp, adtest.Real},
	{"log", ad.Log, math.Log, adtest.Positive},
	{"log1p", ad.Log1p, func(x float64) float64 { return math.Log(1 + x) }, adtest.Uniform(-0.9, 3)},
	{"expm1", ad.Expm1, func(x float64) float64 { return math.Exp(x) - 1 }, adtest.Uniform(0.5, 2)},
	{"sqrt", ad.Sqrt, func(x float64) float64 { return math.Pow(x, 0.5) }, adtest.Positive},
	{"square", ad.Square, func(x float64) float64 { return math.Pow(x, 2) }, adtest.Real},
	{"abs", ad.Abs, func(x float64) float64 { return math.Max(x, -x) }, adtest.Real},
	{"sin", ad.Sin, math.Sin, adtest.Real},
	{"cos", ad.Cos, math.Cos, adtest.Real},
	{"tanh", ad.Tanh, func(x float64) float64 { return (math.Exp(2*x) - 1) / (math.Exp(2*x) + 1) }, adtest.Real},
	{"sigmoid", ad.Sigmoid, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, adtest.Uniform(-30, 30)},
	{"softplus", ad.Softplus, softplusReference, adtest.Uniform(-30, 30)},
	{"log_sigmoid", ad.LogSigmoid, func(x float64) float64 { return -softplusReference(-x) }, adtest.Uniform(-30, 30)},
	{"relu", ad.Relu, func(x float64) float64 { return math.Max(x, 0) }, adtest.Real},
	{"lgamma", ad.Lgamma, func(x float64) float64 { v, _ := math.Lgamma(x); return v }, adtest.Uniform(0.3, 8)},
	{"lgamma_negative", ad.Lgamma, func(x float64) float64 { v, _ := math.Lgamma(x); return v }, adtest.Uniform(-2.9, -2.1)},
	{"digamma", ad.Digamma, digammaReference, halfIntegers},
}

type binaryCase struct {
	name  string
	build func(a, b *ad.Node) *ad.Node
	ref   func(a, b float64) float64
	da    func(*rand.Rand) float64
	db    func(*rand.Rand) float64
}

var binaryCases = []binaryCase{
	{"add", ad.Add, func(a, b float64) float64 { return a + b }, adtest.Real, adtest.Real},
	{"sub", ad.Sub, func(a, b float64) float64 { return a - b }, adtest.Real, adtest.Real},
	{"mul", ad.Mul, func(a, b float64) float64 { return a * b }, adtest.Real, adtest.Real},
	{"div", ad.Div, func(a, b float64) float64 { return a / b }, adtest.Real, adtest.Real},
	{"pow", ad.Pow, func(a, b float64) float64 { return math.Exp(b * math.Log(a)) }, adtest.Positive, adtest.Real},
}

// broadcastPairs are operand shapes covering equal shapes, scalars, a bias
// row, outer products and rank promotion.
var broadcastPairs = [][2]ad.Shape{
	{{2, 3}, {2, 3}},
	{{}, {}},
	{{2, 3}, {}},
	{{}, {4}},
	{{4, 3}, {3}},
	{{2, 1}, {1, 3}},
	{{4, 1, 3}, {2, 1}},
	{{3, 1}, {2, 3, 4}},
}

func opCases() []adtest.Case {
	var cases []adtest.Case
	rng := rand.New(rand.NewPCG(7, 7))
	for _, u := range unaryCases {
		for _, s := range []ad.Shape{{}, {5}, {2, 3}} {
			cases = append(cases, adtest.Case{
				Name:      fmt.Sprintf("%s%v", u.name, s),
				Inputs:    []adtest.Input{{Shape: s, Draw: u.draw}},
				Build:     func(x []*ad.Node) *ad.Node { return u.build(x[0]) },
				Reference: func(x [][]float64) []float64 { return mapRef(x[0], u.ref) },
			})
		}
	}
	pairs := append([][2]ad.Shape(nil), broadcastPairs...)
	for range 4 {
		pairs = append(pairs, randomBroadcastPair(rng))
	}
	for _, b := range binaryCases {
		for _, p := range pairs {
			out, err := ad.BroadcastShapes(p[0], p[1])
			if err != nil {
				panic(err)
			}
			cases = append(cases, adtest.Case{
				Name:   fmt.Sprintf("%s%v%v", b.name, p[0], p[1]),
				Inputs: []adtest.Input{{Shape: p[0], Draw: b.da}, {Shape: p[1], Draw: b.db}},
				Build:  func(x []*ad.Node) *ad.Node { return b.build(x[0], x[1]) },
				Reference: func(x [][]float64) []float64 {
					return broadcastRef(out, []ad.Shape{p[0], p[1]}, x, func(v []float64) float64 { return b.ref(v[0], v[1]) })
				},
			})
		}
	}
	cases = append(cases, tailCases()...)
	cases = append(cases, reductionCases()...)
	cases = append(cases, linearAlgebraCases()...)
	cases = append(cases, shapeCases()...)
	return cases
}

// randomBroadcastPair draws a shape of rank ≤ 3 with extents in 1..4 and a
// partner that keeps some of its trailing axes and sets others to 1.
func randomBroadcastPair(rng *rand.Rand) [2]ad.Shape {
	rank := 1 + rng.IntN(3)
	a := make(ad.Shape, rank)
	for i := range a {
		a[i] = 1 + rng.IntN(4)
	}
	b := a[rng.IntN(rank):].Clone()
	for i := range b {
		if rng.IntN(2) == 0 {
			b[i] = 1
		}
	}
	if rng.IntN(2) == 0 {
		return [2]ad.Shape{b, a}
	}
	return [2]ad.Shape{a, b}
}

// tailCases check values far out, where a naive formula overflows or loses
// every digit. The operands are data: a finite difference with a step of
// 1e-3·|x| means nothing at exp(700), and the gradient formulas are the ones
// the op table checks at ordinary points.
func tailCases() []adtest.Case {
	tails := []struct {
		name string
		f    func(*ad.Node) *ad.Node
		x    []float64
		want []float64 // closed forms or series, noted per line
	}{
		{"exp", ad.Exp, []float64{700, -700}, []float64{1.0142320547350045e304, 9.859676543759770e-305}},
		{"log", ad.Log, []float64{1e-300, 1e300}, []float64{-300 * math.Ln10, 300 * math.Ln10}},
		// log1p(x) = x - x²/2 and expm1(x) = x + x²/2 to rounding at x = 1e-20.
		{"log1p", ad.Log1p, []float64{1e-20, -1e-20}, []float64{1e-20, -1e-20}},
		{"expm1", ad.Expm1, []float64{1e-20, -1e-20}, []float64{1e-20, -1e-20}},
		{"tanh", ad.Tanh, []float64{20, -20}, []float64{1 - 2*math.Exp(-40), -1 + 2*math.Exp(-40)}},
		// σ(x) = e^x/(1+e^x) ≈ e^x far left; softplus(x) ≈ x far right and e^x far left.
		{"sigmoid", ad.Sigmoid, []float64{-700, 700}, []float64{math.Exp(-700), 1}},
		{"softplus", ad.Softplus, []float64{-700, 700}, []float64{math.Exp(-700), 700}},
		{"log_sigmoid", ad.LogSigmoid, []float64{-700, 700}, []float64{-700, -math.Exp(-700)}},
		// Stirling: log Γ(x) ≈ (x-½)log x - x + ½log 2π + 1/12x at 1e5;
		// log Γ(x) ≈ -log x - γx near 0.
		{"lgamma", ad.Lgamma, []float64{1e5, 1e-8},
			[]float64{(1e5-0.5)*math.Log(1e5) - 1e5 + 0.5*math.Log(2*math.Pi) + 1/(12*1e5) - 1/(360*1e15), -math.Log(1e-8) - 0.57721566490153286*1e-8}},
		// ψ(x) ≈ log x - 1/2x at 1e8; ψ(x) ≈ -1/x - γ near 0.
		{"digamma", ad.Digamma, []float64{1e8, 1e-8}, []float64{math.Log(1e8) - 0.5e-8, -1e8 - 0.57721566490153286}},
	}
	var cases []adtest.Case
	for _, tc := range tails {
		cases = append(cases, adtest.Case{
			Name:        tc.name + "/tails",
			Float64Only: true,
			Inputs:      []adtest.Input{{Shape: ad.Shape{len(tc.x)}, Values: tc.x, Data: true}},
			Build:       func(x []*ad.Node) *ad.Node { return tc.f(x[0]) },
			Reference:   func([][]float64) []float64 { return tc.want },
		})
	}
	// Log-sum-exp and log-softmax of numbers whose exponentials overflow.
	cases = append(cases,
		adtest.Case{Name: "log_sum_exp/overflow",
			Inputs:    []adtest.Input{{Shape: ad.Shape{3}, Values: []float64{1000, 1000, -1000}, Data: true}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.LogSumExpAll(x[0]) },
			Reference: func([][]float64) []float64 { return []float64{1000 + math.Ln2} }},
		adtest.Case{Name: "log_softmax/overflow",
			Inputs: []adtest.Input{{Shape: ad.Shape{2}, Values: []float64{1000, 990}, Data: true}},
			Build:  func(x []*ad.Node) *ad.Node { return ad.LogSoftmax(x[0], 0) },
			Reference: func([][]float64) []float64 {
				return []float64{-math.Log1p(math.Exp(-10)), -10 - math.Log1p(math.Exp(-10))}
			}},
	)
	return cases
}

func reductionCases() []adtest.Case {
	type red struct {
		name  string
		build func(*ad.Node, int) *ad.Node
		all   func(*ad.Node) *ad.Node
		ref   func([]float64) float64
	}
	sum := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s
	}
	reds := []red{
		{"sum", ad.Sum, ad.SumAll, sum},
		{"mean", ad.Mean, ad.MeanAll, func(v []float64) float64 { return sum(v) / float64(len(v)) }},
		{"max", ad.Max, ad.MaxAll, func(v []float64) float64 {
			m := v[0]
			for _, x := range v {
				m = math.Max(m, x)
			}
			return m
		}},
		{"log_sum_exp", ad.LogSumExp, ad.LogSumExpAll, func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += math.Exp(x)
			}
			return math.Log(s)
		}},
	}
	var cases []adtest.Case
	for _, r := range reds {
		for _, sa := range []struct {
			shape ad.Shape
			axis  int
		}{{ad.Shape{5}, 0}, {ad.Shape{3, 4}, 0}, {ad.Shape{3, 4}, 1}, {ad.Shape{3, 4}, -1}, {ad.Shape{2, 3, 4}, 1}} {
			cases = append(cases, adtest.Case{
				Name:      fmt.Sprintf("%s%v/axis%d", r.name, sa.shape, sa.axis),
				Inputs:    []adtest.Input{{Shape: sa.shape, Draw: adtest.Real}},
				Build:     func(x []*ad.Node) *ad.Node { return r.build(x[0], sa.axis) },
				Reference: func(x [][]float64) []float64 { return alongAxisRef(sa.shape, sa.axis, x[0], r.ref) },
			})
		}
		cases = append(cases, adtest.Case{
			Name:      r.name + "_all",
			Inputs:    []adtest.Input{{Shape: ad.Shape{2, 3}, Draw: adtest.Real}},
			Build:     func(x []*ad.Node) *ad.Node { return r.all(x[0]) },
			Reference: func(x [][]float64) []float64 { return []float64{r.ref(x[0])} },
		})
	}
	// Softmax and log-softmax: the reference normalises without the max shift.
	for _, log := range []bool{false, true} {
		for _, axis := range []int{-1, 0} {
			name, build := "softmax", ad.Softmax
			if log {
				name, build = "log_softmax", ad.LogSoftmax
			}
			shape := ad.Shape{3, 4}
			cases = append(cases, adtest.Case{
				Name:   fmt.Sprintf("%s/axis%d", name, axis),
				Inputs: []adtest.Input{{Shape: shape, Draw: adtest.Real}},
				Build:  func(x []*ad.Node) *ad.Node { return build(x[0], axis) },
				Reference: func(x [][]float64) []float64 {
					lse := alongAxisRef(shape, axis, x[0], func(v []float64) float64 {
						s := 0.0
						for _, e := range v {
							s += math.Exp(e)
						}
						return math.Log(s)
					})
					out := make([]float64, len(x[0]))
					for i := range out {
						row, col := i/4, i%4
						l := lse[row]
						if axis == 0 {
							l = lse[col]
						}
						out[i] = x[0][i] - l
						if !log {
							out[i] = math.Exp(out[i])
						}
					}
					return out
				},
			})
		}
	}
	return cases
}

func linearAlgebraCases() []adtest.Case {
	var cases []adtest.Case
	for _, mm := range []struct {
		a, b  ad.Shape
		aData bool
	}{
		{ad.Shape{3, 4}, ad.Shape{4, 2}, false},
		{ad.Shape{4}, ad.Shape{4, 2}, false},
		{ad.Shape{3, 4}, ad.Shape{4}, false},
		{ad.Shape{4}, ad.Shape{4}, false},
		{ad.Shape{2, 3, 4}, ad.Shape{4, 5}, false},
		{ad.Shape{5, 4}, ad.Shape{4, 3}, true},     // a data matrix times weights: a dense layer
		{ad.Shape{70, 3}, ad.Shape{3, 200}, false}, // larger than one GEMM tile both ways
		{ad.Shape{3, 70}, ad.Shape{70, 200}, false},
	} {
		k := mm.a[len(mm.a)-1]
		n := 1
		if len(mm.b) == 2 {
			n = mm.b[1]
		}
		m := mm.a.Size() / k
		cases = append(cases, adtest.Case{
			Name:   fmt.Sprintf("matmul%v%v", mm.a, mm.b),
			Inputs: []adtest.Input{{Shape: mm.a, Draw: adtest.Real, Data: mm.aData}, {Shape: mm.b, Draw: adtest.Real}},
			Build:  func(x []*ad.Node) *ad.Node { return ad.Matmul(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, m*n)
				for i := range m {
					for j := range n {
						for p := range k {
							out[i*n+j] += x[0][i*k+p] * x[1][p*n+j]
						}
					}
				}
				return out
			},
		})
	}
	for _, d := range [][2]ad.Shape{{{4}, {4}}, {{3, 4}, {4}}, {{2, 1, 4}, {3, 4}}, {{4}, {2, 4}}} {
		a, b := d[0], d[1]
		k := a[len(a)-1]
		la, lb := a[:len(a)-1], b[:len(b)-1]
		out, _ := ad.BroadcastShapes(la, lb)
		cases = append(cases, adtest.Case{
			Name:   fmt.Sprintf("dot%v%v", a, b),
			Inputs: []adtest.Input{{Shape: a, Draw: adtest.Real}, {Shape: b, Draw: adtest.Real}},
			Build:  func(x []*ad.Node) *ad.Node { return ad.Dot(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				// Broadcast the leading axes over row indices, then take inner products.
				rowsA, rowsB := rowIndex(la), rowIndex(lb)
				pairs := broadcastRef(out, []ad.Shape{la, lb}, [][]float64{rowsA, rowsB}, func(v []float64) float64 { return v[0]*1e6 + v[1] })
				res := make([]float64, len(pairs))
				for j, p := range pairs {
					ia, ib := int(p)/1e6, int(p)%1e6
					for t := range k {
						res[j] += x[0][ia*k+t] * x[1][ib*k+t]
					}
				}
				return res
			},
		})
	}
	return cases
}

func rowIndex(s ad.Shape) []float64 {
	v := make([]float64, s.Size())
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

func shapeCases() []adtest.Case {
	identity := func(x [][]float64) []float64 { return append([]float64(nil), x[0]...) }
	cases := []adtest.Case{
		{Name: "reshape", Inputs: []adtest.Input{{Shape: ad.Shape{2, 6}, Draw: adtest.Real}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.Reshape(x[0], 3, -1) },
			Reference: identity},
		{Name: "transpose2", Inputs: []adtest.Input{{Shape: ad.Shape{2, 3}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.Transpose(x[0]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, 6)
				for i := range 2 {
					for j := range 3 {
						out[j*2+i] = x[0][i*3+j]
					}
				}
				return out
			}},
		{Name: "transpose3", Inputs: []adtest.Input{{Shape: ad.Shape{2, 3, 4}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.Transpose(x[0], 1, 2, 0) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, 24)
				for i := range 2 {
					for j := range 3 {
						for k := range 4 {
							out[(j*4+k)*2+i] = x[0][(i*3+j)*4+k]
						}
					}
				}
				return out
			}},
		{Name: "concat/axis0", Inputs: []adtest.Input{{Shape: ad.Shape{2, 3}, Draw: adtest.Real}, {Shape: ad.Shape{1, 3}, Draw: adtest.Real}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.Concat(0, x[0], x[1]) },
			Reference: func(x [][]float64) []float64 { return append(append([]float64(nil), x[0]...), x[1]...) }},
		{Name: "concat/axis1", Inputs: []adtest.Input{{Shape: ad.Shape{2, 2}, Draw: adtest.Real}, {Shape: ad.Shape{2, 3}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.Concat(-1, x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				var out []float64
				for i := range 2 {
					out = append(out, x[0][i*2:i*2+2]...)
					out = append(out, x[1][i*3:i*3+3]...)
				}
				return out
			}},
		{Name: "slice", Inputs: []adtest.Input{{Shape: ad.Shape{3, 5}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.Slice(x[0], 1, 1, 4) },
			Reference: func(x [][]float64) []float64 {
				var out []float64
				for i := range 3 {
					out = append(out, x[0][i*5+1:i*5+4]...)
				}
				return out
			}},
		{Name: "index", Inputs: []adtest.Input{{Shape: ad.Shape{3, 5}, Draw: adtest.Real}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.Index(x[0], 0, 2) },
			Reference: func(x [][]float64) []float64 { return x[0][10:15] }},
		{Name: "broadcast_to", Inputs: []adtest.Input{{Shape: ad.Shape{3, 1}, Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.BroadcastTo(x[0], 2, 3, 4) },
			Reference: func(x [][]float64) []float64 {
				return broadcastRef(ad.Shape{2, 3, 4}, []ad.Shape{{3, 1}}, x, func(v []float64) float64 { return v[0] })
			}},
		{Name: "gather", Inputs: []adtest.Input{{Shape: ad.Shape{5, 3}, Draw: adtest.Real}},
			Rows:      []int{4, 0, 4, 2},
			BuildRows: func(x []*ad.Node, rows *ad.Indices) *ad.Node { return ad.Gather(x[0], rows) },
			Reference: func(x [][]float64) []float64 {
				var out []float64
				for _, r := range []int{4, 0, 4, 2} {
					out = append(out, x[0][r*3:r*3+3]...)
				}
				return out
			}},
		// A composite: the plate of a logistic regression, gathered from data.
		{Name: "gather_data_dot", Inputs: []adtest.Input{{Shape: ad.Shape{6, 3}, Draw: adtest.Real, Data: true}, {Shape: ad.Shape{3}, Draw: adtest.Real}},
			Rows:      []int{5, 1},
			BuildRows: func(x []*ad.Node, rows *ad.Indices) *ad.Node { return ad.Dot(ad.Gather(x[0], rows), x[1]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, 2)
				for b, r := range []int{5, 1} {
					for j := range 3 {
						out[b] += x[0][r*3+j] * x[1][j]
					}
				}
				return out
			}},
	}
	return cases
}

// References, written independently of the kernels: by unravelled indices.

func mapRef(x []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = f(v)
	}
	return out
}

// broadcastRef evaluates f at every element of the broadcast result, finding
// each operand's element from the result's multi-index.
func broadcastRef(out ad.Shape, shapes []ad.Shape, x [][]float64, f func([]float64) float64) []float64 {
	res := make([]float64, out.Size())
	idx := make([]int, len(out))
	for j := range res {
		rem := j
		for d := len(out) - 1; d >= 0; d-- {
			idx[d] = rem % out[d]
			rem /= out[d]
		}
		v := make([]float64, len(shapes))
		for i, s := range shapes {
			off := 0
			for d := range s {
				id := idx[d+len(out)-len(s)]
				if s[d] == 1 {
					id = 0
				}
				off = off*s[d] + id
			}
			v[i] = x[i][off]
		}
		res[j] = f(v)
	}
	return res
}

// alongAxisRef applies f to every line of x along axis.
func alongAxisRef(shape ad.Shape, axis int, x []float64, f func([]float64) float64) []float64 {
	if axis < 0 {
		axis += len(shape)
	}
	outShape := append(shape[:axis:axis], shape[axis+1:]...)
	res := make([]float64, outShape.Size())
	idx := make([]int, len(outShape))
	for j := range res {
		rem := j
		for d := len(outShape) - 1; d >= 0; d-- {
			idx[d] = rem % outShape[d]
			rem /= outShape[d]
		}
		line := make([]float64, shape[axis])
		for t := range line {
			full := append(append(append([]int(nil), idx[:axis]...), t), idx[axis:]...)
			off := 0
			for d, e := range shape {
				off = off*e + full[d]
			}
			line[t] = x[off]
		}
		res[j] = f(line)
	}
	return res
}

// digammaReference is ψ at integers and half-integers in closed form
// (DLMF 5.4.14, 5.4.15): ψ(n) = -γ + Σ_{k<n} 1/k and
// ψ(n + 1/2) = -γ - 2 log 2 + Σ_{k≤n} 2/(2k-1).
func digammaReference(x float64) float64 {
	psi := -0.57721566490153286061
	n := int(math.Floor(x))
	if x != float64(n) {
		psi -= 2 * math.Ln2
		for k := 1; k <= n; k++ {
			psi += 2 / float64(2*k-1)
		}
		return psi
	}
	for k := 1; k < n; k++ {
		psi += 1 / float64(k)
	}
	return psi
}

// halfIntegers draws from {0.5, 1, 1.5, ..., 8}, where digammaReference is
// exact.
func halfIntegers(r *rand.Rand) float64 { return 0.5 * float64(1+r.IntN(16)) }

// softplusReference is log(1 + e^x), by the series Σ (-1)^(k+1) e^(kx)/k
// where e^x < 0.01 (so that 1 + e^x would round) and directly elsewhere.
func softplusReference(x float64) float64 {
	if x > -4.6 {
		return math.Log(1 + math.Exp(x))
	}
	s, e := 0.0, math.Exp(x)
	for k := 1; k <= 12; k++ {
		s += math.Pow(-1, float64(k+1)) * math.Pow(e, float64(k)) / float64(k)
	}
	return s
}
