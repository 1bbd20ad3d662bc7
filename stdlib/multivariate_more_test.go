package stdlib_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmat"
	"gonum.org/v1/gonum/stat/distmv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// multivariate_more.go's densities through the harness: values against
// gonum's distmv.StudentsT and distmat.Wishart (the inverse Wishart through
// the Wishart of W⁻¹ and the Jacobian |W|^-(K+1) of W ↦ W⁻¹), the
// multinomial against its formula through math.Lgamma, lkj_corr against
// the onion form of its constant (lkjOnionLogC) and gonum's determinant;
// gradients by the harness's finite differences, with covariance and
// correlation matrices built from free parameters (covarianceOf, and
// stdlib's corr_matrix transform) so that each difference keeps the matrix
// symmetric, and the split of the partials between (i, j) and (j, i)
// checked on the matrices themselves (checkSymmetricPartials).

// symOf is the symmetric matrix of k × k row-major values, for gonum.
func symOf(x []float64, k int) *mat.SymDense {
	return mat.NewSymDense(k, append([]float64(nil), x...))
}

func TestMultiStudentT(t *testing.T) {
	layouts := []struct {
		name      string
		y, mu, nu ad.Shape // leading shapes
		k         int
		data      bool
		nuHi      float64 // ν drawn from [nuHi/24, nuHi]
	}{
		{"rows", ad.Shape{4}, ad.Shape{}, ad.Shape{}, 3, false, 12},
		{"single", ad.Shape{}, ad.Shape{}, ad.Shape{}, 3, true, 12},
		{"nu_per_row", ad.Shape{3}, ad.Shape{}, ad.Shape{3}, 2, false, 12},
		{"outer_both", ad.Shape{4}, ad.Shape{2, 1}, ad.Shape{}, 2, false, 12},
		{"k1", ad.Shape{5}, ad.Shape{}, ad.Shape{}, 1, false, 12},
		{"k17", ad.Shape{2}, ad.Shape{}, ad.Shape{}, 17, true, 12},         // beyond the stack scratch (K ≤ 16)
		{"large_nu", ad.Shape{3}, ad.Shape{}, ad.Shape{3}, 3, false, 2400}, // lgammaRatio's Stirling branch, ν ≥ 60
	}
	for _, l := range layouts {
		k := l.k
		ref := func(chol bool) func(x [][]float64) []float64 {
			return func(x [][]float64) []float64 {
				var sigma *mat.SymDense
				if chol {
					low := mat.NewTriDense(k, mat.Lower, nil)
					for i := range k {
						for j := 0; j <= i; j++ {
							low.SetTri(i, j, x[3][i*k+j])
						}
					}
					sigma = mat.NewSymDense(k, nil)
					sigma.SymOuterK(1, low)
				} else {
					sigma = covarianceRef(x[3], k)
				}
				return rowsOf([]ad.Shape{l.y, l.nu, l.mu}, []int{k, 1, k}, func(rows [][]float64) float64 {
					d, ok := distmv.NewStudentsT(rows[2], sigma, rows[1][0], nil)
					if !ok {
						t.Fatal("reference scale matrix not positive definite")
					}
					return d.LogProb(rows[0])
				})(x[:3])
			}
		}
		inputs := func(matrix func(*rand.Rand) float64) []adtest.Input {
			return []adtest.Input{
				{Shape: append(l.y.Clone(), k), Draw: adtest.Real, Data: l.data},
				{Shape: l.nu, Draw: adtest.Uniform(l.nuHi/24, l.nuHi)},
				{Shape: append(l.mu.Clone(), k), Draw: adtest.Real},
				{Shape: ad.Shape{k, k}, Draw: matrix},
			}
		}
		adtest.Run(t, adtest.Case{Name: "multi_student_t/" + l.name,
			Inputs: inputs(adtest.Uniform(-1, 1)),
			Build: func(x []*ad.Node) *ad.Node {
				return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], covarianceOf(x[3]))
			},
			Reference: ref(false)})
		// A lower triangle with a positive diagonal (the upper triangle,
		// ignored, gets gradient 0, which the differences confirm).
		adtest.Run(t, adtest.Case{Name: "multi_student_t_cholesky/" + l.name,
			Inputs: inputs(adtest.Uniform(0.4, 1.5)),
			Build: func(x []*ad.Node) *ad.Node {
				return stdlib.MultiStudentTCholeskyLPDF(x[0], x[1], x[2], x[3])
			},
			Reference: ref(true)})
	}
}

