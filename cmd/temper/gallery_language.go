package main

// The language's pages: the examples of loops over time with a local
// state (GARCH, ARMA, an HMM by the forward algorithm), a mixture summed
// out by log_mix, an ODE model and a latent Gaussian process, each run
// with its infer block and set beside its reference.json, the long NUTS
// run its folder keeps, and the values its data were simulated with.

var timeSeriesPage = galleryPage{name: "time-series", dir: "garch",
	title: "Time series with state: GARCH, ARMA and a hidden Markov model",
	shows: "three likelihoods written as loops over time with a local variable carried from step to step (a variance, an error, the forward probabilities), each against a long reference run",
	runs: []galleryRun{
		{label: "GARCH(1,1)", model: "../garch/model.ppl"},
		{label: "ARMA(1,1)", model: "../arma/model.ppl"},
		{label: "HMM", model: "../hmm/model.ppl"},
	},
	about: timeSeriesAbout, results: referenceResults,
	figures: []galleryFigure{
		referenceFigure("reference.svg", "GARCH(1,1)", "garch", "mu,omega,alpha,beta", "GARCH(1,1): this run's density of each parameter (solid) over the reference's, 4 chains of 25,000 NUTS draws (dashed, a normal of its mean and sd, examples/garch/reference.json); each panel's title gives both means and sds and Δmean/sd."),
		{file: "pair.svg", run: "GARCH(1,1)", caption: "GARCH(1,1): omega, alpha and beta against each other: omega and beta trade off along a curved ridge, a larger beta with a smaller omega giving about the same unconditional variance; it is why the infer block raises adapt_delta to 0.95.", args: []string{"--kind", "pair", "--params", "omega,alpha,beta"}},
		referenceFigure("arma-reference.svg", "ARMA(1,1)", "arma", "mu,phi,theta,sigma", "ARMA(1,1) against its reference (examples/arma/reference.json)."),
		referenceFigure("hmm-reference.svg", "HMM", "hmm", "mu.1,mu.2,sigma,Gamma.1.1,Gamma.2.2", "The HMM against its reference (examples/hmm/reference.json): the state means, the shared sd and the probabilities of staying in each state."),
		{file: "hmm-trace.svg", run: "HMM", caption: "The HMM's state means over the iterations: ordered[2] keeps state 1 the low one in every chain, so the chains agree and no label switches.", args: []string{"--kind", "trace", "--params", "mu"}},
	}}

const timeSeriesAbout = `
The three models are written as the Stan User's Guide writes them, with
the language's local variables and loops ([Local variables, loops and
ifs](../../docs/language.md#local-variables-loops-and-ifs)): a local
declared in the model block (` + "`sigma: real[T]`" + `, ` + "`err: real[T]`" + `,
` + "`la: real[2]`" + `), filled by a ` + "`for t in 2:T`" + ` loop in which each step
reads the one before, and scored at the end, GARCH's and ARMA's by one
vectorised statement over the vector the loop filled, the HMM's by
` + "`target += log_sum_exp(la)`" + `. A scalar local (ARMA's ` + "`nu`" + `) or a whole
vector (the HMM's ` + "`la = next`" + `) may be reassigned in every iteration.
These loops, of 150 to 500 iterations, compile to a scan: the step is
lowered once into a small graph of its own, which the scan runs once per
iteration and backward over the iterations for the gradient, at a cost
O(T) (a loop shorter than 100 iterations is unrolled instead; see the
same section). Each folder's reference.json is
a long NUTS run of the same model (4 chains of 25,000 draws, seed 7, the
command in the file) and records the values the data were simulated with
(simulate_test.go in each folder). The GARCH model is shown first; the
ARMA and HMM models follow it.
`

