package compile

import (
	"fmt"
	"math"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
)

// predictions collects what the predict block asks for while it is lowered:
// the per-row log densities of its ~ statements (with every candidate label
// of a discrete one, for accuracy) and its definitions.
type predictions struct {
	samples []*predSample
	defines []*predDefine
}

type predSample struct {
	name    string     // the variate as written: y[n]
	logLik  *ad.Node   // [N] per-row log density of the observed variate
	labels  *ad.Node   // [N] the observed variate
	classes []*ad.Node // [N] log density of each candidate label
	first   float64    // the first candidate label: 0 (Bernoulli) or 1 (categorical)
}

type predDefine struct {
	name    string
	node    *ad.Node
	batched bool
}

// discreteLabels are the distributions whose support is a small set of
// labels: for them the prediction is the most probable label.
var discreteLabels = map[string]float64{
	"bernoulli": 0, "bernoulli_logit": 0, "bernoulli_logit_glm": 0, "categorical": 1, "categorical_logit": 1,
}

func (p *predictions) define(s *lang.Define, v value) {
	p.defines = append(p.defines, &predDefine{name: s.Name, node: v.node, batched: v.batched})
}

func (p *predictions) sample(b *builder, s *lang.Sample, v value) {
	if b.err != nil || !v.batched {
		return // a term without rows (a prior restated) predicts nothing
	}
	ps := &predSample{name: lang.ExprString(s.Lhs), logLik: rowSum(b, v.node)}
	if first, ok := discreteLabels[s.Dist]; ok {
		ps.first = first
		ps.labels = b.expr(s.Lhs).node
		k := 2
		if first == 1 {
			shape := b.expr(s.Args[0]).node.Shape()
			k = shape[len(shape)-1]
		}
		for c := range k {
			alt := *s
			alt.Lhs = &lang.Number{Pos: s.Lhs.Position(), Value: first + float64(c), Int: true}
			lp := b.sample(&alt)
			if !lp.batched { // the arguments do not vary by row
				lp = value{node: ad.BroadcastTo(ad.SumAll(lp.node), b.batch), batched: true}
			}
			ps.classes = append(ps.classes, rowSum(b, lp.node))
		}
	}
	b.check(s.Pos)
	p.samples = append(p.samples, ps)
}

// rowSum reduces a batched value's row axes: [N, ...] to [N].
func rowSum(b *builder, n *ad.Node) *ad.Node {
	if len(n.Shape()) > 1 {
		return ad.Sum(ad.Reshape(n, b.batch, -1), 1)
	}
	return n
}

// Predictor evaluates the predict block of a model compiled with new data,
// one posterior draw at a time.
type Predictor struct {
	m      *Model
	prog   *ad.Program
	params []*ad.Node
	pred   *predictions
	n      int
}

// Predictor lowers the predict block over every row of the model's data.
func (m *Model) Predictor() (*Predictor, error) {
	if m.file.Predict == nil {
		return nil, fmt.Errorf("%s has no predict block", m.file.Name)
	}
	b := m.newBuilder(1)
	b.predict = &predictions{}
	b.memo = map[lang.Expr]value{}
	n := m.predictRows()
	if n > 0 {
		b.n, b.batch = n, n
		b.rows = b.g.Indices("rows", false, n)
	}
	var params []*ad.Node
	for _, p := range m.params {
		in := b.g.Input(p.decl.Name, ad.ReplicaData, p.shape...)
		b.params[p.decl.Name] = value{node: in}
		params = append(params, in)
	}
	b.transformParams()
	b.stmts(m.file.Predict.Stmts)
	if b.err != nil {
		return nil, lang.ErrorList{b.err}
	}
	var outputs []*ad.Node
	for _, s := range b.predict.samples {
		outputs = append(outputs, s.logLik)
		if s.labels != nil {
			outputs = append(outputs, s.labels)
		}
		outputs = append(outputs, s.classes...)
	}
	for _, d := range b.predict.defines {
		outputs = append(outputs, d.node)
	}
	if len(outputs) == 0 {
		return nil, fmt.Errorf("the predict block computes nothing: add definitions or ~ statements")
	}
	prog, err := b.g.Compile(outputs...)
	if err != nil {
		return nil, err
	}
	if b.rows != nil {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		if err := prog.SetIndices(b.rows, all); err != nil {
			return nil, err
		}
	}
	return &Predictor{m: m, prog: prog, params: params, pred: b.predict, n: n}, nil
}

// predictRows is the size of the predict block's plate (0 if it has none).
func (m *Model) predictRows() int {
	for _, s := range m.file.Predict.Stmts {
		if pl, ok := s.(*lang.Plate); ok {
			if v, ok := m.data[identName(pl.Size)]; ok && len(v.Shape) == 0 {
				return int(v.At(0))
			}
		}
	}
	return 0
}

// Prediction is the posterior-predictive summary of a predict block over S
// draws: for each ~ statement, the negative log-likelihood of the model
// average, −(1/N) Σ_n log((1/S) Σ_s p(y_n | θ_s)), and for discrete labels
// the accuracy of its most probable label; for each definition, its
// posterior mean.
type Prediction struct {
	Draws   int
	Samples []SamplePrediction
	Defines []DefinePrediction
}