// TestMultiStudentTLimit: as ν grows the Student-t tends to the normal,
// lp_t - lp_normal = O(1/ν) (at ν = 1e8, within 1e-6 of each other).
func TestMultiStudentTLimit(t *testing.T) {
	y, mu := []float64{0.5, -1, 2}, []float64{0.2, 0.1, -0.4}
	sigma := []float64{2, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1}
	st, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) },
		[]ad.Shape{{3}, {}, {3}, {3, 3}}, [][]float64{y, {1e8}, mu, sigma})
	n, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.MultiNormalLPDF(x[0], x[1], x[2]) },
		[]ad.Shape{{3}, {3}, {3, 3}}, [][]float64{y, mu, sigma})
	if math.Abs(st[0]-n[0]) > 1e-6 {
		t.Errorf("multi_student_t at ν = 1e8: %.12g, multi_normal %.12g", st[0], n[0])
	}
}

// TestMultiStudentTLargeNu: at ν = 1e6 the log-gammas of (ν+K)/2 and ν/2
// are near 6e6, so their difference taken directly would lose about 1e-9;
// the density is within 1e-14 of its value in 40-digit arithmetic (mpmath:
// loggamma, log1p and the determinant and solve of Σ at 40 digits).
func TestMultiStudentTLargeNu(t *testing.T) {
	sigma := []float64{2, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1}
	got, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) },
		[]ad.Shape{{3}, {}, {3}, {3, 3}}, [][]float64{{0.1, 0.2, 0.3}, {1e6}, {0.2, 0.1, -0.4}, sigma})
	if want := -3.479251012477010563; math.Abs(got[0]-want) > 1e-14 {
		t.Errorf("multi_student_t at ν = 1e6: %.17g, want %.17g", got[0], want)
	}
}

// multinomialRef is log N! - Σ log y_k! + Σ y_k log θ_k by math.Lgamma,
// with 0 log 0 = 0.
func multinomialRef(y, theta []float64) float64 {
	n, lp := 0.0, 0.0
	for i, c := range y {
		n += c
		lp -= lg(c + 1)
		if c > 0 {
			lp += c * math.Log(theta[i])
		}
	}
	return lp + lg(n+1)
}

func TestMultinomial(t *testing.T) {
	layouts := []struct {
		name     string
		y, theta ad.Shape
		k        int
	}{
		{"rows", ad.Shape{4}, ad.Shape{}, 3},
		{"single", ad.Shape{}, ad.Shape{}, 4},
		{"paired", ad.Shape{3}, ad.Shape{3}, 2},
		{"k1", ad.Shape{2}, ad.Shape{}, 1},
	}
	for _, l := range layouts {
		k := l.k
		counts := adtest.Input{Shape: append(l.y.Clone(), k), Draw: adtest.Ints(0, 6), Data: true}
		free := adtest.Input{Shape: append(l.theta.Clone(), k), Draw: adtest.Real}
		adtest.Run(t, adtest.Case{Name: "multinomial/" + l.name,
			Inputs: []adtest.Input{counts, free},
			Build: func(x []*ad.Node) *ad.Node {
				return stdlib.MultinomialLPMF(x[0], ad.Softmax(x[1], -1))
			},
			Reference: rowsOf([]ad.Shape{l.y, l.theta}, []int{k, k}, func(rows [][]float64) float64 {
				return multinomialRef(rows[0], softmaxRow(rows[1]))
			})})
		adtest.Run(t, adtest.Case{Name: "multinomial_logit/" + l.name,
			Inputs: []adtest.Input{counts, free},
			Build:  func(x []*ad.Node) *ad.Node { return stdlib.MultinomialLogitLPMF(x[0], x[1]) },
			Reference: rowsOf([]ad.Shape{l.y, l.theta}, []int{k, k}, func(rows [][]float64) float64 {
				return multinomialRef(rows[0], softmaxRow(rows[1]))
			})})
	}
	// Logits far apart: softmax rounds the small probabilities' digits
	// away, the logit form keeps them (y = (2, 1): 2·0 + 1·(-40) less the
	// log-sum-exp, plus log 3).
	adtest.Run(t, adtest.Case{Name: "multinomial_logit/far",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{2}, Values: []float64{2, 1}, Data: true},
			{Shape: ad.Shape{2}, Values: []float64{1000, 960}, Data: true},
		},
		Build: func(x []*ad.Node) *ad.Node { return stdlib.MultinomialLogitLPMF(x[0], x[1]) },
		Reference: func([][]float64) []float64 {
			return []float64{math.Log(3) - 40 - 3*math.Log1p(math.Exp(-40))}
		}})
}

