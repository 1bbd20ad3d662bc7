package stdlib

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// RNG draws variates of a distribution: the `<name>_rng` functions of the
// generated block (Stan's generated quantities), for posterior predictive
// checks. They run on the host, one draw of the parameters at a time,
// outside any gradient.
type RNG struct {
	// Name is the distribution's Stan name; the language's function is
	// Name + "_rng".
	Name string
	// Args names the arguments in Stan's order, without the variate.
	Args []string
	// Int marks the arguments that must be integer-valued (binomial's n).
	Int []bool
	// Rank is each argument's rank: 0 a scalar, broadcast elementwise with
	// the others; 1 a vector along the last axis (categorical's theta,
	// dirichlet's alpha); 2 a matrix along the last two axes
	// (multi_normal's Sigma). The leading axes of every argument broadcast.
	Rank []int
	// OutRank is the variate's rank: 0 a scalar, 1 a vector whose length
	// is the last axis of the first argument of rank ≥ 1, 2 a square
	// matrix of that size (wishart's).
	OutRank int
	// IntOut marks an integer variate (a count or a label).
	IntOut bool
	// Draw writes one variate into out (length 1, K for a vector
	// variate, K×K for a matrix) from one set of arguments (args[i] of
	// length 1, K or K×K by Rank, matrices row-major). It reports false
	// when the arguments lie outside the distribution's domain (a negative
	// scale, a probability above 1), in which case out is left to the
	// caller.
	Draw func(r *rand.Rand, args [][]float64, out []float64) bool
}

var rngs = map[string]RNG{}

func registerRNG(g RNG) {
	if g.Int == nil {
		g.Int = make([]bool, len(g.Args))
	}
	if g.Rank == nil {
		g.Rank = make([]int, len(g.Args))
	}
	rngs[g.Name] = g
}

// LookupRNG returns the random number generator of the distribution of
// that Stan name ("normal" for normal_rng).
func LookupRNG(name string) (RNG, bool) {
	g, ok := rngs[name]
	g.Args, g.Int, g.Rank = slices.Clone(g.Args), slices.Clone(g.Int), slices.Clone(g.Rank)
	return g, ok
}

// RNGNames lists the distributions with a generator, sorted.
func RNGNames() []string { return slices.Sorted(maps.Keys(rngs)) }

// scalarRNG registers the generator spec of a scalar variate from scalar
// arguments (Rank and OutRank zero): draw returns the variate, or NaN
// outside the domain. Draw rejects a non-finite argument, and one that
// spec.Int marks but is not a whole number, before draw sees it.
func scalarRNG(spec RNG, draw func(r *rand.Rand, x []float64) float64) {
	spec.Draw = func(r *rand.Rand, a [][]float64, out []float64) bool {
		var buf [4]float64
		x := buf[:len(a)]
		for i := range a {
			x[i] = a[i][0]
			if !isFinite(x[i]) || spec.Int != nil && spec.Int[i] && x[i] != math.Trunc(x[i]) {
				return false
			}
		}
		v := draw(r, x)
		out[0] = v
		return !math.IsNaN(v)
	}
	registerRNG(spec)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// allFiniteRow reports whether every entry of x is finite (neither NaN nor
// infinite).
func allFiniteRow(x []float64) bool {
	for _, v := range x {
		if !isFinite(v) {
			return false
		}
	}
	return true
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
