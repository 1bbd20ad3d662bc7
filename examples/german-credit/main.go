// Command german-credit fits Bayesian logistic regression to the UCI German
// credit data with temper's autodiff and stdlib, and compares a Laplace
// approximation of the posterior (the mode, and the inverse Hessian of the
// energy there) with Stan's NUTS reference posterior shipped beside the data.
//
//	go run ./examples/german-credit
//
// It is the smallest end-to-end use of the graph: data inputs, a parameter
// block, densities from stdlib, and gradients replayed by a compiled program
// inside gonum's optimiser. The samplers of later packages take the same
// energy and gradient.
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

func main() {
	dir := flag.String("data", filepath.Join("examples", "data"), "folder with german_credit.csv and german_credit.reference.json")
	flag.Parse()
	fit, err := laplace(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "german-credit:", err)
		os.Exit(1)
	}
	fit.print(os.Stdout)
}

// row is one parameter's Laplace approximation beside the reference.
type row struct {
	name, feature  string
	mode, sd       float64 // Laplace: the mode and sqrt of the inverse Hessian's diagonal
	refMean, refSD float64 // Stan NUTS
	zMode, sdRatio float64 // |mode - refMean|/refSD and sd/refSD
}

type fit struct {
	n, d         int
	rows         []row
	evals, grads int
}

func laplace(dir string) (*fit, error) {
	features, x, y, err := readCSV(filepath.Join(dir, "german_credit.csv"))
	if err != nil {
		return nil, err
	}
	ref, err := readReference(filepath.Join(dir, "german_credit.reference.json"))
	if err != nil {
		return nil, err
	}
	n, d := len(y), len(features)
	m, err := newModel(n, d, x, y)
	if err != nil {
		return nil, err
	}

	// The posterior mode, by Newton's method on the energy U = -log p(θ | y)
	// (convex here), with the Hessian from central differences of the
	// autodiff gradient; the same Hessian's inverse at the mode is the Laplace
	// approximation's covariance.
	hessian := func(dst *mat.SymDense, theta []float64) {
		jac := mat.NewDense(d+1, d+1, nil)
		fd.Jacobian(jac, func(g, th []float64) { m.gradient(g, th) }, theta, &fd.JacobianSettings{Formula: fd.Central})
		for i := range d + 1 {
			for j := i; j < d+1; j++ {
				dst.SetSym(i, j, (jac.At(i, j)+jac.At(j, i))/2)
			}
		}
	}
	// A gradient norm of 1e-5 puts the mode within 1e-5 × the largest
	// posterior variance (about 0.4) of the optimum, far inside the sds
	// (0.1-0.6). Asking for much less needs changes in U below its rounding
	// error at |U| ≈ 500, and the line search gives up.
	settings := &optimize.Settings{GradientThreshold: 1e-5}
	problem := optimize.Problem{Func: m.energy, Grad: m.gradient, Hess: hessian}
	res, err := optimize.Minimize(problem, make([]float64, d+1), settings, &optimize.Newton{})
	if err != nil {
		return nil, fmt.Errorf("optimisation: %v", err)
	}
	mode := res.X
	hess := mat.NewSymDense(d+1, nil)
	hessian(hess, mode)
	var cov mat.Dense
	if err := cov.Inverse(hess); err != nil {
		return nil, fmt.Errorf("the Hessian at the mode is singular: %v", err)
	}

	f := &fit{n: n, d: d, evals: m.evals, grads: m.grads}
	for i := range d + 1 {
		r := row{name: "alpha", feature: "(intercept)", mode: mode[i], sd: math.Sqrt(cov.At(i, i))}
		if i > 0 {
			r.name, r.feature = fmt.Sprintf("beta[%d]", i), features[i-1]
		}
		s, ok := ref[r.name]
		if !ok {
			return nil, fmt.Errorf("the reference has no %s", r.name)
		}
		r.refMean, r.refSD = s.Mean, s.SD
		r.zMode, r.sdRatio = math.Abs(r.mode-r.refMean)/r.refSD, r.sd/r.refSD
		f.rows = append(f.rows, r)
	}
	return f, nil
}

// medianAndMax of a statistic over the parameters.
func (f *fit) medianAndMax(stat func(row) float64) (median, lo, hi float64) {
	v := make([]float64, len(f.rows))
	for i, r := range f.rows {
		v[i] = stat(r)
	}
	sort.Float64s(v)
	return v[len(v)/2], v[0], v[len(v)-1]
}