// wishartRef is gonum's Wishart log density of W (k × k) with ν degrees of
// freedom and scale Σ, or, for the inverse Wishart, that of W⁻¹ with scale
// Σ⁻¹ times |W|^-(K+1), the Jacobian of W ↦ W⁻¹ on symmetric matrices.
func wishartRef(inverse bool, w *mat.SymDense, nu float64, sigma *mat.SymDense) float64 {
	k := w.SymmetricDim()
	if !inverse {
		d, ok := distmat.NewWishart(sigma, nu, nil)
		if !ok {
			panic("scale not positive definite")
		}
		return d.LogProbSym(w)
	}
	var wc, sc mat.Cholesky
	if !wc.Factorize(w) || !sc.Factorize(sigma) {
		panic("not positive definite")
	}
	var winv, sinv mat.SymDense
	if err := wc.InverseTo(&winv); err != nil {
		panic(err)
	}
	if err := sc.InverseTo(&sinv); err != nil {
		panic(err)
	}
	d, ok := distmat.NewWishart(&sinv, nu, nil)
	if !ok {
		panic("inverse scale not positive definite")
	}
	return d.LogProbSym(&winv) - float64(k+1)*wc.LogDet()
}

func TestWishart(t *testing.T) {
	layouts := []struct {
		name         string
		w, nu, sigma ad.Shape
		k            int
	}{
		{"single", ad.Shape{}, ad.Shape{}, ad.Shape{}, 3},
		{"k1", ad.Shape{}, ad.Shape{}, ad.Shape{}, 1},
		{"nu_per_matrix", ad.Shape{}, ad.Shape{3}, ad.Shape{}, 2},
		{"k5", ad.Shape{}, ad.Shape{}, ad.Shape{}, 5},
	}
	for _, inverse := range []bool{false, true} {
		name, f := "wishart", stdlib.WishartLPDF
		if inverse {
			name, f = "inv_wishart", stdlib.InvWishartLPDF
		}
		for _, l := range layouts {
			k := l.k
			adtest.Run(t, adtest.Case{Name: name + "/" + l.name,
				Inputs: []adtest.Input{
					{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(-1, 1)},
					// ν > K - 1 wherever drawn.
					{Shape: l.nu, Draw: adtest.Uniform(float64(k)-0.5, float64(k)+6)},
					{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(-1, 1)},
				},
				Build: func(x []*ad.Node) *ad.Node { return f(covarianceOf(x[0]), x[1], covarianceOf(x[2])) },
				Reference: func(x [][]float64) []float64 {
					w, sigma := covarianceRef(x[0], k), covarianceRef(x[2], k)
					out := make([]float64, len(x[1]))
					for i, nu := range x[1] {
						out[i] = wishartRef(inverse, w, nu, sigma)
					}
					return out
				}})
		}
	}
}

// lowerSym is L Lᵀ for the lower triangle of l (k × k), for gonum.
func lowerSym(l []float64, k int) *mat.SymDense {
	low := mat.NewTriDense(k, mat.Lower, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			low.SetTri(i, j, l[i*k+j])
		}
	}
	s := mat.NewSymDense(k, nil)
	s.SymOuterK(1, low)
	return s
}

