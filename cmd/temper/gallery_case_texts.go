package main

// caseStudies are the fast pages' questions and answers, by page name.
// An answer is a text/template over the page's first run (gallery_cases.go
// has its methods and functions): no number in it is typed by hand.
var caseStudies = map[string]caseStudy{
	"eight-schools": {
		question: `Eight high schools ran coaching programmes for the SAT's verbal test, each a
randomised experiment, and the Educational Testing Service estimated each
programme's effect y[j] on the test's scale with a standard error sigma[j]
(Rubin 1981, "Estimation in parallel randomized experiments"; the data are
Table 5.2 of Gelman et al., _Bayesian Data Analysis_, in schools.json).
How large is coaching's effect on average, how much do the programmes
differ, and what should one believe of each school's effect, given all
eight?`,
		answer: `{{$y := data "y"}}Coaching helps a little on average: mu, the mean effect, is {{.Mean "mu"}}
points (90% interval {{.Interval "mu"}}; P(mu > 0) {{.Prob "mu" ">" 0 | is}}).
The programmes' spread tau has median {{.Q50 "tau"}} and 90% interval {{.Interval "tau"}}:
eight noisy experiments cannot tell the schools apart, so each school's
effect is pulled toward the mean, the first school's from the {{at $y 1}} points
it measured to {{.Mean "theta.1"}} (90% interval {{.Interval "theta.1"}}). The model
reproduces the data: the posterior predictive p-values P(y_rep > y), the
means of exceeds, run from {{.MeanRange "exceeds"}}: the first school's
large effect is the least typical of its replications, and none is beyond
0.05 or 0.95.`,
	},
	"logistic": {
		question: `A bank judges 1,000 credit applicants good or bad risks from their
account status, credit history, purpose, savings, employment and other
attributes (the UCI Statlog German credit data, Hofmann 1994; from Debian's
weka package, 48 standardised features: examples/data/README.md). Which
attributes move the odds of bad credit, and does temper's default sampler,
run on minibatches, find the posterior that Stan's NUTS finds on the full
data (examples/data/german_credit.reference.json, 4 chains of 10,000
draws)?`,
		answer: `{{with .Against "data/german_credit.reference.json"}}temper's posterior is Stan's: over all {{.Compared}} parameters the largest
difference of the means is {{.MaxZ}} of Stan's sd ({{.WorstZ}}), and the largest
relative difference of the sds {{.MaxSD | pct}} ({{.WorstSD}}), inside posteriordb's
bar of 0.25 sd.{{end}} {{.Excluding "beta" 0}} of the {{.Count "beta"}} coefficients have 90%
intervals that exclude zero; the strongest, {{$s := .Strongest "beta"}}{{$s}}
({{with .Against "data/german_credit.reference.json"}}{{.Feature $s}}{{end}}), has posterior mean {{.Mean $s}} (90% interval
{{.Interval $s}}) on the log odds of bad credit, per unit of the feature
(a standardised attribute's sd, or an indicator's step from 0 to 1).`,
	},
	"radon": {
		question: `Radon, a radioactive gas that enters houses from the ground, was measured
in houses across Minnesota's counties; the measurements are higher in the
basement than on the first floor (Gelman & Hill 2007, chapter 12). How much
lower is a first-floor measurement, and how much do the counties differ
once each is pooled toward the state? The data, radon.json, are simulated
with the survey's shape: 918 houses in 85 counties of 1 to 68 houses.`,
		answer: `A first-floor measurement is lower by b = {{.Mean "b"}} on the log scale (90%
interval {{.Interval "b"}}): about {{.Mean "b" | exp}} times the basement's level. The
state-wide mean intercept mu is {{.Mean "mu"}} ({{.Interval "mu"}}), and the
counties' intercepts, each pooled toward it, run from {{.MeanRange "a"}}.`,
	},
	"dirichlet": {
		question: `A poll asks 1,005 respondents in six regions one question with four
answers. What share of each region gives each answer, and how sure can one
be of the shares of a region of a dozen respondents? The data, poll.json,
are simulated; the prior is Dirichlet(alpha) in every region.`,
		answer: `In the largest region the first answer's share is {{.Mean "theta.1.1"}} (90%
interval {{.Interval "theta.1.1"}}), ahead of the second's by {{.Mean "lead.1"}}
({{.Interval "lead.1"}}; P(lead > 0) {{.Prob "lead.1" ">" 0 | is}}). In the smallest,
region 6, the same share is {{.Mean "theta.6.1"}} with a 90% interval of
{{.Interval "theta.6.1"}}, and its lead of {{.Mean "lead.6"}} ({{.Interval "lead.6"}};
P(lead > 0) {{.Prob "lead.6" ">" 0 | is}}) is far less certain: a dozen answers
pin down little.`,
	},
	"varying-slopes": {
		question: `Subjects kept from sleep have their reaction times measured each day
(the design of Belenky et al. 2003, lme4's sleepstudy). How much slower do
they become per day of deprivation, how much do subjects differ, and do the
subjects who start slower also slow down faster? The data, sleep.json, are
simulated: 18 subjects, 10 days each, reaction times in units of 10 ms.`,
		answer: `Reaction times grow by {{.Mean "slope"}} units of 10 ms a day on average (90%
interval {{.Interval "slope"}}). The correlation of subjects' intercepts and
slopes, Omega.2.1, is {{.Mean "Omega.2.1"}} ({{.Interval "Omega.2.1"}}): the
probability that the subjects who start slower also slow down faster is
P(Omega.2.1 > 0) {{.Prob "Omega.2.1" ">" 0 | is}}.`,
	},
	"roaches": {
		question: `Apartments in a city's public housing had their roaches counted with traps
before and after a pest-control treatment, some in buildings for seniors
(Gelman, Hill & Vehtari, _Regression and Other Stories_, section 15.2).
Does the treatment reduce the number of roaches caught, and by how much?
The data, roaches.json, are simulated with the study's shape: 262
apartments, counts from 0 to the hundreds, many zeros.`,
		answer: `{{$y := data "y"}}The treatment reduces the expected count: the rate ratio exp(beta.2), a
treated apartment's expected count over an untreated one's, is
{{.Mean "rate_ratio"}} (90% interval {{.Interval "rate_ratio"}}), and
P(ratio < 1) {{.Prob "rate_ratio" "<" 1 | is}}. The negative binomial reproduces the
counts, on log(1 + y) and in the zeros: the replications' share of zeros
is {{.MeanOfMeans "zero"}} on average, the data's {{zeros $y}}.`,
	},
	"funnel": {
		question: `Hierarchical models put a scale parameter above the parameters it
scales, and their posteriors form a funnel: wide where the scale is large,
a narrow neck where it is small. Neal's funnel (Neal 2003) is the standard
test: v ~ N(0, 3²) and nine x_i ~ N(0, e^v). Can NUTS sample it, written
centred as the hierarchy reads, and what does writing it non-centred
change? It has no data; the exact marginal of v is known.`,
		answer: `{{$c := run "centred"}}Not centred: NUTS reports {{$c.Divergent}} divergent transitions, the judge
{{$c.Warnings}} warnings, and v's 5% quantile is {{$c.Q5 "v"}} where the exact one is
{{normalQuantile 0 3 0.05}}: the chains cannot enter the neck. Non-centred, the
same sampler has {{.Divergent}} divergent transitions, and v's mean {{.Mean "v"}},
sd {{.SD "v"}} and 5% quantile {{.Q5 "v"}} are those of N(0, 3²): 0, 3 and
{{normalQuantile 0 3 0.05}}.`,
	},
	"cosine2d": {
		question: `A target with a lattice of modes, 25 of them holding most of the mass,
under noisy energies and gradients as minibatches give (seed 000's
"simulations of multi-modal distributions"; no data). A single chain of
small steps stays in the mode it starts in. Does replica exchange over a
ladder of step sizes (DEO*-SGD, 16 replicas) carry the target level
between the modes, and does its ladder reach the swap rate it aims for?`,
		answer: `The target level moves between the modes: its {{.Draws}} kept draws reach
{{.Covered "modes.csv" 0.25 0}} of the 25 central modes (a draw within 0.25 of the
centre), {{.Covered "modes.csv" 0.25 100}} of them with more than 100 (the rule of seed
002's Table 4); the replicas make
{{.Diagnostic "round_trips"}} round trips ({{.Diagnostic "round_trips_per_1000"}} per 1,000
iterations), and the adjacent levels swap at rates from {{.SwapRates}},
against the 0.4 the ladder aims for.`,
	},
	"modes": {
		question: `A posterior with several separated modes defeats a sampler that moves
locally: each chain stays in the mode it finds, and the chains' mixture
weighs the modes by where they started. What does temper do with such a
posterior by default, and are the mode masses it reports right? The
targets are synthetic, with exact answers: a five-mode mixture of known
weights, a double well, a label-switching mixture and a bimodal model
whose evidence log Z is known by quadrature.`,
		answer: `By default the mode search finds the modes and the run becomes
` + "`{{fact \"five modes: sampler\"}}`" + `, whose masses of the five modes are within a total-variation
distance of {{fact "five modes: TV"}} of the weights; NUTS alone stays in one mode a
chain and is warned. The double well's left mode has mass
{{fact "double well: left"}} against {{fact "double well: exact"}} exact, and the power path's
log Z is {{fact "log Z"}} against {{fact "log Z: exact"}}.`,
	},
	"workflow": {
		question: `The roaches of the roaches page again (simulated with the shape of
Gelman, Hill & Vehtari's study, 262 apartments): is a negative binomial
regression of the counts a model one can trust, and is it better than a
Poisson regression? The workflow answers with the prior predictive, the
posterior predictive (the share of zeros, LOO-PIT) and PSIS-LOO.`,
		answer: `The negative binomial is the better model: its elpd_loo is higher by
{{fact "elpd difference"}}, {{fact "elpd difference in SEs"}} standard errors of the difference, it
reproduces the share of zeros and its LOO-PIT is uniform, with
{{fact "negative binomial high k"}} observations above the k̂ threshold against the
Poisson's {{fact "Poisson high k"}}.`,
	},
	"mog25": {
		question: `A mixture of 25 Gaussians on a 5 × 5 grid, each mode separated from its
neighbours by a barrier of about 16 nats (seed 002, Section 5.1; no data).
Does one chain of cyclical SGLD, whose large steps at the start of each
cycle explore and whose small steps sample, find all the modes in the
paper's 50,000 iterations?`,
		answer: `One cyclical chain covers {{.Covered "modes.csv" 0.25 100}} of the 25 modes (more than 100
draws within 0.25 of a centre, the rule of the paper's Table 4) in
{{.Draws}} draws; [Table 4](table4.md) sets ten seeds of it beside SGLD on a
decreasing step.`,
	},
	"warmup": {
		question: `A regression on predictors in their raw units has a posterior whose scales
differ by a factor of a thousand, with correlated slopes; the data,
regression.json, are simulated, and the exact posterior is Gaussian. What
step size and metric does temper's warm-up choose (lr = auto), and what
happens to a run whose step is picked by hand?`,
		answer: `The warm-up chooses a {{fact "lr = auto (the default): metric"}} metric and a step of
{{fact "lr = auto (the default): step size"}}, and its run is within {{fact "lr = auto (the default): max Δmean/sd"}} sd of the exact
means with {{fact "lr = auto (the default): warnings"}} warnings. Each step picked by hand fails, and says
so: 1e-5 with {{fact "lr = 1e-5 by hand: warnings"}} warnings, 1e-7 with
{{fact "lr = 1e-7 by hand: warnings"}}, and 2.5e-7 on every row with
{{fact "lr = 2.5e-7 by hand, every row: warnings"}}.`,
	},
	"time-series": {
		question: `Three series in which each step depends on the one before, simulated so
that the truth is known: 500 returns whose variance carries from one step
to the next (GARCH(1,1), Bollerslev 1986), 300 values whose one-step
errors are a recursion (ARMA(1,1)), and 150 observations from two hidden
states that persist (a two-state Gaussian hidden Markov model). Each
likelihood is a loop over time with a local variable carried from step
to step. Written so, does NUTS find each model's posterior, that of a
long reference run, and where does the truth lie in it?`,
		answer: `{{$a := run "ARMA(1,1)"}}{{$h := run "HMM"}}{{$g := .Against "garch/reference.json"}}{{$ga := $a.Against "arma/reference.json"}}{{$gh := $h.Against "hmm/reference.json"}}Yes: each loop, unrolled, gives NUTS its model's posterior. The runs'
means are within {{$g.MaxZ}} (GARCH, {{$g.WorstZ}} the farthest), {{$ga.MaxZ}} (ARMA, {{$ga.WorstZ}})
and {{$gh.MaxZ}} (HMM, {{$gh.WorstZ}}) reference sds of the long runs', their sds within
{{$g.MaxSD | pct}}, {{$ga.MaxSD | pct}} and {{$gh.MaxSD | pct}}, with {{.Divergent}}, {{$a.Divergent}} and {{$h.Divergent}} divergent transitions.
What the data tell differs. The 500 returns pin down GARCH's alpha,
{{.Mean "alpha"}} (90% interval {{.Interval "alpha"}}), but leave omega and beta on their
ridge: beta's 90% interval is {{.Interval "beta"}}, and the truth lies up to
{{$g.TruthZ}} posterior sds from the posterior mean ({{$g.WorstTruth}}). ARMA's phi is
{{$a.Mean "phi"}} ({{$a.Interval "phi"}}) and theta {{$a.Mean "theta"}} ({{$a.Interval "theta"}}), the truth within
{{$ga.TruthZ}} sds ({{$ga.WorstTruth}} the farthest). The hidden chain stays in state 1
with probability {{$h.Mean "Gamma.1.1"}} ({{$h.Interval "Gamma.1.1"}}) and in state 2 with
{{$h.Mean "Gamma.2.2"}} ({{$h.Interval "Gamma.2.2"}}), the truth within {{$gh.TruthZ}} sds ({{$gh.WorstTruth}} the
farthest).`,
	},
	"mixture": {
		question: `Two hundred measurements come from two populations mixed together, which
population each came from unrecorded (simulated, so that the truth is
known: simulate_test.go). What share comes from each population, and what
are their means and spreads? Each measurement's population is a discrete
unknown that HMC cannot sample, so the model sums it out with log_mix:
does NUTS on the summed-out model find the posterior of a long reference
run?`,
		answer: `{{$r := .Against "mixture/reference.json"}}Component 1, the lower, holds a share theta = {{.Mean "theta"}} of the points
(90% interval {{.Interval "theta"}}), with mean {{.Mean "mu.1"}} ({{.Interval "mu.1"}}) and sd
{{.Mean "sigma.1"}} ({{.Interval "sigma.1"}}); component 2 has mean {{.Mean "mu.2"}} ({{.Interval "mu.2"}}) and sd
{{.Mean "sigma.2"}} ({{.Interval "sigma.2"}}). The run is within {{$r.MaxZ}} reference sds of the long
run's means ({{$r.WorstZ}} the farthest) and {{$r.MaxSD | pct}} of its sds ({{$r.WorstSD}}), with
{{.Divergent}} divergent transitions and R-hat at most {{printf "%.3f" .MaxRhat}}. The truth lies within
{{$r.TruthZ}} posterior sds of the posterior means, {{$r.WorstTruth}} the farthest: the wide
component overlaps the narrow one, and its spread is the least certain.`,
	},
	"pk-ode": {
		question: `An oral dose of a drug is taken at time 0 and its concentration in the
blood measured 12 times over the next 24 hours (simulated, so that the
truth is known: simulate_test.go). How fast is the drug absorbed (ka) and
eliminated (ke)? The model states the body as an ODE and solves it inside
the sampler: does the solver's gradient give NUTS the posterior that the
ODE's closed-form solution gives (a long run of closed_form.ppl)?`,
		answer: `{{$r := .Against "pk-ode/reference.json"}}The drug is eliminated at ke = {{.Mean "ke"}} per hour (90% interval {{.Interval "ke"}})
and absorbed at ka = {{.Mean "ka"}} per hour ({{.Interval "ka"}}), the less certain: only
the first hours' rise informs it. The ODE's run is within {{$r.MaxZ}} reference sds of
the closed form's means ({{$r.WorstZ}} the farthest) and {{$r.MaxSD | pct}} of its sds
({{$r.WorstSD}}), with {{.Divergent}} divergent transitions, and the truth lies within
{{$r.TruthZ}} posterior sds of the posterior means ({{$r.WorstTruth}} the farthest). Warnings
from the judge: {{.Warnings}} (quoted under the results).`,
	},
	"gp-poisson": {
		question: `Thirty counts at points along a line, their log rate an unknown smooth
function of the position (simulated by simulate.py with the Gaussian
process's marginal sd alpha = 1 and length scale rho = 1.5). With a
Gaussian process prior on the log rate, written non-centred through the
Cholesky factor of its covariance, how smooth and how large is the
function, and does the posterior cover the values the counts were
simulated with?`,
		answer: `The length scale rho has median {{.Q50 "rho"}} and 90% interval {{.Interval "rho"}}, with
P(rho < 1.5) {{.Prob "rho" "<" 1.5 | is}}; the marginal sd alpha has median {{.Q50 "alpha"}} and 90%
interval {{.Interval "alpha"}}, with P(alpha < 1) {{.Prob "alpha" "<" 1 | is}}: the values the counts were
simulated with lie inside both intervals. Thirty small counts say little
of the length scale, whose interval spans a factor of several.
{{with .Against "gp-poisson/reference.json"}}Over all {{.Compared}} parameters and log rates the run is within {{.MaxZ}}
reference sds of the long run's means ({{.WorstZ}} the farthest) and {{.MaxSD | pct}} of its
sds ({{.WorstSD}}).{{end}} NUTS ran
with {{.Divergent}} divergent transitions, R-hat at most {{printf "%.3f" .MaxRhat}} and a smallest bulk ESS
of {{.MinESS}}.`,
	},
}
