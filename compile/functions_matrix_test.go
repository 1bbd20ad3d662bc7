package compile_test

import (
	"math"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"gonum.org/v1/gonum/mat"
)

const matrixBuildingSrc = `
param { x: real[3]  a: real  r: real  v: real[3]  M: real[3, 2] }
transformed param {
  K = gp_exp_quad_cov(x, a, r)
  C = cov_exp_quad(x, a, r)
  G = gp_exp_quad_cov(M, a, r)
  X = gp_exp_quad_cov(x, head(v, 2), a, r)
  XM = cov_exp_quad(M, append_row(M, head(v, 2)), a, r)
  L = cholesky_decompose(add_diag(K, v ^ 2 + 0.1))
  z = mdivide_left_tri_low(L, v)
  Z = mdivide_left_tri_low(L, M)
  Ki = inverse(add_diag(K, 1))
  d = determinant(add_diag(K, 1))
  ld = log_determinant(add_diag(K, 1))
  q = quad_form(add_diag(K, 1), v)
  Q = quad_form(add_diag(K, 1), M)
  cp = crossprod(M)
  D = diag_matrix(v)
  ac = append_col(M, v)
  ar = append_row(M, head(v, 2))
  vc = append_col(v, v)
  rv = append_row(a, v)
  cr = append_col(v, a)
  rep = rep_vector(a, 2)
  rm = rep_matrix(a, 2, 3)
  rmv = rep_matrix(v, 2)
  tv = to_vector(M)
  tm = to_matrix(M, 2, 3)
  sg = segment(v, 2, 2)
  tl = tail(v, 2)
  cs = cumulative_sum(v)
  sizes = [rows(M), cols(M), num_elements(M), cols(v)]
}
model {
  target += -0.5 * (sum(square(x)) + a ^ 2 + r ^ 2 + sum(square(v)) + sum(square(M)))
  target += sum(L) + sum(z) + 0.3 * sum(Z) + sum(Ki) + 0.1 * d + ld - 0.05 * q + 0.01 * sum(Q)
  target += 0.1 * (sum(G) + sum(X) - sum(XM) + sum(cp) + sum(ac) + sum(ar) + sum(rv) + sum(tm * 2) + sum(cs) + sum(sg) + sum(tl))
}
`