// TestWishartCholesky: the Cholesky forms are the Wisharts of L_W L_Wᵀ
// with scale L_S L_Sᵀ (gonum's, through wishartRef) plus the log-Jacobian
// K log 2 + Σ_i (K - i + 1) log L_ii of L ↦ L Lᵀ (i from 1), with the
// factors' lower triangles drawn with a positive diagonal (their upper
// triangles, ignored, get gradient 0, which the differences confirm).
func TestWishartCholesky(t *testing.T) {
	for _, inverse := range []bool{false, true} {
		name, f := "wishart_cholesky", stdlib.WishartCholeskyLPDF
		if inverse {
			name, f = "inv_wishart_cholesky", stdlib.InvWishartCholeskyLPDF
		}
		for _, k := range []int{1, 2, 4} {
			for _, nuShape := range []ad.Shape{{}, {2}} {
				adtest.Run(t, adtest.Case{Name: fmt.Sprintf("%s/k%d_nu%v", name, k, nuShape),
					Inputs: []adtest.Input{
						{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(0.4, 1.5)},
						{Shape: nuShape, Draw: adtest.Uniform(float64(k)-0.5, float64(k)+6)},
						{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(0.4, 1.5)},
					},
					Build: func(x []*ad.Node) *ad.Node { return f(x[0], x[1], x[2]) },
					Reference: func(x [][]float64) []float64 {
						jac := float64(k) * math.Ln2
						for i := range k {
							jac += float64(k-i) * math.Log(x[0][i*k+i])
						}
						out := make([]float64, len(x[1]))
						for i, nu := range x[1] {
							out[i] = wishartRef(inverse, lowerSym(x[0], k), nu, lowerSym(x[2], k)) + jac
						}
						return out
					}})
			}
		}
	}
}

// corrMatrix is stdlib's corr_matrix[k] transform of u, the correlation
// matrices' parameterisation by free values.
func corrMatrix(t *testing.T, u *ad.Node, k int) *ad.Node {
	c, ok := stdlib.Constrained("corr_matrix")
	if !ok {
		t.Fatal("no corr_matrix type")
	}
	x, _ := c.Apply(u, k)
	return x
}

func TestLKJCorr(t *testing.T) {
	c, _ := stdlib.Constrained("corr_matrix")
	for _, k := range []int{2, 3, 5} {
		for _, etaShape := range []ad.Shape{{}, {3}} {
			adtest.Run(t, adtest.Case{Name: fmt.Sprintf("lkj_corr/k%d_eta%v", k, etaShape),
				Inputs: []adtest.Input{
					{Shape: ad.Shape{c.Free(k)}, Draw: adtest.Uniform(-1.5, 1.5)},
					{Shape: etaShape, Draw: adtest.Uniform(0.3, 4)},
				},
				Build: func(x []*ad.Node) *ad.Node { return stdlib.LKJCorrLPDF(corrMatrix(t, x[0], k), x[1]) },
				Reference: func(x [][]float64) []float64 {
					omega, _ := apply(t, c, k, x[0])
					var chol mat.Cholesky
					if !chol.Factorize(symOf(omega, k)) {
						t.Fatal("reference Ω not positive definite")
					}
					out := make([]float64, len(x[1]))
					for i, eta := range x[1] {
						out[i] = (eta-1)*chol.LogDet() - lkjOnionLogC(eta, k)
					}
					return out
				}})
		}
	}
}

// TestLKJCorrMatchesCholesky: lkj_corr at Ω = L Lᵀ is lkj_corr_cholesky at
// L less the log-Jacobian Σ_{k≥2} (K-k) log L_kk of L ↦ Ω, and at η = 1
// the density is uniform: -log c_K, -log(π²/2) for K = 3.
func TestLKJCorrMatchesCholesky(t *testing.T) {
	const k = 3
	l := []float64{1, 0, 0, 0.6, 0.8, 0, -0.3, 0.2, math.Sqrt(1 - 0.09 - 0.04)}
	omega := lowerTimesTranspose(l, k)
	for _, eta := range []float64{0.5, 1, 2.5} {
		corr, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.LKJCorrLPDF(x[0], x[1]) },
			[]ad.Shape{{k, k}, {}}, [][]float64{omega, {eta}})
		chol, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.LKJCorrCholeskyLPDF(x[0], x[1]) },
			[]ad.Shape{{k, k}, {}}, [][]float64{l, {eta}})
		jac := math.Log(l[4]) // (K-2) log L_22; (K-3) log L_33 = 0
		if want := chol[0] - jac; math.Abs(corr[0]-want) > 1e-12 {
			t.Errorf("η = %v: lkj_corr %.15g, lkj_corr_cholesky less the Jacobian %.15g", eta, corr[0], want)
		}
		if eta == 1 && math.Abs(corr[0]+math.Log(math.Pi*math.Pi/2)) > 1e-12 {
			t.Errorf("η = 1: %.15g, want -log(π²/2)", corr[0])
		}
	}
}