// SamplePrediction summarises one ~ statement of the predict block.
type SamplePrediction struct {
	Name     string
	Rows     int
	NLL      float64 // mean over rows
	Accuracy float64 // NaN when the variate is not a discrete label
}

// DefinePrediction is a definition's posterior mean, flattened row-major
// (rows first for a per-row value), with its shape.
type DefinePrediction struct {
	Name  string
	Shape []int
	Mean  []float64
}

// Columns are the names of Mean's elements (draws.FlatNames), made when
// asked for: a network's predict block defines its activations, millions
// of values whose names took longer than the predictions.
func (d DefinePrediction) Columns() []string { return draws.FlatNames(d.Name, d.Shape) }

// Predict evaluates posterior draws: each point holds the model's
// ParamNames values.
func (p *Predictor) Predict(points [][]float64) (*Prediction, error) {
	return p.PredictWeighted(points, nil)
}

// PredictWeighted is Predict for weighted draws (the cycle weights of
// cyclical SG-MCMC, seed 002 appendix F): the model average is
// Σ_s w_s p(y | θ_s) / Σ_s w_s and the means are weighted alike. Weights
// need not be normalised; nil means equal weights. Draws of weight 0 are
// skipped.
func (p *Predictor) PredictWeighted(points [][]float64, weights []float64) (*Prediction, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("no draws to predict with")
	}
	if weights != nil && len(weights) != len(points) {
		return nil, fmt.Errorf("%d weights for %d draws", len(weights), len(points))
	}
	total := 0.0
	for _, w := range weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("weight %v is not finite and non-negative", w)
		}
		total += w
	}
	if weights != nil && total == 0 {
		return nil, fmt.Errorf("every draw has weight 0")
	}
	type acc struct {
		maxLL, sumExp []float64   // per row, a running log-sum-exp of the log-likelihood
		classSum      [][]float64 // per class and row, Σ_s p(k | θ_s)
	}
	accs := make([]acc, len(p.pred.samples))
	for i, s := range p.pred.samples {
		rows := s.logLik.Size()
		accs[i] = acc{maxLL: fill(rows, math.Inf(-1)), sumExp: make([]float64, rows)}
		for range s.classes {
			accs[i].classSum = append(accs[i].classSum, make([]float64, rows))
		}
	}
	sums := make([][]float64, len(p.pred.defines))
	for i, d := range p.pred.defines {
		sums[i] = make([]float64, d.node.Size())
	}
	for di, draw := range points {
		if len(draw) != len(p.m.names) {
			return nil, fmt.Errorf("draw %d has %d values, the model has %d", di+1, len(draw), len(p.m.names))
		}
		w := 1.0
		if weights != nil {
			if w = weights[di]; w == 0 {
				continue
			}
		}
		pos := 0
		for _, in := range p.params {
			pos += copy(p.prog.Value(in), draw[pos:])
		}
		p.prog.Forward()
		for i, s := range p.pred.samples {
			a := &accs[i]
			for r, ll := range p.prog.Value(s.logLik) {
				// Streaming log-sum-exp: rescale the sum when the maximum grows.
				if ll > a.maxLL[r] {
					a.sumExp[r] = a.sumExp[r]*math.Exp(a.maxLL[r]-ll) + w
					a.maxLL[r] = ll
				} else if !math.IsInf(ll, -1) {
					a.sumExp[r] += w * math.Exp(ll-a.maxLL[r])
				}
			}
			for k, c := range s.classes {
				for r, ll := range p.prog.Value(c) {
					a.classSum[k][r] += w * math.Exp(ll)
				}
			}
		}
		for i, d := range p.pred.defines {
			for j, v := range p.prog.Value(d.node) {
				sums[i][j] += w * v
			}
		}
	}
	s := float64(len(points))
	if weights != nil {
		s = total
	}
	out := &Prediction{Draws: len(points)}
	for i, ps := range p.pred.samples {
		a := accs[i]
		nll := 0.0
		for r := range a.maxLL {
			nll -= a.maxLL[r] + math.Log(a.sumExp[r]/s)
		}
		sp := SamplePrediction{Name: ps.name, Rows: len(a.maxLL), NLL: nll / float64(len(a.maxLL)), Accuracy: math.NaN()}
		if len(ps.classes) > 0 {
			labels := p.prog.Value(ps.labels)
			correct := 0
			for r := range labels {
				best := 0
				for k := range a.classSum {
					if a.classSum[k][r] > a.classSum[best][r] {
						best = k
					}
				}
				if ps.first+float64(best) == labels[r] {
					correct++
				}
			}
			sp.Accuracy = float64(correct) / float64(len(labels))
		}
		out.Samples = append(out.Samples, sp)
	}
	for i, d := range p.pred.defines {
		mean := make([]float64, len(sums[i]))
		for j, v := range sums[i] {
			mean[j] = v / s
		}
		out.Defines = append(out.Defines, DefinePrediction{Name: d.name, Shape: d.node.Shape(), Mean: mean})
	}
	return out, nil
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