var mixturePage = galleryPage{name: "mixture", title: "A two-component mixture with log_mix",
	shows:   "a discrete component summed out by log_mix, one row of a plate per observation, the means ordered so that the labels cannot switch, against a long reference run",
	runs:    []galleryRun{{args: []string{"--sampler", "nuts"}}},
	about:   "The infer block leaves the sampler to auto, which chooses NUTS here by timing a gradient (about 3 s predicted, against the minute it gives NUTS); the page names NUTS (`--sampler nuts`), the sampler auto chooses, so that it does not depend on the speed of the machine that makes it. reference.json is a long NUTS run of the same model (4 chains of 25,000 draws, seed 7) and records the values the data were simulated with.",
	results: referenceResults,
	figures: []galleryFigure{
		referenceFigure("reference.svg", "", "mixture", "theta,mu.1,mu.2,sigma.1,sigma.2", "This run's density of each parameter (solid) over the reference's (dashed, a normal of its mean and sd, examples/mixture/reference.json); each panel's title gives both means and sds and Δmean/sd."),
		{file: "pair.svg", caption: "The first component's weight against the second component's mean and sd: the wide component overlaps the narrow one, and its weight, mean and sd trade off.", args: []string{"--kind", "pair", "--params", "theta,mu.2,sigma.2"}},
		{file: "trace.svg", caption: "The two means over the iterations: ordered[2] keeps component 1 the low one in every chain.", args: []string{"--kind", "trace", "--params", "mu"}},
	}}

var pkODEPage = galleryPage{name: "pk-ode", title: "One-compartment pharmacokinetics: an ODE inside NUTS",
	shows:   "a derivative written in the functions block and solved by ode_rk45 at the observation times, its sensitivities giving the gradient, against a long run of the ODE's closed-form solution",
	about:   "Each gradient is one Dormand-Prince solve of the two amounts with their sensitivities to ka and ke ([Ordinary differential equations](../../docs/language.md#ordinary-differential-equations); `ode_bdf` is the solver for stiff systems, with the same signature). reference.json is a long NUTS run of [closed_form.ppl](closed_form.ppl), the same model by the ODE's solution C(t) = D·ka/(V(ka − ke))·(e^{−ke t} − e^{−ka t}), 4 chains of 25,000 draws, and records the values the data were simulated with: so the comparison checks the solver, not only the sampler.",
	results: referenceResults,
	figures: []galleryFigure{
		referenceFigure("reference.svg", "", "pk-ode", "ka,ke,sigma", "This run's density of each parameter (solid) over the closed form's long run (dashed, a normal of its mean and sd, examples/pk-ode/reference.json); each panel's title gives both means and sds and Δmean/sd."),
		{file: "pair.svg", caption: "ka, ke and sigma against each other: ke is pinned down by the long decline, ka only by the first hours' rise.", args: []string{"--kind", "pair", "--params", "ka,ke,sigma"}},
		{file: "trace.svg", caption: "The three over the iterations, beside their histograms.", args: []string{"--kind", "trace", "--params", "ka,ke,sigma"}},
	}}

var gpPoissonPage = galleryPage{name: "gp-poisson", title: "A latent Gaussian process: Poisson counts with cholesky_decompose",
	shows: "a log rate f = L·eta, L the Cholesky factor of gp_exp_quad_cov's covariance, non-centred, against a long reference run and the values the counts were simulated with",
	runs:  []galleryRun{{args: []string{"--sampler", "nuts", "--set", "adapt_delta=0.95", "--iters", "1000"}}},
	about: "The infer block leaves the sampler to auto, which runs NUTS on data this small and escalates to a target acceptance of 0.95 when Stan's default 0.8 leaves divergent transitions; the page names both (`--sampler nuts --set adapt_delta=0.95`), so that it does not depend on the speed of the machine that makes it, and 1,000 draws a chain (temper run's default is 2,000; the page keeps CI's time short). reference.json is a long NUTS run of the same model (4 chains of 25,000 draws at adapt_delta 0.99, seed 7) and records the values the data were simulated with by [simulate.py](simulate.py), alpha = 1 and rho = 1.5.",
	figures: []galleryFigure{
		{file: "pair.svg", caption: "The length scale rho, the marginal sd alpha and the first point's eta against each other: 30 small counts leave rho wide, kept off the smallest and largest length scales by its inv_gamma(5, 5) prior.", args: []string{"--kind", "pair", "--params", "rho,alpha,eta.1"}},
		{file: "trace.svg", caption: "rho and alpha over the iterations, beside their histograms.", args: []string{"--kind", "trace", "--params", "rho,alpha"}},
		{file: "density.svg", caption: "The log rate at the first, the middle and the last point, each chain's density.", args: []string{"--kind", "density", "--params", "f.1,f.15,f.30"}},
		referenceFigure("reference.svg", "", "gp-poisson", "rho,alpha,f.1,f.15,f.30", "rho, alpha and the log rate at three points: this run's density (solid) over the long run's (dashed, a normal of its mean and sd, examples/gp-poisson/reference.json); each panel's title gives both means and sds and Δmean/sd."),
	}}