// TestMatrixBuilding checks each of Stan's GP, linear-algebra and
// matrix-building functions by value (the factorisations against gonum,
// the rest written out: gp_exp_quad_cov's covariance and its
// cross-covariance of two sets of points, vectors and matrices, by the
// kernel's formula), and the energy's gradient through all of them, the
// points' included, against central differences.
func TestMatrixBuilding(t *testing.T) {
	m := compileSrc(t, matrixBuildingSrc, nil)
	x, a, r := []float64{0.3, -1.2, 2}, 1.3, 0.8
	v, mv := []float64{0.5, -1, 2}, []float64{1, 2, 3, -1, 0.5, 4}
	theta := append(append(append(append([]float64(nil), x...), a, r), v...), mv...)
	out := make([]float64, len(m.OutputNames()))
	m.Constrain(out, theta)
	got := map[string][]float64{}
	for i, name := range m.OutputNames() {
		base, _, _ := strings.Cut(name, ".")
		got[base] = append(got[base], out[i])
	}

	// The covariances, by their formula.
	kern := func(d2 float64) float64 { return a * a * math.Exp(-d2/(2*r*r)) }
	K := mat.NewSymDense(3, nil)
	G := mat.NewDense(3, 3, nil)
	X, XM := mat.NewDense(3, 2, nil), mat.NewDense(3, 4, nil) // the cross-covariances
	m2 := append(append([]float64(nil), mv...), v[0], v[1])   // append_row(M, head(v, 2))
	for i := range 3 {
		for j := range 4 {
			d0, d1 := mv[2*i]-m2[2*j], mv[2*i+1]-m2[2*j+1]
			XM.Set(i, j, kern(d0*d0+d1*d1))
			if j < 3 {
				K.SetSym(i, j, kern((x[i]-x[j])*(x[i]-x[j])))
				G.Set(i, j, kern(d0*d0+d1*d1))
			}
			if j < 2 {
				X.Set(i, j, kern((x[i]-v[j])*(x[i]-v[j])))
			}
		}
	}
	A := mat.NewSymDense(3, nil)
	B := mat.NewSymDense(3, nil)
	A.CopySym(K)
	B.CopySym(K)
	for i := range 3 {
		A.SetSym(i, i, K.At(i, i)+v[i]*v[i]+0.1)
		B.SetSym(i, i, K.At(i, i)+1)
	}
	var chol mat.Cholesky
	if !chol.Factorize(A) {
		t.Fatal("gonum: not positive definite")
	}
	var L mat.TriDense
	chol.LTo(&L)
	Mm := mat.NewDense(3, 2, mv)
	vv := mat.NewVecDense(3, v)
	var z mat.VecDense
	var Z, Ki, Q, cp, BM mat.Dense
	if err := z.SolveVec(&L, vv); err != nil {
		t.Fatal(err)
	}
	if err := Z.Solve(&L, Mm); err != nil {
		t.Fatal(err)
	}
	if err := Ki.Inverse(B); err != nil {
		t.Fatal(err)
	}
	BM.Mul(B, Mm)
	Q.Mul(Mm.T(), &BM)
	cp.Mul(Mm.T(), Mm)
	ld, _ := mat.LogDet(B)
	raw := func(m mat.Matrix) []float64 { return mat.DenseCopyOf(m).RawMatrix().Data }

	want := map[string][]float64{
		"K": raw(K), "C": raw(K), "G": raw(G), "X": raw(X), "XM": raw(XM), "L": raw(&L), "z": z.RawVector().Data, "Z": raw(&Z),
		"Ki": raw(&Ki), "d": {mat.Det(B)}, "ld": {ld}, "q": {mat.Inner(vv, B, vv)}, "Q": raw(&Q), "cp": raw(&cp),
		"D":   {0.5, 0, 0, 0, -1, 0, 0, 0, 2},
		"ac":  {1, 2, 0.5, 3, -1, -1, 0.5, 4, 2},
		"ar":  {1, 2, 3, -1, 0.5, 4, 0.5, -1},
		"vc":  {0.5, 0.5, -1, -1, 2, 2},
		"rv":  {a, 0.5, -1, 2},
		"cr":  {0.5, -1, 2, a},
		"rep": {a, a},
		"rm":  {a, a, a, a, a, a},
		"rmv": {0.5, 0.5, -1, -1, 2, 2},
		"tv":  {1, 3, 0.5, 2, -1, 4},  // column by column
		"tm":  {1, 0.5, -1, 3, 2, 4},  // filled column by column from tv
		"sg":  {-1, 2}, "tl": {-1, 2}, // segment(v, 2, 2), tail(v, 2)
		"cs":    {0.5, -0.5, 1.5},
		"sizes": {3, 2, 6, 1},
	}
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Errorf("%s has %d values, want %d", name, len(g), len(w))
			continue
		}
		for i := range w {
			if math.Abs(g[i]-w[i]) > 1e-12*math.Max(1, math.Abs(w[i])) {
				t.Errorf("%s = %v, want %v", name, g, w)
				break
			}
		}
	}
	checkEnergyGradient(t, m, theta, 0)
}

// checkEnergyGradient compares the energy's gradient at theta with
// central differences (step 1e-5: error O(h²·U”') plus rounding
// ε·|U|/h, both below 1e-6 for the smooth energies here).
func checkEnergyGradient(t *testing.T, m *compile.Model, theta []float64, batch int) {
	t.Helper()
	_, grad := evaluateAt(t, m, theta, batch)
	for i := range theta {
		const h = 1e-5
		x := theta[i]
		theta[i] = x + h
		up, _ := evaluateAt(t, m, theta, batch)
		theta[i] = x - h
		down, _ := evaluateAt(t, m, theta, batch)
		theta[i] = x
		if fd := (up - down) / (2 * h); math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂U/∂θ_%d = %v, central difference %v", i, grad[i], fd)
		}
	}
}

