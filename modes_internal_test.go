package temper

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestHasValley: draws of two humps separated by a barrier have a valley,
// however unequal the humps (down to a tenth of the draws); one hump,
// symmetric, skewed or heavy-tailed, has none.
func TestHasValley(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(n int, f func() float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = f()
		}
		return x
	}
	mixture := func(w float64) func() float64 {
		return func() float64 {
			if rng.Float64() < w {
				return -1 + 0.25*rng.NormFloat64()
			}
			return 1 + 0.25*rng.NormFloat64()
		}
	}
	for _, c := range []struct {
		name string
		x    []float64
		want bool
	}{
		{"two equal humps", draw(4000, mixture(0.5)), true},
		{"humps of 90% and 10%", draw(4000, mixture(0.9)), true},
		{"normal", draw(4000, rng.NormFloat64), false},
		{"log-normal", draw(4000, func() float64 { return math.Exp(rng.NormFloat64()) }), false},
		{"student t, 2 degrees", draw(4000, func() float64 {
			z, c := rng.NormFloat64(), rng.NormFloat64()*rng.NormFloat64()+rng.NormFloat64()*rng.NormFloat64()
			return z / math.Sqrt(c/2)
		}), false},
		{"too few draws", draw(100, mixture(0.5)), false},
	} {
		if got := hasValley(c.x); got != c.want {
			t.Errorf("%s: valley %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDrawsMeet: two sets of 30 independent draws of one 2,000-dimensional
// standard normal meet, though a direction fitted to all their coordinates
// would set their means √(2·2000/30) ≈ 11.5 sds apart; draws of two modes
// 4 sds apart in each of 20 coordinates (the marginals overlapping) do
// not, nor do draws 5 sds apart in one coordinate of one.
func TestDrawsMeet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	draws := func(n, d int, centre func(j int) float64) [][]float64 {
		out := make([][]float64, n)
		for k := range out {
			out[k] = make([]float64, d+1) // lp__ first, unused
			for j := range d {
				out[k][1+j] = centre(j) + rng.NormFloat64()
			}
		}
		return out
	}
	zero := func(int) float64 { return 0 }
	if !drawsMeet(draws(30, 2000, zero), draws(30, 2000, zero), 2000) {
		t.Error("two sets of draws of one 2,000-dimensional normal were told apart")
	}
	if drawsMeet(draws(500, 20, func(int) float64 { return -2 }), draws(500, 20, func(int) float64 { return 2 }), 20) {
		t.Error("modes 4 sds apart in each of 20 coordinates met")
	}
	one := func(j int) float64 {
		if j == 0 {
			return 5
		}
		return 0
	}
	if drawsMeet(draws(500, 1, zero), draws(500, 1, one), 1) {
		t.Error("one-dimensional modes 5 sds apart met")
	}
}

// TestTemperingCost: pt is predicted at 8 levels of NUTS, its sampling five
// times as long at the default length: a NUTS run of 10 s (1,000 warm-up
// and 2,000 iterations) predicts 8 × 11,000/3,000 × 10 s = 293 s, and 80 s
// with iters given.
func TestTemperingCost(t *testing.T) {
	nuts := 10 * time.Second
	if got := temperingCost(nuts, Options{Iters: 2000, defaultIters: true}); math.Abs(got.Seconds()-8*11000.0/3000*10) > 1e-6 {
		t.Errorf("default length: %s", got)
	}
	if got := temperingCost(nuts, Options{Iters: 2000}); got != 80*time.Second {
		t.Errorf("iters given: %s", got)
	}
}

// TestSearchIgnoresUnfinishedAscents: on a centred hierarchy, whose
// density grows without bound toward its funnel's neck, no ascent of the
// mode search converges; one cut short by a time limit (as a loaded
// machine cuts them) ends wherever it got to. Those ends are no modes:
// before they were left out, a 3 ms limit turned examples/varying-slopes
// into "3 modes" and tempered a unimodal model (349 s for a 10 s run),
// and the search's verdict followed the machine's load.
func TestSearchIgnoresUnfinishedAscents(t *testing.T) {
	src := `data { J: int  y: real[J] }
param { mu: real  tau: real<lower=0>  theta: real[J] }
model {
  mu ~ normal(0, 5)
  tau ~ normal(0, 5)
  theta ~ normal(mu, tau)
  for j in plate(J) { y[j] ~ normal(theta[j], 1) }
}`
	data := map[string]any{"J": 8, "y": []float64{2.8, 0.8, -0.3, 0.7, -0.1, 0.1, 1.8, 1.2}}
	m, err := Compile("funnel.ppl", src, data)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	starts := make([][]float64, 8)
	for i := range starts {
		starts[i] = make([]float64, m.Dim())
		for j := range starts[i] {
			starts[i][j] = searchRadius * (2*rng.Float64() - 1)
		}
	}
	for _, limit := range []time.Duration{time.Millisecond, searchAscentLimit} {
		if groups := m.groupAscents(m.ascendAll(starts, limit, true)); len(groups) > 1 {
			t.Errorf("limit %s: %d modes of a unimodal funnel", limit, len(groups))
		}
	}
	// The same ends kept (as the draws' ascents keep them) scatter: the
	// check above can fail.
	if groups := m.groupAscents(m.ascendAll(starts, time.Millisecond, false)); len(groups) < 2 {
		t.Errorf("unfinished ascents kept: %d groups, want the scatter the search must not see", len(groups))
	}
}
