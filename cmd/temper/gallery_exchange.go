package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/infer/draws"
)

// The pages of seed 003's two-temperature replica-exchange Langevin
// diffusion (examples/reld) and of seed 004's fast-tempering reSGLD
// against reSGLD (examples/double-well/fast.md).

// reldCold is examples/reld's low temperature τ1, its infer block's t_min.
const reldCold = 0.25

// reldRows are the reld page's runs: the infer block (a = 1/η = 100,
// τ2 = 2) beside no swaps and smaller intensities at the same τ2 (a = 5
// is the slides' setting, seed 004), then other high temperatures at
// a = 100. A row of reld names its intensity a
// as seed 003's Eq. 3.16 does: a pair swaps with probability a·η·S.
var reldRows = []comparedRun{
	{label: "a = 0 (Langevin at τ1 alone)", args: []string{"--sampler", "sgld", "--set", "lr=0.01", "--set", "temperature=0.25"}},
	{label: "a = 0.5, τ2 = 2", args: []string{"--set", "intensity=0.5"}},
	{label: "a = 5, τ2 = 2 (the slides')", args: []string{"--set", "intensity=5"}},
	{label: "a = 100 = 1/η, τ2 = 2 (the infer block)"},
	{label: "a = 100, τ2 = 1", args: []string{"--set", "t_max=1"}},
	{label: "a = 100, τ2 = 8", args: []string{"--set", "t_max=8"}},
	{label: "a = 100, τ2 = 50", args: []string{"--set", "t_max=50"}},
	{label: "a = 100, τ2 = 1000", args: []string{"--set", "t_max=1000"}},
}

// reldFigureRuns are four chains of the first and fourth rows, every
// iteration kept, for the figures (400 chains would hide one another).
var reldFigureRuns = []galleryRun{
	{label: "figures: a = 0", args: append(slices.Clip(reldRows[0].args), "--chains", "4", "--iters", "2000", "--thin", "1")},
	{label: "figures: a = 100", args: []string{"--chains", "4", "--iters", "2000", "--thin", "1"}},
}

// reldReduced makes the reld page's runs small for its reduced check:
// 100 pairs of 1,000 iterations, and the figures' runs 100 iterations.
func reldReduced(r galleryRun) []string {
	if strings.HasPrefix(r.label, "figures") {
		return []string{"--iters", "100"}
	}
	return []string{"--chains", "100", "--iters", "1000"}
}

// reldTimes are the iterations at which the reld page gives χ².
var reldTimes = []int{500, 1000, 2000, 5000}

// basinPath is, for the draws of a run of many chains started together,
// the share of the chains whose every coordinate is below zero (in the
// global minimum's basin) at each kept draw, the kept draw at which each
// chain first is, and each chain's share of its second half's draws there.
type basinPath struct {
	share []float64 // by kept draw
	first []int     // by chain; -1 for never
	late  []float64 // by chain
}

func globalBasin(t *draws.Table, dims int) (basinPath, error) {
	var cols [][][]float64 // by coordinate, chain, draw
	for i := 1; i <= dims; i++ {
		c := t.ByChain(fmt.Sprintf("x.%d", i))
		if len(c) == 0 {
			return basinPath{}, fmt.Errorf("the draws have no column x.%d", i)
		}
		cols = append(cols, c)
	}
	chains, n := len(cols[0]), len(cols[0][0])
	b := basinPath{share: make([]float64, n), first: make([]int, chains), late: make([]float64, chains)}
	for c := range chains {
		b.first[c] = -1
		for j := range n {
			in := true
			for _, x := range cols {
				in = in && x[c][j] < 0
			}
			if !in {
				continue
			}
			b.share[j] += 1 / float64(chains)
			if b.first[c] < 0 {
				b.first[c] = j
			}
			if j >= n/2 {
				b.late[c] += 1 / float64(n-n/2)
			}
		}
	}
	return b, nil
}

// chiSquare is χ²(p‖π) between two laws on two cells, in and out of the
// basin: (p - π)²/π + (p - π)²/(1 - π).
func chiSquare(p, pi float64) float64 { return (p - pi) * (p - pi) / (pi * (1 - pi)) }