// TestMatrixFunctionsInPlate: in a plate, each row's vector and matrix
// go through the factorisations as a stack, shared operands (S) with
// them, and gp_exp_quad_cov's cross-covariance pairs each row's points
// with another row value's or with shared ones; the energy is the one written out row by row with gonum.
func TestMatrixFunctionsInPlate(t *testing.T) {
	src := `
data { N: int  X: real[N, 2]  y: real[N] }
param { S: real[3, 3] }
model {
  for n in plate(N) {
    u = append_row(1.0, X[n])
    P = add_diag(crossprod(S), u ^ 2)
    L = cholesky_decompose(P)
    c = 0.1 * (sum(gp_exp_quad_cov(u, X[n], 1.5, 2.0)) - sum(gp_exp_quad_cov(S[1], u, 0.5, 0.7)))
    y[n] ~ normal(sum(mdivide_left_tri_low(L, u)) + log_determinant(P) + 0.01 * quad_form(P, u) + sum(cumulative_sum(u)) + c, 1)
  }
}`
	X := [][]float64{{0.5, -1}, {2, 0.3}, {-0.7, 1.1}, {0, 0.2}}
	y := []float64{1, 2, 0.5, -1}
	m := compileSrc(t, src, map[string]any{"N": 4, "X": X, "y": y})
	theta := []float64{1, 0.2, -0.3, 0.4, 1.5, 0.1, -0.2, 0.6, 0.9}
	S := mat.NewDense(3, 3, theta)
	want := 0.0
	for n := range X {
		u := mat.NewVecDense(3, []float64{1, X[n][0], X[n][1]})
		var P mat.Dense
		P.Mul(S.T(), S)
		for i := range 3 {
			P.Set(i, i, P.At(i, i)+u.AtVec(i)*u.AtVec(i))
		}
		var chol mat.Cholesky
		chol.Factorize(mat.NewSymDense(3, P.RawMatrix().Data))
		var L mat.TriDense
		chol.LTo(&L)
		var w mat.VecDense
		if err := w.SolveVec(&L, u); err != nil {
			t.Fatal(err)
		}
		ld, _ := mat.LogDet(&P)
		mu := mat.Sum(&w) + ld + 0.01*mat.Inner(u, &P, u) + 1 + (1 + X[n][0]) + (1 + X[n][0] + X[n][1])
		for i := range 3 { // the cross-covariances, a batched x1 and x2, and a shared x1
			for j := range 3 {
				if j < 2 {
					mu += 0.1 * 1.5 * 1.5 * math.Exp(-(u.AtVec(i)-X[n][j])*(u.AtVec(i)-X[n][j])/(2*2*2))
				}
				mu -= 0.1 * 0.5 * 0.5 * math.Exp(-(S.At(0, i)-u.AtVec(j))*(S.At(0, i)-u.AtVec(j))/(2*0.7*0.7))
			}
		}
		want += 0.5*(y[n]-mu)*(y[n]-mu) + 0.5*math.Log(2*math.Pi)
	}
	got, _ := evaluateAt(t, m, theta, 0)
	if math.Abs(got-want) > 1e-10*math.Abs(want) {
		t.Errorf("energy %v, want %v", got, want)
	}
	checkEnergyGradient(t, m, theta, 0)
}

