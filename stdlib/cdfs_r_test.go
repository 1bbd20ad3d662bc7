package stdlib_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/internal/rclient"
	"github.com/temper-ppl/temper/stdlib"
)

// TestLogCDFsAgainstR checks cdfs_more.go's log CDFs, both tails, against
// base R at points across each support and far into the tails (where the
// probability itself underflows, as at Q(2, 800) = e^-793): R's p*
// functions with log.p, through the transformation to a distribution R
// has where it has none (named at each line); the beta-binomial as R's
// sum of its pmf written with lchoose and lbeta; exp_mod_normal by
// integrating the normal's CDF against the exponential's density
// (integrate, relative tolerance 1e-13, split where the exponential's
// share y - μ ends), an independent route to a CDF R has no function for,
// at points where the quadrature keeps its digits (not where a tail is
// below 1e-10: integrating 1 - that tail's integrand leaves R's digits
// in the difference); skew_normal and von_mises, which R has no CDF of
// either, by integrating their densities the same way. The tolerance is
// 1e-12 relative to the log probability, and 1e-10 for the three whose
// reference is a quadrature.
func TestLogCDFsAgainstR(t *testing.T) {
	rscript := rclient.Require(t, "stats")
	cases := []rCase{ // R expressions of L too, TRUE for the lower tail
		{"gamma", [][]float64{{1.5, 2, 0.8}, {1e-3, 3, 1}, {800, 2, 1}, {0.5, 0.3, 2}, {95, 100, 1}, {1e-200, 0.5, 1}},
			"pgamma(y, a1, rate=a2, lower.tail=L, log.p=TRUE)"},
		// 1/Y ~ gamma(α, rate β).
		{"inv_gamma", [][]float64{{0.8, 2, 1}, {0.002, 3, 1}, {1e6, 2, 1}, {3, 0.4, 2}},
			"pgamma(1/y, a1, rate=a2, lower.tail=!L, log.p=TRUE)"},
		{"chi_square", [][]float64{{2, 3}, {1e-4, 4}, {900, 5}, {40, 40}},
			"pchisq(y, a1, lower.tail=L, log.p=TRUE)"},
		{"inv_chi_square", [][]float64{{0.5, 3}, {2e-3, 4}, {1e5, 2}},
			"pchisq(1/y, a1, lower.tail=!L, log.p=TRUE)"},
		// 1/Y ~ gamma(ν/2, rate νs²/2).
		{"scaled_inv_chi_square", [][]float64{{0.5, 3, 0.8}, {0.01, 4, 1.2}, {3e4, 2, 0.5}},
			"pgamma(1/y, a1/2, rate=a1*a2^2/2, lower.tail=!L, log.p=TRUE)"},
		{"poisson", [][]float64{{3, 2.5}, {0, 4}, {60, 3}, {0, 700}, {150, 100}},
			"ppois(y, a1, lower.tail=L, log.p=TRUE)"},
		{"beta", [][]float64{{0.3, 2, 3}, {1e-5, 2, 5}, {0.999, 3, 2}, {0.5, 40, 60}, {0.01, 0.5, 0.5}},
			"pbeta(y, a1, a2, lower.tail=L, log.p=TRUE)"},
		{"student_t", [][]float64{{0.3, 3, 0, 1}, {-400, 4, 1, 2}, {250, 2.5, -1, 0.5}, {1e-3, 5, 0, 1}, {-2, 30, 0, 1}, {1e-9, 1, 0, 1}},
			"pt((y-a2)/a3, a1, lower.tail=L, log.p=TRUE)"},
		{"binomial", [][]float64{{3, 10, 0.4}, {0, 20, 0.3}, {18, 20, 0.4}, {2, 200, 0.5}, {40, 100, 0.4}},
			"pbinom(y, a1, a2, lower.tail=L, log.p=TRUE)"},
		{"neg_binomial_2", [][]float64{{3, 4, 2}, {0, 10, 0.5}, {200, 5, 3}, {60, 50, 20}},
			"pnbinom(y, size=a2, mu=a1, lower.tail=L, log.p=TRUE)"},
		{"beta_binomial", [][]float64{{3, 10, 2, 3}, {0, 20, 1.5, 1}, {9, 10, 2, 5}, {30, 60, 4, 4}},
			"{j <- if (L) 0:y else (y+1):a1; log(sum(exp(lchoose(a1, j) + lbeta(j+a2, a1-j+a3) - lbeta(a2, a3))))}"},
		{"bernoulli", [][]float64{{0, 0.3}, {0, 1e-20}},
			"pbinom(y, 1, a1, lower.tail=L, log.p=TRUE)"},
		{"uniform", [][]float64{{0.3, -1, 2}, {1.9, -1, 2}},
			"punif(y, a1, a2, lower.tail=L, log.p=TRUE)"},
		// (Y/σ)² ~ χ²(1).
		{"half_normal", [][]float64{{0.3, 1}, {50, 0.7}, {1.5, 2}, {1e-8, 1}},
			"pchisq((y/a1)^2, 1, lower.tail=L, log.p=TRUE)"},
		// (Y/σ)² ~ F(1, 1).
		{"half_cauchy", [][]float64{{0.3, 1}, {5e4, 2}, {1e-6, 1}},
			"pf((y/a1)^2, 1, 1, lower.tail=L, log.p=TRUE)"},
		{"weibull", [][]float64{{1.2, 2, 1.5}, {1e-3, 1.5, 2}, {20, 3, 2}},
			"pweibull(y, a1, a2, lower.tail=L, log.p=TRUE)"},
		// weibull(2, σ√2).
		{"rayleigh", [][]float64{{0.5, 1}, {30, 0.8}, {1e-5, 1}},
			"pweibull(y, 2, a1*sqrt(2), lower.tail=L, log.p=TRUE)"},
		// log(Y/y_min) ~ Exp(α).
		{"pareto", [][]float64{{2, 1, 3}, {1.0001, 1, 2}, {1e40, 0.5, 1.5}},
			"pexp(log(y/a1), a2, lower.tail=L, log.p=TRUE)"},
		{"pareto_type_2", [][]float64{{2, 0, 1, 3}, {0.5001, 0.5, 2, 2}, {1e30, -1, 2, 1.5}},
			"pexp(log1p((y-a1)/a2), a3, lower.tail=L, log.p=TRUE)"},
		// 1/Y ~ weibull(α, 1/σ).
		{"frechet", [][]float64{{1.2, 2, 1}, {0.05, 3, 1}, {1e4, 1.5, 2}},
			"pweibull(1/y, a1, 1/a2, lower.tail=!L, log.p=TRUE)"},
		// e^(-(Y-μ)/β) ~ Exp(1).
		{"gumbel", [][]float64{{0.3, 0, 1}, {-5, 1, 2}, {50, 0, 1.5}},
			"pexp(exp(-(y-a1)/a2), 1, lower.tail=!L, log.p=TRUE)"},
		// log Y ~ logistic(log α, 1/β).
		{"loglogistic", [][]float64{{1.2, 2, 3}, {1e-5, 1, 2}, {1e6, 1, 1.5}},
			"plogis(log(y), log(a1), 1/a2, lower.tail=L, log.p=TRUE)"},
	}
	emn := [][]float64{{0.5, 0, 1, 2}, {-1, 1, 0.5, 0.8}, {10, 1, 2, 0.3}, {-3, 0, 1, 1}, {8, 0, 1, 1}}
	var script strings.Builder
	line := func(p []float64, lower bool, r string) {
		printAt(&script, p, "L <- "+strings.ToUpper(strconv.FormatBool(lower))+";", r)
	}
	for _, c := range cases {
		for _, p := range c.points {
			line(p, true, c.r)
			line(p, false, c.r)
		}
	}
	for _, p := range emn {
		for _, lower := range []bool{true, false} {
			line(p, lower, "{f <- function(t) pnorm(y - t, a1, a2, lower.tail=L) * dexp(t, a3); s <- max(y - a1, 0); "+
				"log((if (s > 0) integrate(f, 0, s, rel.tol=1e-13)$value else 0) + integrate(f, s, Inf, rel.tol=1e-13)$value)}")
		}
	}
	cases = append(cases, rCase{"exp_mod_normal", emn, ""})
	// The skew normal's density 2φ(t)Φ(αt) over z's tail, and the von
	// Mises' over [-π, y] or [y, π] (Stan's CDF, from -π), I₀ by besselI.
	sn := [][]float64{{0.3, 0, 1, 2}, {-0.7, 1, 2, -3}, {1.5, 0, 1, 5}, {-1, 0, 1, 0.5}, {2, 1, 0.5, -1}, {-2, 0, 1, 1}}
	vm := [][]float64{{0.3, 0, 1}, {-2, 1, 4}, {2.5, -1, 0.5}, {0, 2, 10}, {-1, 7, 2}}
	for _, p := range sn {
		for _, lower := range []bool{true, false} {
			line(p, lower, "{z <- (y-a1)/a2; f <- function(t) 2*dnorm(t)*pnorm(a3*t); "+
				"log(if (L) integrate(f, -Inf, z, rel.tol=1e-13)$value else integrate(f, z, Inf, rel.tol=1e-13)$value)}")
		}
	}
	for _, p := range vm {
		for _, lower := range []bool{true, false} {
			line(p, lower, "{f <- function(t) exp(a2*(cos(t-a1)-1))/(2*pi*besselI(a2, 0, expon.scaled=TRUE)); "+
				"log(if (L) integrate(f, -pi, y, rel.tol=1e-13)$value else integrate(f, y, pi, rel.tol=1e-13)$value)}")
		}
	}
	cases = append(cases, rCase{"skew_normal", sn, ""}, rCase{"von_mises", vm, ""})
	values := rNumbers(t, rscript, script.String())
	byQuadrature := map[string]bool{"exp_mod_normal": true, "skew_normal": true, "von_mises": true}
	k, checks, worst := 0, 0, map[string]float64{} // by name, "" for those by R's functions
	for _, c := range cases {
		f, ok := stdlib.LookupLogCDF(c.name)
		if !ok {
			t.Fatalf("no log CDF of %s", c.name)
		}
		tol := 1e-12
		if byQuadrature[c.name] {
			tol = 1e-10
		}
		for _, p := range c.points {
			for _, fn := range []*autodiff.ScalarFunc{f.Lower, f.Upper} {
				want := values[k]
				k++
				got := fn.Value(p)
				rel := math.Abs(got-want) / math.Abs(want)
				if got == want {
					rel = 0
				}
				checks++
				if !(rel <= tol) {
					t.Errorf("%s at %v: %.17g, R %.17g (relative %.2g)", fn.Name, p, got, want, rel)
				}
				key := ""
				if byQuadrature[c.name] {
					key = c.name
				}
				worst[key] = math.Max(worst[key], rel)
			}
		}
	}
	t.Logf("%d log CDFs against R, worst relative error %.2g; against a quadrature exp_mod_normal %.2g, skew_normal %.2g, von_mises %.2g",
		checks, worst[""], worst["exp_mod_normal"], worst["skew_normal"], worst["von_mises"])
}