// reldResults is the reld page's tables: how fast the low-temperature
// particle's law approaches the invariant one under each intensity and
// high temperature, beside what seed 003 states.
func reldResults(g *galleryRuns) (string, error) {
	model := filepath.Join(g.dir, "model.ppl")
	one, err := exactShareBelow(model, reldCold, -4, 4, 200000)
	if err != nil {
		return "", err
	}
	var rows [][]string
	chi := map[string][]float64{} // by label, at reldTimes
	var dims int
	var pi float64
	shares, rms, swapsOf := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, row := range reldRows {
		r, err := g.first(row.label)
		if err != nil {
			return "", err
		}
		dims = len(r.draws.Params())
		pi = math.Pow(one, float64(dims)) // the density is a product over the coordinates
		b, err := globalBasin(r.draws, dims)
		if err != nil {
			return "", err
		}
		thin := max(r.diag.Thin, 1)
		at := func(t int) int { return min(t/thin, len(b.share)) - 1 }
		cells := []string{row.label, "–"}
		if len(r.diag.SwapRate) > 0 {
			cells[1] = g3(r.diag.SwapRate[0])
			g.headline(row.label+": swap rate", r.diag.SwapRate[0], tolShare)
			swapsOf[row.label] = r.diag.SwapRate[0]
		}
		for _, t := range reldTimes {
			c := chiSquare(b.share[at(t)], pi)
			chi[row.label] = append(chi[row.label], c)
			cells = append(cells, g3(c))
		}
		g.headline(row.label+": χ² at 1,000", chi[row.label][1], tolRelative)
		var firsts []float64
		for _, f := range b.first {
			if f >= 0 {
				firsts = append(firsts, float64(f*thin))
			}
		}
		arrival := fmt.Sprintf("> %d", len(b.share)*thin)
		if len(firsts) > len(b.first)/2 {
			slices.Sort(firsts)
			arrival = fmt.Sprintf("%.0f", firsts[len(b.first)/2])
		}
		dev := 0.0
		for _, l := range b.late {
			dev += (l - pi) * (l - pi) / float64(len(b.late))
		}
		shares[row.label], rms[row.label] = b.share[len(b.share)-1], math.Sqrt(dev)
		g.headline(row.label+": share in the basin at the end", shares[row.label], tolShare)
		rows = append(rows, append(cells, arrival, f3(shares[row.label]), f3(rms[row.label])))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The low-temperature particle of 400 pairs, all started at x = (1, ..., 1), the worst of the 32 local minima: χ² is the divergence χ²(ν_t‖π) of its law at iteration t from the invariant one, both reduced to two cells, in the global minimum's basin (every coordinate below 0) or not (π = %.4f of the mass at τ1 = %g, by quadrature of one coordinate's factor); a reduction can only lower χ², so these are lower bounds of Theorem 3.3's. The first arrival is the median over the pairs of the first iteration in the basin; the last two columns are the share in the basin after 5,000 iterations and the root-mean-square distance from π of each pair's own share over iterations 2,501-5,000, its empirical measure of the basin (Theorem 3.5). The swap rate is the share of iterations in which the pair swapped. Seed 1, η = 0.01; with 400 pairs a share has a standard error of up to 0.025, and χ² below about 0.01 is noise.\n\n", pi, reldCold)
	header := []string{"run", "swap rate"}
	for _, t := range reldTimes {
		header = append(header, fmt.Sprintf("χ² at %d", t))
	}
	b.WriteString(mdTable(append(header, "first arrival", "share at 5,000", "RMS of a pair's share"), rows))
	base := reldRows[3].label
	b.WriteString("\nBeside the paper. Seed 003 has no numerical experiment: its abstract says the algorithm's acceleration is demonstrated in practice, but its text has none, and its only figure, Figure 1, is a sketch of what Theorems 3.3 and 3.5 say. So the objective and the figures here are ours, and the table sets them beside the paper's statements:\n\n")
	b.WriteString(mdTable([]string{"seed 003", "temper"}, [][]string{
		{"Theorem 3.3, Figure 1(c): swapping adds a non-negative term to the Dirichlet form, so χ²(ν_t‖π) decays faster, the more so the larger the intensity a",
			fmt.Sprintf("χ² at 2,000 iterations falls with a: %s (a = 0), %s (0.5), %s (5), %s (100)", g3(chi[reldRows[0].label][2]), g3(chi[reldRows[1].label][2]), g3(chi[reldRows[2].label][2]), g3(chi[base][2]))},
		{"Theorem 3.5, Figure 1(d): the empirical measure concentrates around π faster (a larger LDP rate function)",
			fmt.Sprintf("a pair's share of the basin over its second half is %s from π on average (RMS) at a = 0, %s at a = 100", f3(rms[reldRows[0].label]), f3(rms[base]))},
		{"§2, Eq. 2.8: swaps carry the low-temperature particle to lower objective values, toward the global minimum",
			fmt.Sprintf("after 5,000 iterations %s of the pairs' cold particles are in the global basin at a = 100 (π = %.3f); without swaps, %s: each coordinate's barrier is 3.4 above the local minimum, 13.7 τ1, which Kramers' law crosses about once in 250,000 units of time, where the run is 50 (5,000 steps of 0.01)", f3(shares[base]), pi, f3(shares[reldRows[0].label]))},
		{"Appendix A: in discrete time a ≤ 1/η, so that a·η·S is a probability",
			"a = 1/η = 100 is the largest; the pair then swaps with probability S itself, the plain replica-exchange test"},
		{"Appendix A: τ2 trades exploration against effectiveness; too large a τ2 explores blindly and is \"fast but ineffective\"",
			fmt.Sprintf("χ² at 5,000: %s at τ2 = 1, %s at 2, %s at 8, %s at 50, %s at 1000, where the pair swaps in %s of the iterations and yet %s of the cold particles reach the basin: the hot particle, all but blind to U, seldom holds a better point than the cold one's",
				g3(chi[reldRows[4].label][3]), g3(chi[base][3]), g3(chi[reldRows[5].label][3]), g3(chi[reldRows[6].label][3]), g3(chi[reldRows[7].label][3]), f3(swapsOf[reldRows[7].label]), f3(shares[reldRows[7].label]))},
		{"Theorem 3.6: the discretisation's mean squared error over [0, T] grows linearly in η", "not measured here"},
	}))
	return b.String(), nil
}