// checkSymmetricPartials checks the partials of f in its matrix argument m
// (k × k) at args: the gradient is symmetric, and moving entries (i, j) and
// (j, i) together by ±h changes the summed density by g_ij + g_ji per unit
// (g_ii alone on the diagonal) — central differences at h = 1e-6 on
// densities of order 10, error about 1e-9, hence 1e-6 relative with a 1e-7
// floor. offDiagonal skips the diagonal (a correlation matrix's, fixed).
func checkSymmetricPartials(t *testing.T, name string, f func(...*ad.Node) *ad.Node, shapes []ad.Shape, args [][]float64, m, k int, offDiagonal bool) {
	t.Helper()
	_, grads := evalDensity(t, f, shapes, args)
	total := func(x []float64) float64 {
		moved := append([][]float64(nil), args...)
		moved[m] = x
		v, _ := evalDensity(t, f, shapes, moved)
		s := 0.0
		for _, e := range v {
			s += e
		}
		return s
	}
	const h = 1e-6
	g := grads[m]
	for i := range k {
		for j := 0; j <= i; j++ {
			if i == j && offDiagonal {
				continue
			}
			if g[i*k+j] != g[j*k+i] {
				t.Errorf("%s: ∂/∂_%d%d = %v but ∂/∂_%d%d = %v", name, i, j, g[i*k+j], j, i, g[j*k+i])
			}
			up, down := append([]float64(nil), args[m]...), append([]float64(nil), args[m]...)
			up[i*k+j] += h
			down[i*k+j] -= h
			want := g[i*k+j]
			if i != j {
				up[j*k+i] += h
				down[j*k+i] -= h
				want += g[j*k+i]
			}
			if fd := (total(up) - total(down)) / (2 * h); math.Abs(want-fd) > 1e-6*math.Abs(fd)+1e-7 {
				t.Errorf("%s: entries %d%d and %d%d together: gradient %.12g, finite difference %.12g", name, i, j, j, i, want, fd)
			}
		}
	}
}

func TestMultivariateMoreSymmetricPartials(t *testing.T) {
	const k = 3
	y := []float64{0.5, -1, 2, 0.1, 0.2, -0.3}
	mu := []float64{0.2, 0.1, -0.4}
	sigma := []float64{2, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1}
	w := []float64{1.2, -0.2, 0.5, -0.2, 0.8, 0.1, 0.5, 0.1, 2.5}
	omega := []float64{1, 0.3, -0.2, 0.3, 1, 0.4, -0.2, 0.4, 1}
	mvt := func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) }
	checkSymmetricPartials(t, "multi_student_t", mvt, []ad.Shape{{2, k}, {}, {k}, {k, k}}, [][]float64{y, {3.5}, mu, sigma}, 3, k, false)
	for _, f := range []struct {
		name string
		f    func(w, nu, sigma *ad.Node) *ad.Node
	}{{"wishart", stdlib.WishartLPDF}, {"inv_wishart", stdlib.InvWishartLPDF}} {
		d := func(x ...*ad.Node) *ad.Node { return f.f(x[0], x[1], x[2]) }
		shapes, args := []ad.Shape{{k, k}, {}, {k, k}}, [][]float64{w, {4.5}, sigma}
		checkSymmetricPartials(t, f.name+" in W", d, shapes, args, 0, k, false)
		checkSymmetricPartials(t, f.name+" in Sigma", d, shapes, args, 2, k, false)
	}
	lkj := func(x ...*ad.Node) *ad.Node { return stdlib.LKJCorrLPDF(x[0], x[1]) }
	checkSymmetricPartials(t, "lkj_corr", lkj, []ad.Shape{{k, k}, {}}, [][]float64{omega, {2.5}}, 0, k, true)
}