// lotkaVolterraPage is slow: each gradient is an ODE solve with 12
// sensitivities, and its 4 chains of 2,000 NUTS iterations take minutes.
var lotkaVolterraPage = galleryPage{name: "lotka-volterra", title: "Hares and lynx: the Lotka-Volterra equations solved by ode_rk45 inside NUTS",
	shows: "a predator-prey ODE of four rates and two initial populations, solved with its sensitivities at every gradient, on the Hudson's Bay Company's pelts, against a long run of the same model solved by a Runge-Kutta loop written in the language",
	slow:  true, about: lotkaVolterraAbout, size: lotkaVolterraSize, results: referenceResults,
	reduced: &reducedRuns{args: sameArgs("--chains", "1", "--iters", "50", "--set", "warmup=50", "--init", "{dir}/reference-init.json")},
	figures: []galleryFigure{
		{file: "reference.svg", caption: "The four rates and the initial populations: this run's density (solid) over the Runge-Kutta loop's long run (dashed, a normal of its mean and sd, examples/lotka-volterra/reference.json); each panel's title gives both means and sds and Δmean/sd.", args: []string{"--kind", "reference", "--reference", "{dir}/reference.json", "--params", "alpha,beta,gamma,delta,z_init.1,z_init.2"}},
		{file: "pair.svg", caption: "The hares' growth rate alpha, their death rate per lynx beta and the lynx's death rate gamma against each other, a point per draw.", args: []string{"--kind", "pair", "--params", "alpha,beta,gamma"}},
		{file: "trace.svg", caption: "alpha and gamma over the iterations, beside their histograms.", args: []string{"--kind", "trace", "--params", "alpha,gamma"}},
	}}

const lotkaVolterraAbout = `
Each gradient is one Dormand-Prince solve of the two populations with
their sensitivities to the four rates and the two initial populations,
about 2 ms here ([Ordinary differential
equations](../../docs/language.md#ordinary-differential-equations)), so
that the infer block's 4 chains of NUTS take minutes: this is a slow
page, whose reduced check runs one chain of 50 warm-up iterations and 50
draws started from reference-init.json. reference.json is a long NUTS run
of [rk4.ppl](rk4.ppl), the same model with the ODE solved by a fixed-step
fourth-order Runge-Kutta written as a loop in the model (20 steps a
year), started from reference-init.json (the command is in the file): the
comparison checks the adaptive solver and its sensitivities against a
solver written in the language. The pelts are real data, so there is no
truth to compare with.
`

const lotkaVolterraSize = `
The infer block's run: NUTS, 4 chains of 1,000 draws after the warm-up,
seed 1, from temper's default starting points. The reference: 4 chains
of 2,500 draws of rk4.ppl, seed 7.
`

// referenceFigure is a page's figure of a run (its label; "" the first)
// against the reference.json of the example folder dir: the densities of
// the parameters params (comma-separated) over the reference's.
func referenceFigure(file, run, dir, params, caption string) galleryFigure {
	return galleryFigure{file: file, run: run, caption: caption, args: []string{"--kind", "reference", "--reference", "{root}/" + dir + "/reference.json", "--params", params}}
}