const reldAbout = `
Seed 003 (Chen et al., ICLR 2019) analyses two Langevin diffusions at
temperatures τ1 < τ2 that swap positions at rate a·S (Eq. 2.4-2.7), and
proves that swapping speeds up the convergence to the invariant law, in
χ²-divergence (Theorem 3.3) and in the large deviations of the empirical
measure (Theorem 3.5), the more so the larger the swapping intensity a.
temper's ` + "`reld`" + ` is its discretisation, Eq. 3.15-3.16: each particle takes an
Euler step at its temperature, and the pair swaps with probability
a·η·min(1, S), the test on exact energies (no minibatch noise, so no
variance correction). The paper runs no experiment, so this page makes one
to set beside its statements: 400 independent pairs started in the worst
local minimum of a five-dimensional double well, and the law of the
low-temperature particle, estimated across the pairs, measured against the
invariant one as the iterations go by. τ1 = 0.25 and τ2 = 2 are the
temperatures of the slides that present the method (seed 004, with
a = 5); the rows vary a at τ2 = 2, then τ2 at the largest a.
`

const reldSize = `
Each row: seed 1, 400 pairs (chains) of 5,000 iterations at η = 0.01,
every 10th kept, no burn-in; a = 0 is one chain per pair at τ1, Langevin
dynamics without a partner. The figures' runs: 4 chains of 2,000
iterations, every one kept.
`

// doubleWellStep is the double well's step size η, its infer block's lr,
// which every row of the f-reSGLD page keeps.
const doubleWellStep = 0.005