func (f *fit) print(w io.Writer) {
	fmt.Fprintf(w, "Bayesian logistic regression, German credit (N = %d, D = %d): Laplace approximation vs Stan NUTS\n\n", f.n, f.d)
	fmt.Fprintf(w, "%-10s %-38s %9s %9s %9s %9s %8s\n", "param", "feature", "mode", "laplace", "stan", "stan", "|Δ|/sd")
	fmt.Fprintf(w, "%-10s %-38s %9s %9s %9s %9s %8s\n", "", "", "", "sd", "mean", "sd", "")
	for _, r := range f.rows {
		fmt.Fprintf(w, "%-10s %-38.38s %9.4f %9.4f %9.4f %9.4f %8.3f\n", r.name, r.feature, r.mode, r.sd, r.refMean, r.refSD, r.zMode)
	}
	zMed, _, zMax := f.medianAndMax(func(r row) float64 { return r.zMode })
	rMed, rLo, rHi := f.medianAndMax(func(r row) float64 { return r.sdRatio })
	fmt.Fprintf(w, "\nmode vs posterior mean: median |Δ|/sd %.3f, largest %.3f\n", zMed, zMax)
	fmt.Fprintf(w, "Laplace sd / NUTS sd: median %.3f, range [%.3f, %.3f]\n", rMed, rLo, rHi)
	fmt.Fprintf(w, "%d energy and %d gradient evaluations\n", f.evals, f.grads)
}

// model holds the compiled energy U(α, β) = -Σ_n bernoulli_logit(y_n | α + x_n·β)
// - normal(α | 0, 1) - Σ_j normal(β_j | 0, 1), with θ = (α, β) packed as one
// vector for the optimiser.
type model struct {
	prog         *ad.Program
	alpha, beta  *ad.Node
	energyNode   *ad.Node
	evals, grads int
}

func newModel(n, d int, xs, ys []float64) (*model, error) {
	g := ad.NewGraph(1)
	x := g.Input("X", ad.Data, n, d)
	y := g.Input("y", ad.Data, n)
	alpha := g.Input("alpha", ad.Param)
	beta := g.Input("beta", ad.Param, d)
	zero, one := g.Scalar(0), g.Scalar(1)
	eta := ad.Add(ad.Matmul(x, beta), alpha)
	logp := ad.Add(ad.Add(
		ad.SumAll(stdlib.BernoulliLogitLPMF(y, eta)),
		ad.SumAll(stdlib.NormalLPDF(beta, zero, one))),
		stdlib.NormalLPDF(alpha, zero, one))
	energy := ad.Neg(logp)
	prog, err := g.Compile(energy)
	if err != nil {
		return nil, err
	}
	if err := prog.Set(x, xs); err != nil {
		return nil, err
	}
	if err := prog.Set(y, ys); err != nil {
		return nil, err
	}
	return &model{prog: prog, alpha: alpha, beta: beta, energyNode: energy}, nil
}

func (m *model) set(theta []float64) {
	m.prog.Value(m.alpha)[0] = theta[0]
	copy(m.prog.Value(m.beta), theta[1:])
	m.prog.Forward()
}

func (m *model) energy(theta []float64) float64 {
	m.evals++
	m.set(theta)
	return m.prog.Value(m.energyNode)[0]
}

func (m *model) gradient(grad, theta []float64) {
	m.grads++
	m.set(theta)
	if err := m.prog.Backward(m.energyNode); err != nil {
		panic(err) // the energy is an output of the program by construction
	}
	grad[0] = m.prog.Grad(m.alpha)[0]
	copy(grad[1:], m.prog.Grad(m.beta))
}

// readCSV reads the header's feature names and the rows: y first, then the
// features, all numeric.
func readCSV(path string) (features []string, x, y []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(records) < 2 || len(records[0]) < 2 {
		return nil, nil, nil, fmt.Errorf("%s: needs a header and at least one row", path)
	}
	features = records[0][1:]
	for i, rec := range records[1:] {
		for j, field := range rec {
			v, err := strconv.ParseFloat(field, 64)
			if err != nil || math.IsNaN(v) {
				return nil, nil, nil, fmt.Errorf("%s:%d: column %d: %q is not a number", path, i+2, j+1, field)
			}
			if j == 0 {
				y = append(y, v)
			} else {
				x = append(x, v)
			}
		}
	}
	return features, x, y, nil
}

type summary struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

func readReference(path string) (map[string]summary, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ref struct {
		Parameters map[string]summary `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return ref.Parameters, nil
}