// TestMultivariateMoreOutside: points outside each support are -Inf with
// zero partials, and none panics.
func TestMultivariateMoreOutside(t *testing.T) {
	sigma := []float64{2, 0.3, 0.3, 1}
	notPD := []float64{1, 2, 2, 1}
	asym := []float64{2, 0.3, 0.2, 1}
	corr := []float64{1, 0.3, 0.3, 1}
	cases := []struct {
		name   string
		f      func(...*ad.Node) *ad.Node
		shapes []ad.Shape
		args   [][]float64
	}{}
	mvt := func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) }
	mvtc := func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTCholeskyLPDF(x[0], x[1], x[2], x[3]) }
	mvtShapes := []ad.Shape{{2}, {}, {2}, {2, 2}}
	for _, a := range []struct {
		name      string
		nu, sigma []float64
		y         []float64
	}{
		{"nu=0", []float64{0}, sigma, []float64{0, 1}},
		{"nu<0", []float64{-2}, sigma, []float64{0, 1}},
		{"nu=Inf", []float64{math.Inf(1)}, sigma, []float64{0, 1}},
		{"not positive definite", []float64{3}, notPD, []float64{0, 1}},
		{"asymmetric", []float64{3}, asym, []float64{0, 1}},
		{"y infinite", []float64{3}, sigma, []float64{math.Inf(1), 1}},
	} {
		cases = append(cases, struct {
			name   string
			f      func(...*ad.Node) *ad.Node
			shapes []ad.Shape
			args   [][]float64
		}{"multi_student_t/" + a.name, mvt, mvtShapes, [][]float64{a.y, a.nu, {0, 0}, a.sigma}})
	}
	add := func(name string, f func(...*ad.Node) *ad.Node, shapes []ad.Shape, args ...[]float64) {
		cases = append(cases, struct {
			name   string
			f      func(...*ad.Node) *ad.Node
			shapes []ad.Shape
			args   [][]float64
		}{name, f, shapes, args})
	}
	add("multi_student_t_cholesky/negative diagonal", mvtc, mvtShapes, []float64{0, 1}, []float64{3}, []float64{0, 0}, []float64{1, 0, 0.5, -1})
	add("multi_student_t_cholesky/nu=0", mvtc, mvtShapes, []float64{0, 1}, []float64{0}, []float64{0, 0}, []float64{1, 0, 0.5, 1})
	mn := func(x ...*ad.Node) *ad.Node { return stdlib.MultinomialLPMF(x[0], x[1]) }
	mnl := func(x ...*ad.Node) *ad.Node { return stdlib.MultinomialLogitLPMF(x[0], x[1]) }
	vec := []ad.Shape{{3}, {3}}
	theta := []float64{0.2, 0.3, 0.5}
	add("multinomial/negative count", mn, vec, []float64{-1, 2, 3}, theta)
	add("multinomial/fractional count", mn, vec, []float64{1.5, 2, 3}, theta)
	add("multinomial/not a simplex", mn, vec, []float64{1, 2, 3}, []float64{0.2, 0.3, 0.6})
	add("multinomial/negative probability", mn, vec, []float64{1, 2, 3}, []float64{-0.2, 0.7, 0.5})
	add("multinomial/count where θ = 0", mn, vec, []float64{1, 2, 3}, []float64{0, 0.5, 0.5})
	add("multinomial_logit/negative count", mnl, vec, []float64{-1, 2, 3}, theta)
	add("multinomial_logit/infinite logit", mnl, vec, []float64{1, 2, 3}, []float64{math.Inf(1), 0, 0})
	for _, f := range []struct {
		name string
		f    func(w, nu, sigma *ad.Node) *ad.Node
	}{{"wishart", stdlib.WishartLPDF}, {"inv_wishart", stdlib.InvWishartLPDF}} {
		d := func(x ...*ad.Node) *ad.Node { return f.f(x[0], x[1], x[2]) }
		mats := []ad.Shape{{2, 2}, {}, {2, 2}}
		add(f.name+"/nu=K-1", d, mats, sigma, []float64{1}, sigma)
		add(f.name+"/nu<0", d, mats, sigma, []float64{-3}, sigma)
		add(f.name+"/W not positive definite", d, mats, notPD, []float64{3}, sigma)
		add(f.name+"/Sigma not positive definite", d, mats, sigma, []float64{3}, notPD)
		add(f.name+"/W asymmetric", d, mats, asym, []float64{3}, sigma)
		add(f.name+"/W infinite", d, mats, []float64{math.Inf(1), 0, 0, 1}, []float64{3}, sigma)
	}
	for _, f := range []struct {
		name string
		f    func(w, nu, sigma *ad.Node) *ad.Node
	}{{"wishart_cholesky", stdlib.WishartCholeskyLPDF}, {"inv_wishart_cholesky", stdlib.InvWishartCholeskyLPDF}} {
		d := func(x ...*ad.Node) *ad.Node { return f.f(x[0], x[1], x[2]) }
		mats := []ad.Shape{{2, 2}, {}, {2, 2}}
		l := []float64{1.2, 0, 0.3, 0.8}
		add(f.name+"/nu=K-1", d, mats, l, []float64{1}, l)
		add(f.name+"/L_W negative diagonal", d, mats, []float64{1.2, 0, 0.3, -0.8}, []float64{3}, l)
		add(f.name+"/L_S zero diagonal", d, mats, l, []float64{3}, []float64{0, 0, 0.3, 0.8})
		add(f.name+"/L_W infinite", d, mats, []float64{1.2, 0, math.Inf(-1), 0.8}, []float64{3}, l)
	}
	lkj := func(x ...*ad.Node) *ad.Node { return stdlib.LKJCorrLPDF(x[0], x[1]) }
	cs := []ad.Shape{{2, 2}, {}}
	add("lkj_corr/eta=0", lkj, cs, corr, []float64{0})
	add("lkj_corr/diagonal off one", lkj, cs, []float64{1.1, 0.3, 0.3, 1}, []float64{2})
	add("lkj_corr/not positive definite", lkj, cs, []float64{1, 1.2, 1.2, 1}, []float64{2})
	add("lkj_corr/asymmetric", lkj, cs, []float64{1, 0.3, 0.2, 1}, []float64{2})
	for _, c := range cases {
		v, grads := evalDensity(t, c.f, c.shapes, c.args)
		for _, e := range v {
			if !math.IsInf(e, -1) {
				t.Errorf("%s: %v, want -Inf", c.name, e)
			}
		}
		for i, g := range grads {
			for j, e := range g {
				if e != 0 {
					t.Errorf("%s: partial %d[%d] = %v, want 0", c.name, i, j, e)
				}
			}
		}
	}
}