// fastRow is a row of the f-reSGLD page: a run on the double well, its
// low temperature τ1 and the gradient noise's sd s.
type fastRow struct {
	comparedRun
	cold, noise float64
}

// fastRows are the f-reSGLD page's runs: reSGLD and f-reSGLD (seed 004)
// with noisy gradients on the double well, and both at the slides' own
// setting.
var fastRows = []fastRow{
	{comparedRun{label: "reSGLD, s = 0"}, 1, 0},
	{comparedRun{label: "reSGLD, s = 14", args: []string{"--grad-noise", "14"}}, 1, 14},
	{comparedRun{label: "f-reSGLD, s² = 196 given", args: []string{"--sampler", "f_resgld", "--set", "lr=0.005", "--set", "t_max=10", "--set", "grad_var=196", "--grad-noise", "14"}}, 1, 14},
	{comparedRun{label: "f-reSGLD, s² estimated", args: []string{"--sampler", "f_resgld", "--set", "lr=0.005", "--set", "t_max=10", "--grad-noise", "14"}}, 1, 14},
	{comparedRun{label: "reSGLD, the slides' setting", args: []string{"--set", "t_min=0.25", "--set", "t_max=2", "--set", "intensity=5", "--energy-noise", "1", "--grad-noise", "1"}}, 0.25, 1},
	{comparedRun{label: "f-reSGLD, the slides' setting", args: []string{"--sampler", "f_resgld", "--set", "lr=0.005", "--set", "t_min=0.25", "--set", "t_max=2", "--set", "intensity=5", "--energy-noise", "1", "--grad-noise", "1"}}, 0.25, 1},
}

// fastRuns are the f-reSGLD page's runs, seeds 1-3.
func fastRuns() []galleryRun {
	rows := make([]comparedRun, len(fastRows))
	for i, r := range fastRows {
		rows[i] = r.comparedRun
	}
	return comparedRuns(rows, "", nil, 1, 2, 3)
}

