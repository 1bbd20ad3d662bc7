package main

import fashionmnist "github.com/temper-ppl/temper/examples/fashion-mnist"

// galleryPages are the pages, in the index's order: the fast ones, each
// made in seconds, so that CI regenerates them all, then the slow ones.
var galleryPages = append(fastPages, slowPages...)

var fastPages = []galleryPage{
	{name: "eight-schools", title: "Eight schools", shows: "a hierarchy with a funnel, non-centred, with the defaults: sampler auto runs NUTS on data this small, and raises adapt_delta where it diverges",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The draws of mu and tau against the iteration, a colour per chain, beside their histograms.", args: []string{"--kind", "trace", "--params", "mu,tau"}},
			{file: "rank.svg", caption: "Rank plots: each chain's share of the ranks among all draws is flat when the chains agree.", args: []string{"--kind", "rank", "--params", "mu,tau"}},
			{file: "pair.svg", caption: "mu, tau and the first school's effect against each other: the funnel in tau.", args: []string{"--kind", "pair", "--params", "mu,tau,theta.1"}},
			{file: "ppc.svg", caption: "The posterior predictive check: the density of the eight observed effects (dark) over those of 50 replicated experiments, y_rep, each drawn from a posterior draw of theta with the schools' own standard errors.", args: []string{"--kind", "ppc", "--model", "{model}", "--y", "y", "--yrep", "y_rep"}},
		}},
	{name: "logistic", title: "German credit: Bayesian logistic regression", shows: "the README's first command, checked against Stan's NUTS posterior",
		figures: []galleryFigure{
			{file: "reference.svg", caption: "The intercept and the first five coefficients: this run's density (solid) over Stan's NUTS posterior (dashed, a normal of the reference's mean and sd, examples/data/german_credit.reference.json); each panel's title gives both means and sds and Δmean/sd.", args: []string{"--kind", "reference", "--reference", "{root}/data/german_credit.reference.json", "--params", "alpha,beta.1,beta.2,beta.3,beta.4,beta.5"}},
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
	{name: "roaches", title: "Roaches: a negative-binomial regression with transformed data", shows: "neg_binomial_2_log with an offset, a predictor centred and scaled once on every row, and a posterior predictive check",
		figures: []galleryFigure{
			{file: "trace.svg", caption: "The treatment's coefficient, the dispersion and the rate ratio exp(beta.2) generated for each draw, over the iterations.", args: []string{"--kind", "trace", "--params", "beta.2,phi,rate_ratio"}},
			{file: "pair.svg", caption: "The intercept, the pre-treatment count's coefficient and the dispersion against each other.", args: []string{"--kind", "pair", "--params", "alpha,beta.1,phi"}},
			{file: "ppc.svg", caption: "The posterior predictive check on log(1 + y): the counts reach the hundreds, and on their own scale every curve is a spike at zero. The density of the 262 observed counts (dark) over those of 50 replicated data sets, y_rep.", args: []string{"--kind", "ppc", "--model", "{model}", "--y", "y", "--yrep", "y_rep", "--log1p"}},
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
	modesPage,
	workflowPage,
	{name: "mog25", title: "Cyclical SGLD on a mixture of 25 Gaussians", shows: "seed 002's mode coverage: the draws over the target's density, modes counted",
		figures: []galleryFigure{
			{"modes.svg", "The draws over the target's density; a filled centre has more than 100 draws within 0.25 (seed 002, Table 4).", []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}, ""},
			{file: "schedule.svg", caption: "The cyclical step size, the exploration stage of each cycle shaded.", args: []string{"--kind", "schedule"}},
		}},
	{name: "warmup", title: "What lr = auto does: the warm-up against steps picked by hand",
		shows: "the step size, metric and noise check the warm-up chooses on a badly scaled regression, beside hand-picked steps that fail, and the warnings they get",
		runs:  comparedRuns(warmupRows, "", nil), size: warmupSize, results: warmupResults,
		figures: []galleryFigure{
			{file: "pair.svg", run: "lr = auto (the default)", caption: "The default run's draws: the slopes strongly correlated, the scales more than a hundred times apart; the dense metric turns this into a round Gaussian for the sampler.", args: []string{"--kind", "pair", "--params", "a,b1,b2"}},
			{file: "trace.svg", run: "lr = auto (the default)", caption: "The default run: the four chains mix at once.", args: []string{"--kind", "trace", "--params", "a,b2"}},
			{file: "trace-unstable.svg", run: "lr = 1e-5 by hand", caption: "lr = 1e-5: unstable in the stiff direction: b2 swings by tens (its posterior sd is 0.17) and the chains never agree.", args: []string{"--kind", "trace", "--params", "a,b2"}},
			{file: "trace-stuck.svg", run: "lr = 2.5e-7 by hand, every row", caption: "The largest stable step, every row: each chain creeps from where it started (a's posterior mean is 7.7, its sd 4.4) and they never meet.", args: []string{"--kind", "trace", "--params", "a,b2"}},
		}},
	timeSeriesPage,
	mixturePage,
	pkODEPage,
	gpPoissonPage,
}

// slowPages are the papers' experiments, each a few minutes' runs.
var slowPages = []galleryPage{
	{name: "mog5", title: "Five isolated modes under minibatch noise: RENHD, RELD and SGNHT",
		shows: "seed 001's Section 4.1 (Figure 2): replica-exchange Nosé-Hoover dynamics against its baselines, each mode's mass beside the exact one",
		slow:  true, reduced: &reducedRuns{args: sameArgs("--iters", "40000")},
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
		slow:  true, runs: comparedRuns(cosineWindows, "", []string{"--chains", "4"}, 1, 2, 3), about: cosineAbout,
		reduced: &reducedRuns{args: sameArgs("--iters", "5000"), seeds: 1}, size: cosineSize, results: cosineWindowsResults,
		figures: []galleryFigure{
			{file: "windows-index-deo.svg", run: "W = 1 (DEO)", caption: "The first 1,000 rounds of the first ladder's replica index process (seed 1), one replica's round trips in colour: swaps in alternate pairs every iteration, each replica drifts up and down in short zigzags.", args: []string{"--kind", "index", "--rounds", "1000"}},
			{file: "windows-index-deo-star.svg", run: "W* = 8 (DEO*)", caption: "The same with windows of 8 iterations: a pair that swapped keeps the gate closed until the window turns, so a replica runs further in one direction between reversals.", args: []string{"--kind", "index", "--rounds", "1000"}},
			{file: "windows-modes-deo.svg", run: "W = 1 (DEO)", caption: "The target level's draws over the density (seed 1, four ladders); a filled centre has more than 100 draws within 0.25.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "windows-modes-deo-star.svg", run: "W* = 8 (DEO*)", caption: "The same for DEO*.", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "windows-swaps-deo-star.svg", run: "W* = 8 (DEO*)", caption: "DEO*'s swap rate per adjacent pair, which the adaptive ladder (Eq. 9-11) brings toward S = 0.4.", args: []string{"--kind", "swaps"}},
		}},
	{name: "mog25-table4", dir: "mog25", file: "table4.md", title: "Cyclical SGLD against SGLD: mode coverage of 25 Gaussians (Table 4)",
		shows: "seed 002's Table 4 and Figure 2: the modes single and parallel SGLD and cSGLD cover, seeds 1-10, beside the paper's",
		slow:  true, runs: comparedRuns(table4Rows, "", nil, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), about: table4About,
		reduced: &reducedRuns{args: sameArgs("--iters", "10000"), seeds: 2}, size: table4Size, results: table4Results,
		figures: []galleryFigure{
			{file: "table4-modes-parallel-sgld.svg", run: "Parallel SGLD (4 chains)", caption: "Four SGLD chains on the decreasing step 0.09/√k (seed 1): each stays in the mode it finds first, as in the paper's Figure 2(b).", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "table4-modes-parallel-csgld.svg", run: "Parallel cSGLD (4 chains)", caption: "Four cyclical SGLD chains (seed 1), the same budget: every mode covered, as in Figure 2(c).", args: []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}},
			{file: "table4-trace-csgld.svg", run: "cSGLD", caption: "One cyclical chain (seed 1): its draws in order (the sampling stages' only, so the axis counts draws, not iterations), a new mode at most of its 30 restarts; the [fast page](gallery.md) shows them over the density.", args: []string{"--kind", "trace", "--params", "x"}},
		}},
	{name: "double-well", title: "The variance-corrected swap: reSGLD on a noisy double well",
		shows: "seed 000's Eq. 15 (appendix A.1) and seed 004's m-reSGLD: the left mode's weight with and without the correction, beside the exact one",
		slow:  true, runs: comparedRuns(doubleWellRows, "", nil, 1, 2, 3), size: doubleWellSize, results: doubleWellResults,
		reduced: &reducedRuns{args: sameArgs("--iters", "20000"), seeds: 1},
		figures: []galleryFigure{
			{file: "density-corrected.svg", run: "reSGLD, corrected swap", caption: "Each chain's density of x (seed 1): the left mode holds three quarters of the draws.", args: []string{"--kind", "density", "--params", "x"}},
			{file: "density-uncorrected.svg", run: "reSGLD, uncorrected swap", caption: "The same without the correction: the right mode is too heavy.", args: []string{"--kind", "density", "--params", "x"}},
			{file: "trace-resgld.svg", run: "reSGLD, corrected swap", caption: "x over the kept draws (seed 1; a draw every 10 iterations, so the axis's 20,000 are 200,000 iterations): the target level crosses the barrier every few hundred iterations, carried by swaps.", args: []string{"--kind", "trace", "--params", "x"}},
			{file: "trace-sgld.svg", run: "SGLD (one temperature)", caption: "SGLD at the same step and one temperature, on the same axis: it crosses about once in 10,000 iterations.", args: []string{"--kind", "trace", "--params", "x"}},
		}},
	{name: "double-well-fast", dir: "double-well", file: "fast.md", title: "Fast-tempering reSGLD against reSGLD on a double well with noisy gradients",
		shows: "seed 004's f-reSGLD, whose injected noise makes up for the gradient noise's, beside reSGLD: the left mode's weight against the exact one, with noisy gradients and at the slides' own setting",
		slow:  true, runs: fastRuns(), about: fastAbout, size: fastSize, results: fastResults,
		reduced: &reducedRuns{args: sameArgs("--iters", "20000"), seeds: 1},
		figures: []galleryFigure{
			{file: "fast-density-resgld.svg", run: "reSGLD, s = 14", caption: "reSGLD with gradient noise of sd 14 (seed 1): each chain's density of x; the right mode is heavier than the exact 25%, as at a higher temperature.", args: []string{"--kind", "density", "--params", "x"}},
			{file: "fast-density-fresgld.svg", run: "f-reSGLD, s² = 196 given", caption: "f-reSGLD with the same gradient noise (seed 1): the injected noise cut by ½η²s², the left mode's weight back to that of noiseless gradients.", args: []string{"--kind", "density", "--params", "x"}},
			{file: "fast-index-slides.svg", run: "reSGLD, the slides' setting", caption: "The slides' setting (τ1 = 0.25, τ2 = 2, a = 5), seed 1, the first 5,000 iterations of the first chain: which replica is at which temperature; a swap is a crossing, and they are rare, as the slides remark.", args: []string{"--kind", "index", "--rounds", "5000"}},
			{file: "fast-trace-slides.svg", run: "f-reSGLD, the slides' setting", caption: "f-reSGLD at the slides' setting (seed 1): the low-temperature level's x over the kept draws (every 10th iteration). Two chains start in the shallower right mode and leave it at their first swap; then all four stay in the deeper left one, as the slides' \"low temp chain captures global minimum\" says, the right mode's 0.9% of the mass unvisited.", args: []string{"--kind", "trace", "--params", "x"}},
		}},
	{name: "reld", title: "Two-temperature replica exchange on a non-convex objective",
		shows: "seed 003's replica-exchange Langevin diffusion (Eq. 3.15-3.16) in five dimensions: how fast the low-temperature particle's law reaches the invariant one as the swapping intensity a and the high temperature τ2 vary, beside Theorems 3.3 and 3.5",
		slow:  true, runs: append(comparedRuns(reldRows, "", nil), reldFigureRuns...), about: reldAbout, size: reldSize, results: reldResults,
		reduced: &reducedRuns{args: reldReduced},
		figures: []galleryFigure{
			{file: "trace.svg", run: "figures: a = 100", caption: "Four pairs at a = 100, τ2 = 2: two of the low-temperature particle's five coordinates over 2,000 iterations. Each starts at the local minimum's +1 and jumps to the global minimum's -1 when a swap hands the particle the high-temperature one's better position, a coordinate or a few at a time.", args: []string{"--kind", "trace", "--params", "x.1,x.2"}},
			{file: "trace-langevin.svg", run: "figures: a = 0", caption: "Langevin dynamics at τ1 alone, the same start: the four chains never leave the local minimum.", args: []string{"--kind", "trace", "--params", "x.1,x.2"}},
			{file: "index.svg", run: "figures: a = 100", caption: "The first pair's two particles over the 2,000 iterations: which is at τ1 and which at τ2; a crossing is a swap (Eq. 3.16).", args: []string{"--kind", "index"}},
		}},
	{name: "logistic-table5", dir: "logistic", file: "table5.md", title: "Cyclical against traditional SG-MCMC on German credit (Table 5)",
		shows: "seed 002's Table 5: bulk ESS of SGLD, SGHMC and their cyclical forms at the paper's budget, beside the paper's and against Stan's posterior",
		slow:  true, runs: comparedRuns(table5Rows, "", []string{"--burn", "1000", "--iters", "5000", "--thin", "1", "--chains", "4"}, 1, 2), about: table5About, size: table5Size, results: table5Results,
		reduced: &reducedRuns{args: sameArgs("--burn", "200", "--iters", "1000"), seeds: 1},
		figures: []galleryFigure{
			{file: "table5-trace-csghmc.svg", run: "cSGHMC", caption: "Two coefficients' draws (seed 1), the sampling stages' only (3,750 of each chain's 5,000, so the axis counts draws): the four chains agree.", args: []string{"--kind", "trace", "--params", "beta.1,beta.2"}},
			{file: "table5-trace-sghmc.svg", run: "SGHMC", caption: "SGHMC on 0.002/√k: as the step shrinks the chains wander ever more slowly (a mean bulk ESS of 48).", args: []string{"--kind", "trace", "--params", "beta.1,beta.2"}},
			{file: "table5-schedule.svg", run: "cSGHMC", caption: "cSGHMC's step size: 30 cosine cycles over the 6,000 iterations, the exploration stage of each shaded.", args: []string{"--kind", "schedule"}},
			{file: "table5-acf.svg", run: "SGHMC, constant step", caption: "SGHMC on a constant step: autocorrelation of each chain, which decays within tens of iterations.", args: []string{"--kind", "acf", "--params", "beta.1,beta.2"}},
		}},
	{name: "german-credit", title: "German credit against Stan: the default SG-MCMC samplers",
		shows: "SGHMC, SGLD and SGNHT with their defaults (the warm-up's step and metric) on minibatches, seeds 1-3, every coefficient against Stan's NUTS posterior",
		slow:  true, runs: comparedRuns(germanCreditRows, "../logistic/model.ppl", nil, 1, 2, 3), about: germanCreditAbout, size: germanCreditSize, results: germanCreditResults,
		reduced: &reducedRuns{args: sameArgs("--iters", "1000"), seeds: 1},
		figures: []galleryFigure{
			{file: "pair.svg", run: "SGHMC", caption: "The intercept and the first two coefficients against each other (seed 1).", args: []string{"--kind", "pair", "--params", "alpha,beta.1,beta.2"}},
			{file: "rank.svg", run: "SGHMC", caption: "Rank plots of the same (seed 1): flat, the four chains agree.", args: []string{"--kind", "rank", "--params", "alpha,beta.1,beta.2"}},
			{file: "density-sgld.svg", run: "SGLD", caption: "SGLD's densities of the same (seed 1): its chains disagree a little, as its R-hat above 1.01 says.", args: []string{"--kind", "density", "--params", "alpha,beta.1,beta.2"}},
		}},
	{name: "logistic-nuts", dir: "logistic", file: "nuts.md", title: "NUTS beside SGHMC on German credit",
		shows: "the exact sampler nuts (full data, Stan's warm-up) and the default SGHMC (minibatches): time, effective draws per second, tree depth, and both against Stan",
		slow:  true, about: nutsAbout, size: nutsSize, results: nutsResults,
		runs:    []galleryRun{{label: "NUTS", args: []string{"--sampler", "nuts"}}, {label: "SGHMC", args: []string{"--sampler", "sghmc"}}},
		reduced: &reducedRuns{args: nutsReduced},
		figures: []galleryFigure{
			{file: "nuts-pair.svg", run: "NUTS", caption: "The intercept and the first two coefficients: no divergent transition (they would be red).", args: []string{"--kind", "pair", "--params", "alpha,beta.1,beta.2"}},
			{file: "nuts-acf.svg", run: "NUTS", caption: "NUTS's autocorrelation: gone after a lag or two, and negative at lag 1 for beta.1 (antithetic draws).", args: []string{"--kind", "acf", "--params", "alpha,beta.1"}},
			{file: "nuts-acf-sghmc.svg", run: "SGHMC", caption: "SGHMC's: its momentum makes the autocorrelation swing and fade over some 30 iterations, where an iteration costs half a pass over the data and a NUTS draw a full pass for each of its leapfrog steps (the table's leapfrogs per draw).", args: []string{"--kind", "acf", "--params", "alpha,beta.1"}},
		}},
	{name: "mnist", title: "A Bayesian MLP for MNIST with SGLD",
		shows: "one and four SGLD chains of the 784-100-10 network on the full MNIST (temper bench): their test accuracy beside the PyTorch peer's, and how far apart the chains' weights are",
		slow:  true, about: mnistAbout, size: mnistSize, results: mnistResults,
		reduced: &reducedRuns{args: sameArgs("--data", "{dir}/data", "--epochs", "2", "--limit-train", "1024", "--limit-test", "200", "--thin", "2")},
		runs: []galleryRun{
			{label: "P = 1", bench: true, args: []string{"--data", "../shared/data/mnist", "--replicas", "1"}},
			{label: "P = 4", bench: true, args: []string{"--data", "../shared/data/mnist", "--replicas", "4"}},
		},
		figures: []galleryFigure{
			{file: "trace.svg", run: "P = 4", caption: "Two output biases over each chain's 23 kept draws: each chain keeps to its own values, its weights in a mode of its own.", args: []string{"--kind", "trace", "--params", "b2.1,b2.2"}},
			{file: "rank.svg", run: "P = 4", caption: "Their rank plots: far from flat, which a single-mode posterior sampled well would give.", args: []string{"--kind", "rank", "--params", "b2.1,b2.2"}},
		}},
	{name: "fashion-mnist", title: "Seed 001's Table 1: an LSTM on Fashion-MNIST under RENHD and five other samplers",
		shows: "seed 001's Section 4.2 (Table 1): test accuracy and NLL of the model average of RENHD, RELD, SGNHT, SGHMC, cyclical SGHMC and DEO*-mSGD, 0% and 20% of the labels permuted, beside the paper's",
		slow:  true, about: fashionLSTMAbout, size: fashionLSTMSize, results: fashionLSTMResults,
		reduced: &reducedRuns{args: fashionReduced},
		runs:    fashionRuns(fashionLSTMArgs, fashionmnist.PaperStep(10240), fashionRungs, fashionEvery),
		figures: []galleryFigure{
			{file: "swaps-renhd.svg", run: "RENHD, 0%", caption: "RENHD's swap rate between adjacent rungs of its ladder T = 1, 1.2, 1.44, 1.73, with the attempts above the bars: few, in so short a run.", args: []string{"--kind", "swaps"}},
			{file: "ladder-deo.svg", run: "DEO*-mSGD, 0%", caption: "DEO*-mSGD's ladder of step sizes over the run (an exchange round each iteration): the two inner levels adapted during burn-in toward the swap rate 0.4, then frozen; the ends stay at ε and 10ε.", args: []string{"--kind", "ladder"}},
		}},
	{name: "fashion-mnist-cnn", dir: "fashion-mnist", file: "cnn.md", title: "A small CNN on Fashion-MNIST under the same six samplers",
		shows: "the samplers of the LSTM page on a two-convolution network: test accuracy and NLL of the model average, 0% and 20% of the labels permuted",
		slow:  true, about: fashionCNNAbout, size: fashionCNNSize, results: fashionCNNResults,
		reduced: &reducedRuns{args: fashionReduced},
		runs:    fashionRuns(fashionCNNArgs, 5e-6, fashionRungs, fashionEvery),
		figures: []galleryFigure{
			{file: "cnn-swaps-renhd.svg", run: "RENHD, 0%", caption: "RENHD's swap rate between adjacent rungs, with the attempts.", args: []string{"--kind", "swaps"}},
		}},
	lotkaVolterraPage,
}

const mnistAbout = `
The model is the network of ` + "`temper bench`" + `, the project's speed
benchmark, set up as the PyTorch peer sets up the same experiment (the
README's "Benchmark: temper bench" and this folder's README have the
details); ` + "`temper run`" + ` cannot read MNIST's IDX files, so the bench reads
them and binds them through the embedding API, and ` + "`--out`" + ` saves its
run as temper run saves one. Seed 002 trains a three-layer MLP on MNIST
to measure the entropy of its predictions on notMNIST (its Figure 4),
which needs the notMNIST images; this page shows the setting that
experiment starts from.
`

const mnistSize = `
Each run: 10 epochs of the 60,000 training images (4,680 steps a chain,
the first 2,340 burn-in, then a draw every 100 steps), 1 and 4 chains.
The data are the full MNIST in ../shared/data/mnist beside the checkout
(any folder of the four IDX files does: --data DIR); the subset shipped
in examples/mnist/data gives about 65% after 10 epochs of its 2,000
images.
`

const warmupSize = `
Each run: seed 1, 4 chains of 2,000 draws, minibatches of 20 of the 100
rows (the last: every row). The warm-up's own iterations (the optimiser,
the Hessian, settling) come before the draws. The method and its sources
are in infer/warmup.go and docs/defaults.md, "What the defaults do".
`

const germanCreditAbout = `
[The example's Go program](main.go) fits the same model by a Laplace
approximation and compares it with the reference (` + "`go run ./examples/german-credit`" + `;
its test finds the mode within 0.35 sd of Stan's means and the sds within
2-4%). Here the samplers do: each default SG-MCMC sampler of temper, its
step size and metric chosen by the warm-up (the README's "What the
defaults do"), on minibatches of 500 rows, against Stan's NUTS posterior
for the same model and data (` + "`examples/data/german_credit.reference.json`" + `,
made by CmdStan; ` + "`TestGermanCreditAgainstStan`" + ` checks the SGHMC run of seed
1). No paper reports this; the bars are posteriordb's, |Δmean|/sd below
0.25, and the tighter 0.1 sd and 10% of the test.
`

const germanCreditSize = `
Each sampler: seeds 1-3, the example's infer block (4 chains of 4,000
draws after the warm-up, minibatches of 500 of the 1,000 rows). Stan's
reference: 4 chains of 10,000 NUTS draws on the full data.
`

const nutsAbout = `
temper has the exact samplers too: ` + "`--sampler nuts`" + ` is the No-U-Turn
sampler of Hoffman & Gelman (multinomial, with the generalised U-turn
criterion, as Stan's) with Stan's warm-up (dual averaging of the step
toward an acceptance of 0.8, a metric from windows of the chains' draws:
diagonal, as Stan's default, or dense where their correlations stand out
of their noise, metric = auto). It evaluates every row of the data at
each leapfrog step, where SGHMC evaluates a minibatch. This page runs
both on the README's first example with the infer block's size and
compares what an effective draw costs, and how close each comes to
Stan's posterior.
`

const nutsSize = `
Each sampler: seed 1, 4 chains of 4,000 kept draws (NUTS after Stan's
1,000 warm-up iterations, on all 1,000 rows; SGHMC after its own warm-up,
on minibatches of 500), the example's infer block.
`

const table5About = `
Seed 002's Table 5 reports the mean ESS of Bayesian logistic regression
on three UCI data sets under cyclical SG-MCMC (cSGLD, cSGHMC: M = 30
cycles, exploration proportion 1/4) and the "traditional" samplers on the
decreasing step ε/√k (Section 2), with 5,000 samples after 1,000 burn-in
(appendix A.2). Here the model is the German credit example above (48
standardised features and an intercept, minibatches of 500), ε = η0 =
0.004 for SGLD and 0.002 for SGHMC (friction 0.1), and SGLD and SGHMC on
a constant 0.002 for comparison.
`

const table5Size = `
Each sampler: seeds 1 and 2, 4 chains of 6,000 iterations (1,000
burn-in, every draw kept), minibatches of 500 of the 1,000 rows. The
paper: 5,000 samples after 1,000 burn-in; the number of chains is not
given.
`

const doubleWellSize = `
Each sampler: seeds 1-3, 4 chains of 202,000 iterations (2,000 burn-in),
every 10th kept (80,000 draws a seed); reSGLD and m-reSGLD are ladders of
two replicas, τ = 1 and 10, that swap every iteration.
`

const table4About = `
Seed 002's Table 4 counts the modes of this mixture that each sampler
covers in 50,000 iterations per chain, over 10 runs: SGLD on the
decreasing step ε/√k (the paper's "traditional" SG-MCMC), cyclical SGLD
(cSGLD: the cosine step of Eq. 1 restarting 30 times, each cycle's first
quarter exploring at temperature 0 and the rest sampling), and both with
four chains in parallel. Its Figure 2 shows the parallel pair. Here the
four are the example's infer block (cSGLD, η0 = 0.09) and SGLD on
0.09/√k (the paper does not give ε; 0.01 and 0.05 find the same single
mode), each with seeds 1-10; ` + "`mog25_test.go`" + ` asserts the same
numbers.
`

const table4Size = `
As the paper: 50,000 iterations per chain, 1 or 4 chains, 10 runs (seeds
1-10), every draw of a sampling stage kept; chains start uniform in
[-2, 2]² (Stan's default; the paper's script starts in [-10, 10]²).
`

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

const fashionLSTMAbout = `
Seed 001 trains this network by RENHD, RELD (RENHD with the thermostat
frozen at 0.999 + c/T, the preset renhd_reld), SGNHT, SGHMC and others
for 1,000 epochs of the 60,000 training images and reports the test
accuracy of the draws' Monte Carlo average (Table 1). Here the same
network, at a fraction of the size (below), is sampled by the four of
those samplers and two of the other seeds': cyclical SGHMC (seed 002)
and DEO*-mSGD, non-reversible parallel tempering over step sizes with
momentum-SGD explorers (seed 000). Each run keeps 10 draws of its target
level from the second half of its epochs and scores their model average
on the test images with the model's ` + "`predict`" + ` block, the
computation ` + "`temper predict`" + ` makes.

**Settings, the same for every sampler, not tuned per sampler.** The
paper's step ε = 5e-6 is for 60,000 rows; the minibatch energy is scaled
by N/B, so this page uses ε·60,000/10,240 = 2.9e-5, the paper's step on
the mean loss (` + "`fashionmnist.PaperStep`" + `). Friction or background noise
c = 0.1 (the paper's c), minibatches of 128, RENHD's and RELD's exchange
minibatches of 256 grown until the Barker test's variance bound holds,
geometric factor 1.2 (the paper's). Cyclical SGHMC starts its cycles at
2ε, DEO*-mSGD's explorers run steps from ε to 10ε. temper's default
step (lr = auto, the warm-up's) is not used: seed 001 fixes one ε for
its samplers, and a common ε keeps this a comparison of samplers, not of
step-size choices.

**Labels.** Seed 001 permutes a share of the training labels anew at the
beginning of each epoch. temper draws each replica's minibatches inside
the sampler, with no hook between epochs, so here 20% of the training
rows, drawn once from the seed, have their labels shuffled among
themselves for the whole run (` + "`fashionmnist.PermuteLabels`" + `). The
test labels are never permuted.

**Why the order can differ from the paper's** (the rankings below name
each pair in the other order). Ten epochs of 10,240 images are about
1/600 of the paper's passes: every network here is still learning when
its draws are kept, well short of the paper's accuracies, so the order
mostly says which sampler learns fastest at the common ε, not
which samples the posterior best. RELD's thermostat is frozen near 1, so
it moves like Langevin dynamics, whose step on the mean loss is about a
tenth (c = 0.1) of the momentum samplers' at the same ε: it is the
furthest behind, where the paper's RELD, after 1,000 epochs, is within
0.3 points of SGHMC. The ladders have 4 rungs, not 12, and exchange
every 50 iterations, so a run has 16 exchange rounds: tempering has
little time to help, and the gaps between RENHD, SGHMC and SGNHT at 0%
are within about one standard error of a difference (above the table),
one seed each where the paper averages 10. With 20% of the labels permuted
the gaps are larger than that, and RENHD's lead there is what the paper
reports.
`

const fashionLSTMSize = `
Each run: the first 10,240 of the 60,000 training images (a multiple of
the exchange minibatch, so that the exchange batch can grow to the whole
set) and the first 2,000 of the 10,000 test images, from
../shared/data/fashion-mnist beside the checkout (any folder of the four
gzipped IDX files: --data DIR); H = 32 LSTM units (the paper's 128: 10,570
parameters, not 89,290); 10 epochs per replica (800 iterations of 128
images; the paper: 1,000 epochs of 60,000), the first 5 burn-in, 10
draws kept from the last 5; one chain, seed 1; ladders of 4 rungs (the
paper's 12) exchanging every 50 iterations (the paper's trajectories of
200); float32. The replica-exchange samplers move every rung every
iteration, so they cost about 4 times a single chain's gradients.
The shipped subset (examples/fashion-mnist/data, 1,024 and 500 images)
runs the same comparison smaller in the example's test.
`

const fashionCNNAbout = `
The same comparison as [the LSTM page](gallery.md), on a small
convolutional network (cnn.ppl, 2,158 parameters at C = 4 channels),
with the same settings but one: every sampler steps the paper's
ε = 5e-6 itself, not its rescaling 2.9e-5, which in a trial run at
C = 8 sent SGHMC (friction 0.1, so a step of 10ε on the mean loss) to a
chance accuracy while RENHD's thermostat held. Seed 001 trains no CNN on
Fashion-MNIST; its rankings are the LSTM's. The same caveats hold:
5 epochs of 10,240 images, 4 rungs, one seed.
`

const fashionCNNSize = `
Each run: the first 10,240 training and 2,000 test images, C = 4
channels, 5 epochs per replica (400 iterations of 128 images), the
first half burn-in, 10 draws kept; one chain, seed 1; ladders of 4 rungs
exchanging every 50 iterations; float32.
`