// TestMultivariateMoreShapes: wrong shapes are build errors that say what
// the density wanted.
func TestMultivariateMoreShapes(t *testing.T) {
	cases := []struct {
		name   string
		f      func(...*ad.Node) *ad.Node
		shapes []ad.Shape
		want   string
	}{
		{"multi_student_t", func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) },
			[]ad.Shape{{3}, {}, {3}, {2, 2}}, "multi_student_t: y [3] and mu [3] must end in an axis of 2, the size of Sigma"},
		{"multi_student_t nu", func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) },
			[]ad.Shape{{4, 2}, {3}, {2}, {2, 2}}, "multi_student_t: y [4, 2], mu [2] and nu [3]"},
		{"multinomial", func(x ...*ad.Node) *ad.Node { return stdlib.MultinomialLPMF(x[0], x[1]) },
			[]ad.Shape{{3}, {4}}, "multinomial: the counts [3] and the vector [4] must be vectors along their last axes, of one length"},
		{"wishart", func(x ...*ad.Node) *ad.Node { return stdlib.WishartLPDF(x[0], x[1], x[2]) },
			[]ad.Shape{{3, 3}, {}, {2, 2}}, "wishart: W [3, 3] and Sigma [2, 2] must be square matrices of one size"},
		{"lkj_corr", func(x ...*ad.Node) *ad.Node { return stdlib.LKJCorrLPDF(x[0], x[1]) },
			[]ad.Shape{{3}, {}}, "lkj_corr: the correlation matrix must be a square matrix, got shape [3]"},
	}
	for _, c := range cases {
		g := ad.NewGraph(1)
		ins := make([]*ad.Node, len(c.shapes))
		for i, s := range c.shapes {
			ins[i] = g.Input("x", ad.Param, s...)
		}
		c.f(ins...)
		if err := g.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