// fastResults is the f-reSGLD page's table: the left mode's weight under
// each run beside the exact one at τ1 and at the temperature that noisy
// gradients give a step with uncorrected noise, and the slides' remarks.
func fastResults(g *galleryRuns) (string, error) {
	model := filepath.Join(g.dir, "model.ppl")
	var rows [][]string
	left, exacts := map[string]float64{}, map[string]float64{}
	swaps, seconds := map[string]float64{}, map[string]float64{}
	for _, row := range fastRows {
		runs, ls, ss, err := wellRuns(g, row.label)
		if err != nil {
			return "", err
		}
		ts := perSeed(runs, func(d runDiagnostics) float64 { return d.Seconds })
		heat := doubleWellStep * row.noise * row.noise / 2 // η s²/2, the temperature noisy gradients add
		exact, err := exactShareBelow(model, row.cold, -4, 4, 200000)
		if err != nil {
			return "", err
		}
		hot, err := exactShareBelow(model, row.cold+heat, -4, 4, 200000)
		if err != nil {
			return "", err
		}
		left[row.label], exacts[row.label], swaps[row.label], seconds[row.label] = mean(ls), exact, mean(ss), mean(ts)
		decimals := 3 // a swap rate of 1e-4 to the digits that show it
		if mean(ss) < 0.01 {
			decimals = 5
		}
		rows = append(rows, []string{row.label, fmt.Sprintf("%g", row.cold), strconv.FormatFloat(row.noise, 'g', -1, 64), g3(heat), meanRange(ls, 3), f4(exact),
			fmt.Sprintf("%+.3f", mean(ls)-exact), f4(hot), meanRange(ss, decimals), fmt.Sprintf("%.1f", mean(ts))})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The share of the low-temperature level's draws with x < 0, the left mode's weight: the mean over seeds 1-3 with the range, beside the exact weight at τ1 and at τ1 + ηs²/2, the temperature that a Langevin step samples when its gradient carries noise of variance s² and its injected noise is not reduced to make up for it (η = %g); a seed's Monte Carlo error is about 0.004. Every run: 4 chains of 202,000 iterations, energy noise of sd 2 (1 at the slides' setting) with Eq. 15's variance correction, τ2 = 10 τ1 (the slides': τ2 = 2, intensity a = 5). Seconds are a seed's run, on the machine under Size.\n\n", doubleWellStep)
	b.WriteString(mdTable([]string{"run", "τ1", "s", "ηs²/2", "left mode's weight", "exact at τ1", "off by", "exact at τ1 + ηs²/2", "swap rate", "seconds"}, rows))
	b.WriteString("\nBeside the slides (seed 004), which give their settings and plots but no numbers:\n\n")
	b.WriteString(mdTable([]string{"the slides", "temper"}, [][]string{
		{"f-reSGLD: the injected noise c² = τη − ½η²s² makes up for the gradient noise's, to correct the bias it causes",
			fmt.Sprintf("at s = 14 (ηs²/2 = 0.49) reSGLD's weight is %s, between the exact one and the hotter law's; f-reSGLD's is %s with s² given, as reSGLD's without gradient noise (%s), and %s with s² estimated from successive gradients, whose drift from step to step the estimate counts as noise too, so that it injects a little less and samples a little colder",
				f3(left[fastRows[1].label]), f3(left[fastRows[2].label]), f3(left[fastRows[0].label]), f3(left[fastRows[3].label]))},
		{"\"It's doubtful whether the bias correction works\" (at τ1 = 0.25, σ_grad = 1)",
			fmt.Sprintf("at the slides' setting the correction moves the temperature by ηs²/2 = 0.0025, 1%% of τ1, which changes the weight by less than 0.001: reSGLD %s, f-reSGLD %s, neither distinguishable from the other; the correction shows where ηs²/2 is a sizeable part of τ1", f3(left[fastRows[4].label]), f3(left[fastRows[5].label]))},
		{"reSGLD in action (τ1 = 0.25, τ2 = 2, a = 5, σ_grad = σ_U = 1): \"swap rarely happens; low temp chain captures global minimum faster\"",
			fmt.Sprintf("the pair swaps in a share %s of the iterations: a·η = 0.025 caps the probability, and Eq. 15's correction for energies of sd 1 costs δ²σ² = (1/0.25 − 1/2)² = 12.25 nats; the low-temperature chain holds the deeper mode's weight, %s against the exact %s, a chain that starts in the shallower mode waiting there for a swap", g3(swaps[fastRows[4].label]), f3(left[fastRows[4].label]), f4(exacts[fastRows[4].label]))},
		{"f-reSGLD: \"Implementation is indeed faster\" (fewer evaluations of the energy)",
			fmt.Sprintf("not here: temper's f-reSGLD evaluates the same energies and gradients as its reSGLD, and its seed's run took %.1f s against %.1f s", seconds[fastRows[2].label], seconds[fastRows[1].label])},
	}))
	return b.String(), nil
}

const fastAbout = `
Seed 004's slides present two variants of reSGLD. Fast-tempering
reSGLD (f-reSGLD) corrects each replica's Langevin step for the noise of
its stochastic gradient: a gradient with noise of variance s² already
moves θ by η²s² of variance a step, so the injected noise is cut to
c² = τη − ½η²s² (temper's dynamics ` + "`fast_langevin`" + `, with s² given by
` + "`grad_var`" + ` or estimated from successive gradients), and its swap is reSGLD's
variance-corrected test. Without the correction, the step samples a law
at about τ + ηs²/2. This page runs both on this double well (whose
[page](gallery.md) compares the swaps) with gradient noise added
(` + "`--grad-noise`" + `), and at the slides' own setting (τ1 = 0.25, τ2 = 2,
intensity a = 5, noise of sd 1 in the energies and the gradients), whose
plots show the low-temperature chain's trajectory.
`

const fastSize = `
Each row: seeds 1-3, the double well's infer block (4 chains of 202,000
iterations, the first 2,000 burn-in, every 10th kept; two replicas, SGLD
steps of η = 0.005) with the row's flags.
`
