package main

// galleryPages are the pages, in the index's order: the fast ones, each
// made in seconds, so that CI regenerates them all, then the slow ones.
var galleryPages = append(fastPages, slowPages...)

var fastPages = []galleryPage{
	{name: "eight-schools", title: "Eight schools", shows: "a hierarchy with a funnel, non-centred; SGHMC with the default warm-up",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The draws of mu and tau against the iteration, a colour per chain, beside their histograms.", args: []string{"--kind", "trace", "--params", "mu,tau"}},
			{file: "rank.svg", caption: "Rank plots: each chain's share of the ranks among all draws is flat when the chains agree.", args: []string{"--kind", "rank", "--params", "mu,tau"}},
			{file: "pair.svg", caption: "mu, tau and the first school's effect against each other: the funnel in tau.", args: []string{"--kind", "pair", "--params", "mu,tau,theta.1"}},
		}},
	{name: "logistic", title: "German credit: Bayesian logistic regression", shows: "the README's first command, checked against Stan's NUTS posterior",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The intercept and the first two coefficients over the iterations, beside their histograms.", args: []string{"--kind", "trace", "--params", "alpha,beta.1,beta.2"}},
			{file: "density.svg", caption: "Each chain's density of the same three: the chains agree.", args: []string{"--kind", "density", "--params", "alpha,beta.1,beta.2"}},
			{file: "acf.svg", caption: "Autocorrelation of each chain: the draws decorrelate within a few iterations.", args: []string{"--kind", "acf", "--params", "alpha,beta.1"}},
		}},
	{name: "radon", title: "Radon: varying intercepts by county", shows: "a multilevel regression whose intercepts are indexed by data, a[county[n]]",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The mean intercept, the floor effect and the first county's intercept over the iterations.", args: []string{"--kind", "trace", "--params", "mu,b,a.1"}},
			{file: "pair.svg", caption: "The same three against each other.", args: []string{"--kind", "pair", "--params", "mu,b,a.1"}},
		}},
	{name: "dirichlet", title: "A poll's answer shares: simplex parameters", shows: "simplex[K][J] with a Dirichlet prior, the first region's shares",
		figures: []galleryFigure{
			{file: "density.svg", caption: "Each chain's density of the first region's four shares.", args: []string{"--kind", "density", "--params", "theta.1"}},
			{file: "rank.svg", caption: "Their rank plots: flat when the chains agree.", args: []string{"--kind", "rank", "--params", "theta.1.1,theta.1.2"}},
		}},
	{name: "varying-slopes", title: "Correlated varying slopes: an LKJ prior on a Cholesky factor", shows: "cholesky_factor_corr with lkj_corr_cholesky, and multi_normal_cholesky",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The population means and scales over the iterations.", args: []string{"--kind", "trace", "--params", "mu.1,mu.2,tau.1,tau.2"}},
			{file: "pair.svg", caption: "The scales and the correlation factor's free entry against each other.", args: []string{"--kind", "pair", "--params", "tau.1,tau.2,L.2.1"}},
		}},
	{name: "funnel", title: "Neal's funnel with NUTS: divergences, and the reparameterisation that removes them", shows: "the exact sampler nuts with Stan's warm-up, on the centred and the non-centred funnel",
		runs: []galleryRun{{}, {label: "centred", model: "centred.ppl"}},
		figures: []galleryFigure{
			{file: "pair.svg", caption: "The non-centred form: v against x_1 traces the whole funnel, neck and mouth, without a divergent transition.", args: []string{"--kind", "pair", "--params", "v,x.1,z.1"}},
			{file: "trace.svg", caption: "The non-centred form: v's draws over the iterations and their histogram, N(0, 3²).", args: []string{"--kind", "trace", "--params", "v"}},
			{file: "centred-pair.svg", caption: "The centred form (centred.ppl): the divergent transitions (red) gather at the neck, which the chains cannot enter; v's histogram is cut off below -3, and temper run warns of divergences, E-BFMI and R-hat.", args: []string{"--kind", "pair", "--params", "v,x.1"}, run: "centred"},
		}},
	{name: "cosine2d", title: "Replica exchange on a multi-modal target (DEO*-SGD)", shows: "a 16-level ladder of step sizes with the deterministic even-odd scheme of seed 000",
		figures: []galleryFigure{
			{file: "index.svg", caption: "The replica index process: each replica's level over the exchange rounds, the first to make a round trip in colour.", args: []string{"--kind", "index"}},
			{file: "ladder.svg", caption: "The step-size ladder over the run, as the adaptive ladder spaces it toward equal swap rates.", args: []string{"--kind", "ladder"}},
			{file: "swaps.svg", caption: "The swap rate of each adjacent pair of levels, with its attempts.", args: []string{"--kind", "swaps"}},
		}},
	{name: "mog25", title: "Cyclical SGLD on a mixture of 25 Gaussians", shows: "seed 002's mode coverage: the draws over the target's density, modes counted",
		figures: []galleryFigure{
			{"modes.svg", "The draws over the target's density; a filled centre has more than 100 draws within 0.25 (seed 002, Table 4).", []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}, ""},
			{file: "schedule.svg", caption: "The cyclical step size, the exploration stage of each cycle shaded.", args: []string{"--kind", "schedule"}},
		}},
}

