package stdlib_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/internal/rclient"
	"github.com/temper-ppl/temper/stdlib"
)

// TestMultinomialAgainstR checks multinomial_lpmf against base R's
// dmultinom at a few points, θ with a zero where its count is zero among
// them, within 1e-12 relative.
func TestMultinomialAgainstR(t *testing.T) {
	rscript := rclient.Require(t, "stats")
	points := []struct{ y, theta []float64 }{
		{[]float64{1, 0, 3}, []float64{0.2, 0.3, 0.5}},
		{[]float64{10, 20, 5, 1}, []float64{0.25, 0.5, 0.2, 0.05}},
		{[]float64{0, 4, 0}, []float64{0, 0.6, 0.4}},
		{[]float64{300, 150}, []float64{0.7, 0.3}},
	}
	var script strings.Builder
	for _, p := range points {
		fmt.Fprintf(&script, "cat(sprintf('%%.17g\\n', dmultinom(c(%s), prob=c(%s), log=TRUE)))\n", rVector(p.y), rVector(p.theta))
	}
	values := rValues(t, rscript, script.String(), len(points))
	for i, p := range points {
		want := values[i]
		k := len(p.y)
		got, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.MultinomialLPMF(x[0], x[1]) },
			[]ad.Shape{{k}, {k}}, [][]float64{p.y, p.theta})
		if math.Abs(got[0]-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("multinomial(%v | %v) = %.15g, R's dmultinom %.15g", p.y, p.theta, got[0], want)
		}
	}
}

// rValues runs an R script that prints n numbers, one a line, and returns
// them.
func rValues(t *testing.T, rscript, script string, n int) []float64 {
	t.Helper()
	lines := strings.Fields(rclient.Output(t, rscript, script))
	if len(lines) != n {
		t.Fatalf("R printed %d values, want %d", len(lines), n)
	}
	values := make([]float64, n)
	for i, l := range lines {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		values[i] = v
	}
	return values
}

// rVector is x as the arguments of R's c().
func rVector(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', 17, 64)
	}
	return strings.Join(s, ", ")
}

// TestMultiStudentTAgainstR checks multi_student_t_lpdf against mvtnorm's
// dmvt (its "shifted" t: location δ, scale matrix Σ) within 1e-12
// relative, and y far in the tail; at ν = 1e6 within 1e-10, where dmvt's
// difference of log-gammas near 1.3e7 loses 3e-11 (temper's is within
// 1e-15 of 40-digit arithmetic there: TestMultiStudentTLargeNu).
func TestMultiStudentTAgainstR(t *testing.T) {
	rscript := rclient.Require(t, "mvtnorm")
	sigma := []float64{2, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1}
	mu := []float64{0.2, 0.1, -0.4}
	points := []struct {
		y  []float64
		nu float64
	}{
		{[]float64{0.5, -1, 2}, 3.5},
		{[]float64{0.5, -1, 2}, 0.3},
		{[]float64{50, -80, 20}, 2},
		{[]float64{0.1, 0.2, 0.3}, 1e6},
	}
	var script strings.Builder
	fmt.Fprintf(&script, "S <- matrix(c(%s), 3, 3, byrow=TRUE); m <- c(%s)\n", rVector(sigma), rVector(mu))
	for _, p := range points {
		fmt.Fprintf(&script, "cat(sprintf('%%.17g\\n', mvtnorm::dmvt(c(%s), delta=m, sigma=S, df=%.17g, log=TRUE)))\n", rVector(p.y), p.nu)
	}
	values := rValues(t, rscript, script.String(), len(points))
	for i, p := range points {
		want := values[i]
		got, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.MultiStudentTLPDF(x[0], x[1], x[2], x[3]) },
			[]ad.Shape{{3}, {}, {3}, {3, 3}}, [][]float64{p.y, {p.nu}, mu, sigma})
		tol := 1e-12
		if p.nu > 1e5 {
			tol = 1e-10
		}
		if math.Abs(got[0]-want) > tol*math.Max(1, math.Abs(want)) {
			t.Errorf("multi_student_t(%v | %v) = %.15g, mvtnorm's dmvt %.15g", p.y, p.nu, got[0], want)
		}
	}
}