// TestMatrixFunctionErrors: wrong shapes are errors at the call naming one
// row's shapes; a matrix that is not positive definite makes the energy
// NaN (a rejected point), not a panic.
func TestMatrixFunctionErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"cholesky_decompose(M)", "test.ppl:3:17: cholesky_decompose takes a square matrix [K, K], and this has shape [3, 2]"},
		{"mdivide_left_tri_low(S, w)", "mdivide_left_tri_low of L [3, 3] takes b a vector [3] or a matrix [3, N], and this has shape [2]"},
		{"add_diag(S, w)", "add_diag of a matrix [3, 3] takes a scalar or a vector [3] to add, and this has shape [2]"},
		{"append_col(M, w)", "append_col of [3, 2] and [2]: the numbers of rows differ (a vector is a column)"},
		{"append_row(M, v)", "append_row of [3, 2] and [3]: the numbers of columns differ (a vector is a row)"},
		{"quad_form(S, M[1])", "quad_form of A [3, 3] takes B a vector [3] or a matrix [3, N], and this has shape [2]"},
		{"to_matrix(M, 4, 2)", "to_matrix of [3, 2] to 4 × 2: the sizes must be at least 1 and hold its 6 elements"},
		{"segment(v, 2, 3)", "segment of a vector [3]: entries 2 to 4 are not all in 1..3"},
		{"rep_matrix(v, 2, 2)", "rep_matrix(x, m, n) takes a scalar x, and this has shape [3]"},
		{"gp_exp_quad_cov(v, w, 1)", "argument alpha of gp_exp_quad_cov must have 0 dimensions, but w has 1"},
		{"gp_exp_quad_cov(v, w, w, 1)", "argument alpha of gp_exp_quad_cov must have 0 dimensions, but w has 1"},
		{"gp_exp_quad_cov(v, M, 1, 1)", "gp_exp_quad_cov takes points x1 and x2 of one dimension, two vectors or two matrices [N1, D] and [N2, D], and these have shapes [3] and [3, 2]"},
		{"cov_exp_quad(M, S, 1, 1)", "these have shapes [3, 2] and [3, 3]"},
		{"gp_exp_quad_cov(v, 1)", "gp_exp_quad_cov takes 3 arguments (x, alpha, rho) or 4 (x1, x2, alpha, rho), got 2"},
	}
	for _, c := range cases {
		src := "param { M: real[3, 2]  S: real[3, 3]  v: real[3]  w: real[2] }\nmodel {\n  target += sum(" + c.expr + ")\n}\n"
		_, err := tryCompile(src, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.expr, err, c.want)
		}
	}
	m := compileSrc(t, "param { a: real }\nmodel {\n  target += sum(cholesky_decompose(to_matrix([1, a, a, 1], 2, 2)))\n}\n", nil)
	if e, _ := evaluateAt(t, m, []float64{2}, 0); !math.IsNaN(e) {
		t.Errorf("energy with an indefinite matrix = %v, want NaN", e)
	}
	if e, _ := evaluateAt(t, m, []float64{0.5}, 0); math.IsNaN(e) {
		t.Error("energy with a positive definite matrix is NaN")
	}
}

// TestRowsBuiltInPlate: a row built from data columns in a plate (a
// vector literal of each row's scalars, append_row) and a matrix times
// each row's vector (W @ x[n], once refused as a right operand that
// "cannot depend on the plate index") give the energy written out.
func TestRowsBuiltInPlate(t *testing.T) {
	data := map[string]any{"N": 3, "x1": []float64{1, 2, 3}, "x2": []float64{0, 1, -1}, "y": []float64{0.5, 1, -2}}
	theta := []float64{0.3, -0.7, 1.2, 0.4, -0.2, 0.9, 0.1}
	want := 0.0
	for n := range 3 {
		x := []float64{data["x1"].([]float64)[n], data["x2"].([]float64)[n]}
		w := theta[:2]
		W := theta[2:6]
		a := theta[6]
		h0, h1 := W[0]*x[0]+W[1]*x[1], W[2]*x[0]+W[3]*x[1]
		mu := a + w[0]*x[0] + w[1]*x[1] + h0 - h1 + (1 + x[0] + x[1]) // sum(append_row(1.0, [x1, x2]))
		r := data["y"].([]float64)[n] - mu
		want += 0.5*r*r + 0.5*math.Log(2*math.Pi)
	}
	for _, body := range []string{
		`y[n] ~ normal(a + dot([x1[n], x2[n]], w) + dot(W @ [x1[n], x2[n]], [1, -1]) + sum(append_row(1.0, [x1[n], x2[n]])), 1)`,
		`r = append_row(x1[n], [x2[n]])
    y[n] ~ normal(a + r @ w + sum(matmul(W, r) * [1, -1]) + sum(append_row(1, r)), 1)`,
		`X = [[x1[n], x2[n]]]
    y[n] ~ normal(a + sum(X @ w) + sum(X @ transpose(W) * [1, -1]) + sum(append_col(1, X[1])), 1)`,
	} {
		src := "data { N: int  x1: real[N]  x2: real[N]  y: real[N] }\nparam { w: real[2]  W: real[2, 2]  a: real }\nmodel {\n  for n in plate(N) {\n    " + body + "\n  }\n}\n"
		m, err := tryCompile(src, data)
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if got, _ := evaluateAt(t, m, theta, 0); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: energy %v, want %v", body, got, want)
		}
		checkEnergyGradient(t, m, theta, 0)
	}
}