// slowPages are the papers' experiments, each a few minutes' runs.
var slowPages = []galleryPage{
	{name: "mog5", title: "Five isolated modes under minibatch noise: RENHD, RELD and SGNHT",
		shows: "seed 001's Section 4.1 (Figure 2): replica-exchange Nosé-Hoover dynamics against its baselines, each mode's mass beside the exact one",
		slow:  true,
		runs: []galleryRun{
			{label: "RENHD"},
			{label: "RELD", args: []string{"--sampler", "renhd_reld", "--set", "lr=0.015", "--set", "c=0.02", "--set", "every=2", "--set", "replicas=7", "--set", "tau=1.5"}},
			{label: "SGNHT (1 chain)", args: []string{"--sampler", "sgnht", "--set", "lr=0.015", "--set", "c=0.02"}},
		},
		about: mog5About, size: mog5Size, results: mog5Results,
		figures: []galleryFigure{
			{file: "modes-renhd.svg", run: "RENHD", caption: "The target rung's draws over the mixture's density: every mode visited, a filled centre has more than 100 draws within 1.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv", "--radius", "1"}},
			{file: "modes-reld.svg", run: "RELD", caption: "The same for RELD, whose thermostat is frozen: every mode visited, in the wrong proportions (the table).", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv", "--radius", "1"}},
			{file: "modes-sgnht.svg", run: "SGNHT (1 chain)", caption: "One SGNHT chain with the same step, friction and noise: it stays in a few modes.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv", "--radius", "1"}},
			{file: "trace.svg", run: "RENHD", caption: "The target rung's x.1 and x.2 over the iterations: the replica exchange carries it between modes hundreds of times.", args: []string{"--kind", "trace", "--params", "x"}},
			{file: "trace-sgnht.svg", run: "SGNHT (1 chain)", caption: "SGNHT's x.1 and x.2: it crosses a barrier once in 400,000 iterations, when its thermostat dips below zero and heats the chain.", args: []string{"--kind", "trace", "--params", "x"}},
			{file: "swaps.svg", run: "RENHD", caption: "RENHD's swap rate between adjacent rungs of its ladder T = 1.5^j, with the attempts.", args: []string{"--kind", "swaps"}},
		}},
	{name: "cosine2d-windows", dir: "cosine2d", file: "windows.md", title: "DEO against DEO*: the window of non-reversible swaps",
		shows: "seed 000's Figure 4(a): round trips per 1,000 iterations at windows W = 1 (DEO) to 16, beside Lemma 1 and the paper",
		slow:  true, runs: cosineWindowRuns(), about: cosineAbout, size: cosineSize, results: cosineWindowsResults,
		figures: []galleryFigure{
			{file: "windows-index-deo.svg", run: "W = 1 (DEO)", caption: "The first 1,000 rounds of the first ladder's replica index process (seed 1), one replica's round trips in colour: swaps in alternate pairs every iteration, each replica drifts up and down in short zigzags.", args: []string{"--kind", "index", "--rounds", "1000"}},
			{file: "windows-index-deo-star.svg", run: "W* = 8 (DEO*)", caption: "The same with windows of 8 iterations: a pair that swapped keeps the gate closed until the window turns, so a replica runs further in one direction between reversals.", args: []string{"--kind", "index", "--rounds", "1000"}},
			{file: "windows-modes-deo.svg", run: "W = 1 (DEO)", caption: "The target level's draws over the density (seed 1, four ladders); a filled centre has more than 100 draws within 0.25.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "windows-modes-deo-star.svg", run: "W* = 8 (DEO*)", caption: "The same for DEO*.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "windows-swaps-deo-star.svg", run: "W* = 8 (DEO*)", caption: "DEO*'s swap rate per adjacent pair, which the adaptive ladder (Eq. 9-11) brings toward S = 0.4.", args: []string{"--kind", "swaps"}},
		}},
}

const cosineAbout = `
Seed 000 generalises the deterministic even-odd scheme (DEO, which tries
the even pairs in even iterations and the odd pairs in odd ones) to
windows of W iterations (DEO_W, Section 3): each pair may swap once a
window, so a replica that swapped up does not swap straight back down.
Lemma 1 (Eq. 3) gives the round-trip time, and Theorem 1 the best window,
W* = ⌈(log P + log log P)/(-log(1 - S))⌉ = 8 for P = 16 replicas and a
swap rate S = 0.4, which ` + "`window = auto`" + ` picks. Figure 4(a) of the paper
plots the round trips against W on this target: 18 per 1,000 iterations
for DEO, 45 at W = 8. Here every window from 1 to 16 runs the example's
infer block (DEO*-SGD's ladder of step sizes from 0.003 to 0.6, the
adaptive ladder and correction buffer throughout).
`

const cosineSize = `
Each window: seeds 1-3, each four independent ladders of 16 replicas for
20,000 iterations (the paper: one ladder of 16 for 20,000 iterations), the
target level's draws thinned by 5.
`

const mog5About = `
Seed 001 compares RENHD, the replica-exchange Nosé-Hoover dynamics, with
SGNHT, a single thermostatted chain, on this target (Section 4.1, Figure
2: the sampled histograms and trajectories, and RENHD's ESS); RELD is the
paper's replica-exchange Langevin baseline, here RENHD with the thermostat
frozen (the preset renhd_reld). The three runs have the same step
ε = 0.015, background noise c = 0.02, energy and gradient noise (sd 0.5)
and iterations; RELD and RENHD have the same ladder of 7 rungs. The
example's [README](README.md) explains the two departures from Algorithm 2
that make the thermostat sample the right temperature, and
` + "`mog5_test.go`" + ` asserts the table's RENHD column (each mass within 0.03).
`

const mog5Size = `
Each run: 400,000 iterations, seed 1, one chain (RENHD and RELD: a ladder
of 7 rungs, every rung's 400,000 iterations, so 7 times SGNHT's
gradients). The paper gives neither its iterations nor its step size; its
ESS is per 10⁵ draws, as ours is here.
`
