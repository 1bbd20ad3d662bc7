package stdlib_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/rclient"
)

// TestStanDensitiesAgainstR checks densities_stan.go's log densities
// against base R at a few points each: its d* functions through the
// transformation to a distribution R has (named at each line), and
// exp_mod_normal by integrating the normal density against the
// exponential's numerically (integrate, relative tolerance 1e-12), an
// independent route to a density R has no function for.
func TestStanDensitiesAgainstR(t *testing.T) {
	rscript := rclient.Require(t, "stats")
	cases := []rCase{
		// e^(-(Y-μ)/β) ~ Exp(1) for Y ~ gumbel(μ, β).
		{"gumbel", [][]float64{{0.5, 0, 1}, {-2, 1, 2}, {40, 0, 3}}, "dexp(exp(-(y-a1)/a2), log=TRUE) - (y-a1)/a2 - log(a2)"},
		// log(Y/y_min) ~ Exp(α).
		{"pareto", [][]float64{{2, 1, 3}, {1e3, 0.5, 0.7}}, "dexp(log(y/a1), a2, log=TRUE) - log(y)"},
		{"pareto_type_2", [][]float64{{2, 1, 3, 2}, {1e3, -1, 0.5, 0.7}}, "dexp(log1p((y-a1)/a2), a3, log=TRUE) - log(a2+y-a1)"},
		{"chi_square", [][]float64{{2, 3}, {1e-4, 0.7}, {50, 40}}, "dchisq(y, a1, log=TRUE)"},
		// 1/Y ~ χ²(ν); 1/Y ~ gamma(ν/2, rate νs²/2).
		{"inv_chi_square", [][]float64{{0.4, 3}, {1e-2, 0.7}, {5, 2}}, "dchisq(1/y, a1, log=TRUE) - 2*log(y)"},
		{"scaled_inv_chi_square", [][]float64{{0.4, 3, 0.5}, {10, 0.7, 2}}, "dgamma(1/y, a1/2, rate=a1*a2^2/2, log=TRUE) - 2*log(y)"},
		// weibull(2, σ√2); 1/Y ~ weibull(α, 1/σ); log Y ~ logistic(log α, 1/β).
		{"rayleigh", [][]float64{{0.4, 1}, {30, 4}}, "dweibull(y, 2, a1*sqrt(2), log=TRUE)"},
		{"frechet", [][]float64{{0.4, 2, 1}, {30, 0.7, 4}}, "dweibull(1/y, a1, 1/a2, log=TRUE) - 2*log(y)"},
		{"loglogistic", [][]float64{{0.4, 2, 1.5}, {30, 0.7, 4}}, "dlogis(log(y), log(a1), 1/a2, log=TRUE) - log(y)"},
		{"exp_mod_normal", [][]float64{{0.5, 0, 1, 2}, {-3, 1, 0.5, 0.8}, {10, 1, 2, 0.3}},
			"log(integrate(function(t) dnorm(y - t, a1, a2) * dexp(t, a3), 0, Inf, rel.tol=1e-12)$value)"},
	}
	var script strings.Builder
	for _, c := range cases {
		for _, p := range c.points {
			printAt(&script, p, "", c.r)
		}
	}
	values := rNumbers(t, rscript, script.String())
	k := 0
	for _, c := range cases {
		got, _ := evalDensityAt(t, c.name, c.points)
		for j, p := range c.points {
			want := values[k]
			k++
			tol := 1e-12
			if c.name == "exp_mod_normal" {
				tol = 1e-9 // integrate's tolerance
			}
			if math.Abs(got[j]-want) > tol*math.Max(1, math.Abs(want)) {
				t.Errorf("%s%v = %.15g, R %.15g", c.name, p, got[j], want)
			}
		}
	}
}

// rCase is a distribution's points, y then the arguments, and an R
// expression of y and the arguments a1, a2, a3 to evaluate at each.
type rCase struct {
	name   string
	points [][]float64
	r      string
}

// printAt writes a line of R that prints expr at the point p, y then a1,
// a2, a3 (0 past p's end), after the assignments extra.
func printAt(script *strings.Builder, p []float64, extra, expr string) {
	fmt.Fprintf(script, "y <- %.17g; a1 <- %.17g; a2 <- %.17g; a3 <- %.17g; %s cat(sprintf('%%.17g\\n', %s))\n",
		p[0], at(p, 1), at(p, 2), at(p, 3), extra, expr)
}

// rNumbers runs an R script of printAt's lines and returns the numbers it
// printed, one a line. The lines go to Rscript -e in chunks of under 5,000
// bytes: Rscript escapes each space and newline as three bytes, and R
// drops an -e expression over 10,000 bytes with only a warning.
func rNumbers(t *testing.T, rscript, script string) []float64 {
	t.Helper()
	want := strings.Count(script, "\n")
	var lines []string
	for chunk := ""; script != "" || chunk != ""; {
		line, rest, _ := strings.Cut(script, "\n")
		if chunk != "" && (script == "" || len(chunk)+len(line) >= 5000) {
			lines = append(lines, strings.Fields(rclient.Output(t, rscript, chunk))...)
			chunk = ""
			continue
		}
		chunk += line + "\n"
		script = rest
	}
	if len(lines) != want {
		t.Fatalf("R printed %d values for %d lines", len(lines), want)
	}
	values := make([]float64, len(lines))
	for i, l := range lines {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		values[i] = v
	}
	return values
}

func at(p []float64, i int) float64 {
	if i < len(p) {
		return p[i]
	}
	return 0
}
