package infer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A named sampler is a set of default settings over one builder: every
// preset is a composition of a dynamics, an exchange test, a swap scheme and
// a ladder (DESIGN.md section 4), and any setting can be overridden, the
// parts included (dynamics=hamiltonian, exchange=metropolis, ...).
type preset struct {
	doc      string
	settings map[string]string
}

var presets = map[string]preset{
	"sgd": {"stochastic gradient descent (Langevin dynamics at temperature 0)",
		map[string]string{"lr": "1e-3", "temperature": "0"}},
	"msgd": {"SGD with momentum 1 - friction (Hamiltonian dynamics at temperature 0)",
		map[string]string{"dynamics": "hamiltonian", "lr": "1e-3", "temperature": "0"}},
	"sgld": {"stochastic gradient Langevin dynamics (Welling & Teh 2011)",
		map[string]string{}},
	"sghmc": {"stochastic gradient Hamiltonian Monte Carlo (Chen, Fox & Guestrin 2014)",
		map[string]string{"dynamics": "hamiltonian"}},
	"sgnht": {"stochastic gradient Nosé-Hoover thermostat with background noise c (seed 001, Eq. 19-20; lr is ε = Δt²)",
		map[string]string{"dynamics": "nose_hoover"}},
	"adaptive_langevin": {"adaptive Langevin: a thermostat with friction-noise pair c (Jones & Leimkuhler 2011; seed 001, Eq. 3)",
		map[string]string{"dynamics": "adaptive_langevin"}},
	// Cyclical SG-MCMC (seed 002): the cosine step size of Eq. 1, each cycle
	// an exploration stage at temperature 0 and a sampling stage (cyclical.go).
	"cyclical_sgld": {"cyclical SGLD: cosine step-size cycles, SGD exploration then SGLD sampling (seed 002, Eq. 1, Algorithm 1)",
		map[string]string{"schedule": "cyclical"}},
	"cyclical_sghmc": {"cyclical SGHMC: cosine step-size cycles, momentum SGD exploration then SGHMC sampling (seed 002, Algorithm 1)",
		map[string]string{"dynamics": "hamiltonian", "schedule": "cyclical"}},
	"snapshot": {"Snapshot ensemble: SGD on the cosine cycles, one draw at each cycle's end (Huang et al. 2017, seed 002's baseline)",
		map[string]string{"schedule": "cyclical", "temperature": "0", "explore_fraction": "0", "samples_per_cycle": "1", "lr": "1e-3"}},
	"reld": {"two-temperature replica exchange Langevin dynamics, swaps at rate a·η·S (seed 003, Eq. 3.15-3.16)",
		map[string]string{"exchange": "metropolis", "correction": "none", "ladder": "temperature", "scheme": "adj", "replicas": "2"}},
	"resgld": {"replica exchange SGLD with the variance-corrected swap (seed 000, Eq. 15)",
		map[string]string{"exchange": "metropolis", "ladder": "temperature", "replicas": "2"}},
	"m_resgld": {"multi-variance reSGLD: two energy estimators weighted a1, a2 in the swap, the hot level moving on the second (seed 004)",
		map[string]string{"exchange": "multi_variance", "ladder": "temperature", "replicas": "2"}},
	"f_resgld": {"fast-tempering reSGLD: injected noise corrected by the gradient noise (seed 004)",
		map[string]string{"dynamics": "fast_langevin", "exchange": "metropolis", "ladder": "temperature", "replicas": "2"}},
	"deo_sgd": {"non-reversible parallel tempering with SGD exploration (DEO*-SGD, seed 000, Algorithm 1)",
		map[string]string{"exchange": "deterministic", "ladder": "adaptive_lr", "window": "auto", "replicas": "8"}},
	"deo_msgd": {"DEO*-SGD with momentum SGD exploration kernels (seed 000, Algorithm 1)",
		map[string]string{"dynamics": "hamiltonian", "exchange": "deterministic", "ladder": "adaptive_lr", "window": "auto", "replicas": "8"}},
	"deo_psgd": {"DEO*-SGD with preconditioned SGD exploration kernels (seed 000, Algorithm 1)",
		map[string]string{"dynamics": "preconditioned", "exchange": "deterministic", "ladder": "adaptive_lr", "window": "auto", "replicas": "8"}},
	// RENHD (seed 001): Nosé-Hoover replicas on the geometric ladder of
	// Eq. 21, trajectories of N = every steps started afresh (Algorithm 2),
	// then the noise-aware Barker swaps of Algorithm 1 between random
	// adjacent pairs (SEO: the even or the odd pairs, by a coin).
	"renhd": {"replica-exchange Nosé-Hoover dynamics with the noise-aware Barker swap (seed 001, Algorithms 1-2)",
		map[string]string{"dynamics": "nose_hoover", "exchange": "barker", "ladder": "temperature", "tau": "1.5", "replicas": "7", "scheme": "seo", "every": "10", "restart": "true"}},
	// The exact full-batch samplers (exact.go), references for the
	// stochastic-gradient dynamics: Stan's warm-up tunes their step size
	// and metric.
	"nuts": {"the No-U-Turn sampler: multinomial, generalised U-turn criterion, Stan's warm-up (Hoffman & Gelman 2014; Betancourt 2017)",
		map[string]string{"dynamics": "nuts"}},
	"hmc": {"Hamiltonian Monte Carlo with a fixed number of leapfrog steps and a Metropolis correction, Stan's warm-up (Neal 2011)",
		map[string]string{"dynamics": "hmc"}},
	"mala": {"Metropolis-adjusted Langevin: HMC with one leapfrog step, the exact limit of SGLD (Roberts & Tweedie 1996)",
		map[string]string{"dynamics": "mala", "adapt_delta": "0.574"}},
	"pt": {"parallel tempering: NUTS on every level of a temperature ladder, exact swaps in the non-reversible even-odd scheme, the levels tuned in the warm-up to equal rejection (Syed et al. 2021); the reference for posteriors with separated modes",
		map[string]string{"dynamics": "nuts", "replicas": "auto", "t_max": "100"}},
	"renhd_reld": {"RELD, seed 001's baseline: RENHD with the thermostat frozen at 0.999 + c/T (Section 4.2)",
		map[string]string{"dynamics": "nose_hoover", "exchange": "barker", "ladder": "temperature", "tau": "1.5", "replicas": "7", "scheme": "seo", "every": "10", "restart": "true", "freeze": "0.999"}},
}

// setting is one named option: its default, what it means, and whether it
// applies to a composition.
type setting struct {
	def     string
	doc     string
	applies func(s map[string]string) bool
}

func always(map[string]string) bool { return true }
func is(key string, values ...string) func(map[string]string) bool {
	return func(s map[string]string) bool { return slices.Contains(values, s[key]) }
}
func exchanging(s map[string]string) bool { return s["exchange"] != "none" }
func temperatureLadder(s map[string]string) bool {
	return exchanging(s) && strings.HasSuffix(s["ladder"], "temperature")
}
func lrLadder(s map[string]string) bool { return exchanging(s) && strings.HasSuffix(s["ladder"], "lr") }

// autoLevelsStart is the ladder replicas = auto starts with.
const autoLevelsStart = 8

// exactLadder is parallel tempering with an exact kernel (exactpt.go).
func exactLadder(s map[string]string) bool { return exact(s) && s["replicas"] != "1" }

// powerPathApplies: the ladders that can run the power path.
func powerPathApplies(s map[string]string) bool {
	return exactLadder(s) || exchanging(s) && s["ladder"] == "temperature" && s["exchange"] == "metropolis"
}
func adapting(s map[string]string) bool {
	return exchanging(s) && (strings.HasPrefix(s["ladder"], "adaptive") || s["buffer"] == "auto" && s["exchange"] == "deterministic" || s["correction"] == "running" && s["exchange"] != "deterministic")
}

// tuning is a composition with parts that learn: an adaptive ladder or an
// adaptive correction buffer, which the setting adapt governs.
func tuning(s map[string]string) bool {
	return exchanging(s) && (strings.HasPrefix(s["ladder"], "adaptive") || s["buffer"] == "auto" && s["exchange"] == "deterministic")
}

// byHand is a ladder whose levels are given (ladder_levels), so its ends
// are too.
func byHand(s map[string]string) bool { return s["ladder_levels"] != "none" }

// exact is a composition of an exact full-batch kernel (nuts, hmc, mala):
// none of the stochastic-gradient parts apply to it.
func exact(s map[string]string) bool { return slices.Contains(exactDynamics, s["dynamics"]) }
func sg(s map[string]string) bool    { return !exact(s) }

var exactDynamics = []string{"nuts", "hmc", "mala"}

func thermostat(s map[string]string) bool {
	return s["dynamics"] == "nose_hoover" || s["dynamics"] == "adaptive_langevin"
}

func cyclicalSchedule(s map[string]string) bool {
	return sg(s) && !lrLadder(s) && s["schedule"] == "cyclical"
}
func polynomialSchedule(s map[string]string) bool {
	return sg(s) && !lrLadder(s) && s["schedule"] != "cyclical"
}

var settings = map[string]setting{
	"dynamics":            {"langevin", "langevin, hamiltonian, preconditioned, fast_langevin, nose_hoover or adaptive_langevin; or an exact full-batch kernel: nuts, hmc or mala", always},
	"metric":              {"auto", "the exact samplers' metric (inverse mass matrix), learnt in Stan's warm-up windows: diag, dense, unit (the identity, not adapted), or auto: dense where the warm-up's draws are correlated enough that a dense metric pays (up to 250 parameters), else diag", exact},
	"max_depth":           {"10", "NUTS's largest tree depth: at most 2^max_depth leapfrog steps a transition", is("dynamics", "nuts")},
	"steps":               {"10", "leapfrog steps L of each HMC transition", is("dynamics", "hmc")},
	"jitter":              {"0.2", "each HMC transition's step size is drawn uniform in ε·(1 ± jitter), which breaks the periodic orbits of a fixed trajectory length that would otherwise leave HMC non-ergodic on near-Gaussian posteriors (Neal 2011, Section 5.4.2.2; Stan's stepsize_jitter), in [0, 1)", is("dynamics", "hmc")},
	"adapt_delta":         {"0.8", "the acceptance statistic the warm-up's dual averaging aims the step size at (Stan's 0.8; mala's 0.574, Roberts & Rosenthal 1998); raise it toward 1 against divergences", func(s map[string]string) bool { return exact(s) && s["lr"] == "auto" }},
	"warmup":              {"1000", "iterations of the exact samplers' warm-up (Stan's num_warmup), before burn and iters; not kept", exact},
	"init_buffer":         {"75", "warm-up iterations that adapt only the step size before the metric's first window (Stan's init_buffer)", exact},
	"adapt_window":        {"25", "the metric's first warm-up window; each next one is twice as long (Stan's window)", exact},
	"term_buffer":         {"50", "warm-up iterations at the end that adapt only the step size, with the last metric (Stan's term_buffer)", exact},
	"c":                   {"0.1", "background noise c = CΔt of the thermostat (seed 001, Eq. 20)", thermostat},
	"freeze":              {"none", "hold the thermostat at this offset + c/T instead of adapting it (seed 001's RELD: 0.999), or none", thermostat},
	"restart":             {"false", "start every trajectory between exchange rounds afresh: redraw the momenta, reset the thermostats (seed 001, Algorithm 2)", func(s map[string]string) bool { return exchanging(s) && thermostat(s) }},
	"lr":                  {"auto", "step size η (of every level on a temperature ladder; η0 of a cyclical schedule), or auto: chosen with the metric by the warm-up from the model and the data, for the target level (the exact samplers: the leapfrog step, auto: Stan's dual averaging)", func(s map[string]string) bool { return !lrLadder(s) }},
	"b":                   {"1", "offset b of the decaying step size lr·(b + k)^-gamma", polynomialSchedule},
	"gamma":               {"0", "decay exponent of the step size (0: constant)", polynomialSchedule},
	"schedule":            {"polynomial", "polynomial (lr·(b + k)^-gamma) or cyclical (seed 002, Eq. 1)", func(s map[string]string) bool { return sg(s) && !lrLadder(s) }},
	"cycles":              {"4", "number of cycles M of the cyclical step size (seed 002, Eq. 1)", cyclicalSchedule},
	"explore_fraction":    {"0.25", "proportion β of each cycle explored at temperature 0, in [0, 1) (seed 002, Algorithm 1)", cyclicalSchedule},
	"samples_per_cycle":   {"0", "draws kept per cycle, spread over its sampling stage up to its end (0: every iteration, thinned)", cyclicalSchedule},
	"schedule_iterations": {"auto", "K of Eq. 1, the iterations the cycles share (auto: the run's burn + iters)", cyclicalSchedule},
	"temperature":         {"1", "temperature T (on a step-size ladder: of the exploitation level τ^(1))", func(s map[string]string) bool { return sg(s) && !temperatureLadder(s) }},
	"friction":            {"0.1", "momentum decay α per step, in (0, 1]", is("dynamics", "hamiltonian")},
	"rho":                 {"0.99", "decay of the squared-gradient average (preconditioned SGD)", is("dynamics", "preconditioned")},
	"eps":                 {"1e-5", "damping λ of the preconditioner 1/(λ + √V)", is("dynamics", "preconditioned")},
	"grad_var":            {"auto", "gradient-noise variance s² per coordinate, or auto for a running estimate", is("dynamics", "fast_langevin")},
	"exchange":            {"none", "none, metropolis, multi_variance, deterministic or barker", always},
	"sigma_star2":         {"0.2", "variance threshold σ*² of the Barker test: the exchange minibatch grows until var[ΔẼ] is below it (seed 001, Eq. 17)", is("exchange", "barker")},
	"lambda":              {"10", "bandwidth λ of the compensation distribution's kernel (seed 001, Eq. 14)", is("exchange", "barker")},
	"terms":               {"3", "series terms of the compensation distribution (seed 001, Eq. 9)", is("exchange", "barker")},
	"exchange_batch":      {"auto", "rows per chunk of the Barker test's exchange minibatch |S|_ex (auto: the run's batch)", is("exchange", "barker")},
	"replicas":            {"1", "ladder size P (the CLI's --replicas); for the exact samplers' ladders (pt) also auto: 8 levels, more added in the warm-up up to about 2Λ + 1 for the communication barrier Λ measured", always},
	"correction":          {"model", "variance correction of the swap: none, model, running, or a fixed σ²", is("exchange", "metropolis", "multi_variance")},
	"intensity":           {"auto", "swap intensity a: swap with probability a·η·S (auto: a = 1/η, probability S)", is("exchange", "metropolis", "multi_variance")},
	"a1":                  {"0.5", "weight of the first energy estimator (m-reSGLD)", is("exchange", "multi_variance")},
	"a2":                  {"0.5", "weight of the second energy estimator (m-reSGLD)", is("exchange", "multi_variance")},
	"batch2":              {"0", "minibatch of the second estimator, on which the hot levels move (0: the run's batch)", is("exchange", "multi_variance")},
	"buffer":              {"auto", "correction buffer C of the deterministic swap, or auto to adapt it (Eq. 12)", is("exchange", "deterministic")},
	"scheme":              {"deo", "adj, seo or deo (which pairs are tried when)", exchanging},
	"window":              {"1", "DEO window W, or auto for W* (Theorem 1)", func(s map[string]string) bool { return exchanging(s) && s["scheme"] == "deo" }},
	"swap_rate":           {"0.4", "target swap rate S (for window=auto, adaptive ladders and buffers)", func(s map[string]string) bool { return adapting(s) || exchanging(s) && s["window"] == "auto" }},
	"ladder":              {"temperature", "temperature, lr, adaptive_temperature or adaptive_lr (seed 000's adaptation toward the swap rate S), or tuned_temperature or tuned_lr (the levels moved to equal rejection in rounds of doubling length in the first half of burn-in, Syed et al. 2021, the ends fixed)", exchanging},
	"t_min":               {"1", "temperature of the target level τ^(1)", func(s map[string]string) bool { return temperatureLadder(s) && !byHand(s) && s["path"] != "power" }},
	"t_max": {"10", "temperature of the hottest level τ^(P) (pt: 100; its levels between move in the warm-up to equal rejection)", func(s map[string]string) bool {
		return temperatureLadder(s) && s["tau"] == "none" && !byHand(s) && s["path"] != "power" || exactLadder(s) && s["path"] != "power"
	}},
	"path":                {"temperature", "what the levels temper: temperature (the whole energy, the hottest level at t_max) or power (the likelihood alone, from the posterior down to the prior at β = 0, which gives log Z; the prior must be proper); power applies to pt and to the temperature ladders with the Metropolis swap (resgld, reld, f_resgld), where replicas then defaults to 16", powerPathApplies},
	"tau":                 {"none", "ratio τ > 1 of a geometric temperature ladder T_j = t_min·τ^j (seed 001, Eq. 21), or none to end it at t_max", func(s map[string]string) bool { return temperatureLadder(s) && !byHand(s) && s["path"] != "power" }},
	"lr_min":              {"auto", "step size of the target level η^(1), or auto (with lr_max auto): the warm-up's tuned step", func(s map[string]string) bool { return lrLadder(s) && !byHand(s) }},
	"lr_max":              {"auto", "step size of the most exploring level η^(P), or auto (with lr_min auto): ten times the tuned step, half SGD's stability bound", func(s map[string]string) bool { return lrLadder(s) && !byHand(s) }},
	"ladder_levels":       {"none", "the ladder's levels by hand, increasing from the target: temperatures or step sizes ([1, 2, 4, 8]); replicas is their number. An adaptive ladder starts there and keeps the ends", exchanging},
	"gradient":            {"auto", "the minibatch gradient: plain, control_variate (SGLD-CV, centred at the warm-up's mode; needs lr = auto) or auto (the control variate where the plain gradient's noise would cap the tuned step tenfold)", func(s map[string]string) bool { return sg(s) && !exchanging(s) }},
	"cv_refresh":          {"0", "with the control variate: move its centres to the chains every this many iterations, one pass over the data each (SVRG-style; 0: keep the warm-up's mode)", func(s map[string]string) bool { return sg(s) && !exchanging(s) && s["gradient"] != "plain" }},
	"adapt":               {"warmup", "when the adaptive ladder and buffer learn: warmup (during burn-in, then frozen; throughout a run without burn-in, with a warning), always or never", tuning},
	"explore_temperature": {"0", "temperature of the levels above the target on a step-size ladder (0: SGD)", lrLadder},
	"adapt_rate":          {"0.5", "stochastic-approximation step γ_k = adapt_rate·(k + 1)^-adapt_decay", adapting},
	"adapt_decay":         {"0.5", "decay exponent of γ_k", adapting},
	"every":               {"1", "iterations between exchange rounds", exchanging},
}

// SamplerNames lists the named samplers.
func SamplerNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SamplerDoc is a one-line description of a named sampler, its papers
// named as readers know them.
func SamplerDoc(name string) string { return namePapers(presets[name].doc) }

// seedPapers name the five source papers, which the code's comments call
// seed 000 ... seed 004, as a user knows them.
var seedPapers = strings.NewReplacer(
	"seed 000", "Deng et al. 2023",
	"seed 001", "Luo et al. 2020",
	"seed 002", "Zhang et al. 2020",
	"seed 003", "Chen et al. 2019",
	"seed 004", "the reSGLD slides",
)

// namePapers is doc with the seed papers named.
func namePapers(doc string) string { return seedPapers.Replace(doc) }

// SettingError is a bad sampler setting; Key names it so a caller can point
// at where it was written.
type SettingError struct {
	Sampler, Key, Msg string
}

func (e *SettingError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("sampler %s: %s", e.Sampler, e.Msg)
	}
	return fmt.Sprintf("sampler %s: %s: %s", e.Sampler, e.Key, e.Msg)
}

// SamplerOptions returns the settings that apply to the named sampler with
// the given overrides, each at its value (an override or the default). It
// reports an unknown sampler and a setting that does not apply.
func SamplerOptions(name string, overrides map[string]string) (map[string]string, error) {
	p, ok := presets[name]
	if !ok {
		return nil, unknownSampler(name)
	}
	all := make(map[string]string, len(settings))
	for k, s := range settings {
		all[k] = s.def
	}
	for k, v := range p.settings {
		all[k] = v
	}
	for k, v := range overrides {
		if _, known := settings[k]; !known {
			return nil, &SettingError{name, k, "no such setting (settings: " + strings.Join(SettingNames(), ", ") + ")"}
		}
		all[k] = v
	}
	applied := make(map[string]string)
	for k, v := range all {
		if settings[k].applies(all) {
			applied[k] = v
		}
	}
	for k := range overrides {
		if _, ok := applied[k]; !ok && byHand(all) && slices.Contains([]string{"t_min", "t_max", "tau", "lr_min", "lr_max"}, k) {
			return nil, &SettingError{name, k, "ladder_levels gives the ladder's levels, its ends included; leave " + k + " out"}
		}
		if _, ok := applied[k]; !ok {
			return nil, &SettingError{name, k, "does not apply to this composition (it applies: " + strings.Join(sortedKeys(applied), ", ") + ")"}
		}
	}
	return applied, nil
}

// SettingDoc describes a setting.
func SettingDoc(key string) string { return namePapers(settings[key].doc) }

// SettingNames lists every sampler setting.
func SettingNames() []string {
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// NewSampler builds a named sampler with settings overriding its defaults
// (values as written: "0.01", "auto", "deo"), and rejects unknown settings,
// settings that do not apply, and impossible values with a *SettingError.
func NewSampler(name string, overrides map[string]string) (Sampler, error) {
	if p, ok := presets[name]; ok && overrides["path"] == "power" && overrides["replicas"] == "" && p.settings["replicas"] != "auto" {
		// Two levels, the seeds' default, make one stepping stone from the
		// prior to the posterior: far too few for log Z.
		overrides = maps.Clone(overrides)
		overrides["replicas"] = strconv.Itoa(sgPowerLevels)
	}
	if levels, ok := overrides["ladder_levels"]; ok && overrides["replicas"] == "" {
		// The levels given by hand say how many there are.
		if values, err := parseLevels(levels); err == nil {
			overrides = maps.Clone(overrides)
			overrides["replicas"] = strconv.Itoa(len(values))
		}
	}
	o, err := SamplerOptions(name, overrides)
	if err != nil {
		return Sampler{}, err
	}
	b := builder{name: name, o: o}
	s := b.build()
	if b.err != nil {
		return Sampler{}, b.err
	}
	s.Name = name
	return s, nil
}

// builder reads settings, keeping the first error.
type builder struct {
	name       string
	o          map[string]string
	err        error
	autoLadder bool // lr_min and lr_max are auto
}

// autoLadderSpan is lr_max/lr_min of a tuned step-size ladder: with the
// tuned step at η·λ_max = 0.1, its top is at 1, half the stability bound
// 2 of SGD, its exploration kernel.
const autoLadderSpan = 10

func (b *builder) fail(key, format string, args ...any) {
	if b.err == nil {
		b.err = &SettingError{b.name, key, fmt.Sprintf(format, args...)}
	}
}

func (b *builder) num(key string) float64 {
	v, err := strconv.ParseFloat(b.o[key], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		b.fail(key, "want a finite number, got %q", b.o[key])
		return 0
	}
	return v
}

func (b *builder) positive(key string) float64 {
	v := b.num(key)
	if b.err == nil && v <= 0 {
		b.fail(key, "must be positive, got %g", v)
	}
	return v
}

func (b *builder) nonNegative(key string) float64 {
	v := b.num(key)
	if b.err == nil && v < 0 {
		b.fail(key, "must be ≥ 0, got %g", v)
	}
	return v
}

func (b *builder) integer(key string, min int) int {
	v := b.num(key)
	if b.err == nil && (v != math.Trunc(v) || v < float64(min) || v > 1<<30) {
		b.fail(key, "must be a whole number ≥ %d, got %s", min, b.o[key])
	}
	return int(v)
}

func (b *builder) oneOf(key string, values ...string) string {
	v := b.o[key]
	if !slices.Contains(values, v) {
		b.fail(key, "want one of %s, got %q", strings.Join(values, ", "), v)
	}
	return v
}

func (b *builder) build() Sampler {
	var s Sampler
	if exact(b.o) {
		return b.exact(s)
	}
	s.Replicas = b.integer("replicas", 1)
	exchange := b.oneOf("exchange", "none", "metropolis", "multi_variance", "deterministic", "barker")
	ladder := b.o["ladder"]
	if exchange != "none" {
		ladder = b.oneOf("ladder", "temperature", "lr", "adaptive_temperature", "adaptive_lr", "tuned_temperature", "tuned_lr")
	}
	if b.o["lr"] == "auto" {
		// Tuned by the warm-up (warmup.go): the schedules below are built
		// for a unit step and scaled to the tuned one.
		s.AutoStep = true
		b.o = maps.Clone(b.o)
		b.o["lr"] = "1"
	}
	if _, ok := b.o["lr"]; ok && b.o["schedule"] == "cyclical" {
		s.Schedule = b.cyclical()
	} else if ok {
		b.oneOf("schedule", "polynomial", "cyclical")
		lr, gamma := b.positive("lr"), b.nonNegative("gamma")
		if gamma > 0 {
			s.Schedule = Polynomial{A: lr, B: b.positive("b"), Gamma: gamma}
		} else {
			s.Schedule = Constant(lr)
		}
	}
	if _, ok := b.o["temperature"]; ok {
		s.Temperature = b.nonNegative("temperature")
	}
	s.Dynamics = b.dynamics()
	if g, ok := b.o["gradient"]; ok {
		s.Gradient = map[string]GradientKind{"auto": AutoGradient, "plain": PlainGradient, "control_variate": ControlVariateGradient}[b.oneOf("gradient", "auto", "plain", "control_variate")]
		if b.err == nil && g == "control_variate" && !s.AutoStep {
			b.fail("gradient", "the control variate is centred at the warm-up's mode: leave lr to auto")
		}
	}
	if _, ok := b.o["cv_refresh"]; ok {
		s.CVRefresh = b.integer("cv_refresh", 0)
	}
	if exchange == "none" {
		if b.err == nil && s.Replicas > 1 {
			b.fail("replicas", "%d replicas need an exchange test (set exchange, or use resgld or deo_sgd)", s.Replicas)
		}
		return s
	}
	if _, ok := s.Schedule.(Cyclical); ok {
		b.fail("schedule", "a cyclical schedule moves one replica per chain; it does not combine with exchange=%s", exchange)
	}
	if b.err == nil && s.Replicas < 2 {
		b.fail("replicas", "replica exchange needs at least 2 replicas, got %d", s.Replicas)
	}
	swapRate := 0.0
	if _, ok := b.o["swap_rate"]; ok {
		swapRate = b.num("swap_rate")
		if b.err == nil && !(swapRate > 0 && swapRate < 1) {
			b.fail("swap_rate", "the target swap rate S must lie in (0, 1), got %g", swapRate)
		}
	}
	var adapt Schedule
	if _, ok := b.o["adapt_rate"]; ok {
		adapt = Polynomial{A: b.positive("adapt_rate"), B: 1, Gamma: b.nonNegative("adapt_decay")}
	}
	s.Every = b.integer("every", 1)
	s.Ladder = b.ladder(ladder, swapRate, adapt)
	if b.autoLadder {
		s.AutoStep = true
	}
	s.Exchange = b.exchange(exchange, swapRate, adapt)
	if p, ok := b.o["path"]; ok {
		switch s.Path = LadderPath(p); s.Path {
		case PathTemperature:
		case PathPower:
			if byHand(b.o) {
				b.fail("ladder_levels", "path = power places its levels itself, from β = 1 down to the prior at β = 0; leave ladder_levels out")
			}
		default:
			b.fail("path", "temperature or power, got %q", p)
		}
	}
	if _, ok := b.o["restart"]; ok {
		s.Restart = b.oneOf("restart", "true", "false") == "true"
	}
	s.Scheme = b.scheme(s.Replicas, swapRate)
	if _, ok := b.o["adapt"]; ok {
		s.Adapt = map[string]AdaptMode{"warmup": AdaptWarmup, "always": AdaptAlways, "never": AdaptNever}[b.oneOf("adapt", "warmup", "always", "never")]
	}
	if b.err == nil && exchange != "deterministic" && s.Ladder.Kind == StepSizeLadder && (s.Ladder.Exploit == 0 || s.Ladder.Explore == 0) {
		b.fail("exchange", "the %s test needs positive temperatures on every level; a step-size ladder with SGD levels (temperature 0) needs exchange=deterministic", exchange)
	}
	return s
}

// exact builds an exact full-batch kernel's settings (exact.go).
func (b *builder) exact(s Sampler) Sampler {
	x := &Exact{Kind: map[string]ExactKind{"nuts": NUTS, "hmc": HMC, "mala": MALA}[b.o["dynamics"]],
		Metric:     map[string]MetricKind{"diag": DiagMetric, "dense": DenseMetric, "unit": UnitMetric, "auto": AutoMetric}[b.oneOf("metric", "diag", "dense", "unit", "auto")],
		Warmup:     b.integer("warmup", 0),
		InitBuffer: b.integer("init_buffer", 0), Window: b.integer("adapt_window", 1), TermBuffer: b.integer("term_buffer", 0)}
	if b.o["lr"] != "auto" {
		x.StepSize = b.positive("lr")
	} else {
		x.Delta = b.num("adapt_delta")
		if b.err == nil && !(x.Delta > 0 && x.Delta < 1) {
			b.fail("adapt_delta", "the target acceptance must lie in (0, 1), got %g", x.Delta)
		}
	}
	switch x.Kind {
	case NUTS:
		x.MaxDepth = b.integer("max_depth", 1)
		if b.err == nil && x.MaxDepth > maxTreeDepth {
			b.fail("max_depth", "at most %d (2^%d leapfrog steps a transition), got %d", maxTreeDepth, maxTreeDepth, x.MaxDepth)
		}
	case HMC:
		x.Steps = b.integer("steps", 1)
		x.Jitter = b.num("jitter")
		if b.err == nil && !(x.Jitter >= 0 && x.Jitter < 1) {
			b.fail("jitter", "must lie in [0, 1), got %g", x.Jitter)
		}
	case MALA:
		x.Steps = 1
	}
	if b.o["replicas"] == "auto" {
		s.Replicas, x.AutoLevels = autoLevelsStart, true
	} else {
		s.Replicas = b.integer("replicas", 1)
	}
	if s.Replicas > 1 {
		x.Levels, x.TuneLadder, x.Path = s.Replicas, true, LadderPath(b.o["path"])
		switch x.Path {
		case PathTemperature:
			x.TMax = b.num("t_max")
			if b.err == nil && !(x.TMax > 1) {
				b.fail("t_max", "the hottest level's temperature must exceed the target's 1, got %g", x.TMax)
			}
		case PathPower:
		default:
			b.fail("path", "temperature or power, got %q", b.o["path"])
		}
	}
	switch {
	case b.err != nil:
	case b.o["exchange"] != "none":
		b.fail("exchange", "%s swaps the levels of its ladder (replicas > 1) with the exact Metropolis test, energies being exact; the exchange tests are the stochastic-gradient samplers' (resgld, deo_sgd, renhd)", b.o["dynamics"])
	}
	s.Exact = x
	return s
}

// cyclical is the schedule of Eq. 1 of seed 002 (cyclical.go); a K left to
// the run is checked against the cycles by Run.
func (b *builder) cyclical() Schedule {
	c := Cyclical{Initial: b.positive("lr"), Cycles: b.integer("cycles", 1), Explore: b.num("explore_fraction"), Samples: b.integer("samples_per_cycle", 0)}
	if b.o["schedule_iterations"] != "auto" {
		c.Iterations = b.integer("schedule_iterations", 1)
	}
	if err := c.check(b.name); err != nil && b.err == nil {
		b.err = err
	}
	return c
}

func (b *builder) dynamics() Dynamics {
	switch b.oneOf("dynamics", "langevin", "hamiltonian", "preconditioned", "fast_langevin", "nose_hoover", "adaptive_langevin") {
	case "nose_hoover", "adaptive_langevin":
		nh := &NoseHoover{C: b.nonNegative("c"), AdaptiveLangevin: b.o["dynamics"] == "adaptive_langevin"}
		if b.o["freeze"] != "none" {
			nh.Frozen, nh.Offset = true, b.nonNegative("freeze")
		}
		return nh
	case "hamiltonian":
		f := b.num("friction")
		if b.err == nil && !(f > 0 && f <= 1) {
			b.fail("friction", "must lie in (0, 1], got %g", f)
		}
		return &Hamiltonian{Friction: f}
	case "preconditioned":
		rho := b.num("rho")
		if b.err == nil && !(rho >= 0 && rho < 1) {
			b.fail("rho", "must lie in [0, 1), got %g", rho)
		}
		return &Preconditioned{Rho: rho, Eps: b.positive("eps")}
	case "fast_langevin":
		if b.o["grad_var"] == "auto" {
			return &FastLangevin{GradVar: -1}
		}
		return &FastLangevin{GradVar: b.nonNegative("grad_var")}
	}
	return Langevin{}
}

func (b *builder) ladder(kind string, swapRate float64, adapt Schedule) *Ladder {
	l := &Ladder{Adaptive: strings.HasPrefix(kind, "adaptive"), Tuned: strings.HasPrefix(kind, "tuned"), SwapRate: swapRate, Adapt: adapt}
	lo, hi := "t_min", "t_max"
	if strings.HasSuffix(kind, "lr") {
		l.Kind, lo, hi = StepSizeLadder, "lr_min", "lr_max"
		l.Exploit = b.nonNegative("temperature")
		l.Explore = b.nonNegative("explore_temperature")
		if auto := b.o["lr_min"] == "auto"; auto || b.o["lr_max"] == "auto" {
			if !auto || b.o["lr_max"] != "auto" {
				b.fail("lr_min", "lr_min and lr_max are both auto (tuned by the warm-up) or both given, got %s and %s", b.o["lr_min"], b.o["lr_max"])
				return l
			}
			// Scaled by the tuned step (sgKernel.useMetric).
			b.autoLadder = true
			l.Min, l.Max = 1, autoLadderSpan
			return l
		}
	}
	if text := b.o["ladder_levels"]; text != "none" {
		levels, err := parseLevels(text)
		switch {
		case err != nil:
			b.fail("ladder_levels", "%v", err)
		case len(levels) != b.integer("replicas", 1):
			b.fail("ladder_levels", "%d levels for replicas = %s; give one level per replica", len(levels), b.o["replicas"])
		default:
			l.Levels, l.Min, l.Max = levels, levels[0], levels[len(levels)-1]
		}
		return l
	}
	if b.o["path"] == "power" && l.Kind == TemperatureLadder {
		// The power path's levels are its own (sgpower.go); the ladder's
		// temperatures are placeholders the dynamics do not use.
		l.Min, l.Max = 1, 2
		return l
	}
	if tau, ok := b.o["tau"]; ok && tau != "none" {
		// Eq. 21 of seed 001 numbers the rungs j = 1, ..., M; we count from
		// j = 0 so that the target level is at t_min.
		t := b.num("tau")
		if b.err == nil && !(t > 1) {
			b.fail("tau", "the ladder ratio τ must exceed 1, got %g", t)
		}
		l.Min = b.positive(lo)
		l.Max = l.Min * math.Pow(t, float64(max(1, b.integer("replicas", 1)-1)))
		return l
	}
	l.Min, l.Max = b.positive(lo), b.positive(hi)
	if b.err == nil && l.Min >= l.Max {
		b.fail(lo, "%s = %g must be below %s = %g", lo, l.Min, hi, l.Max)
	}
	return l
}

func (b *builder) exchange(kind string, swapRate float64, adapt Schedule) Exchange {
	if kind == "barker" {
		s2, lambda, terms := b.num("sigma_star2"), b.num("lambda"), b.integer("terms", 1)
		comp, err := NewCompensation(s2, lambda, terms)
		if err != nil && b.err == nil {
			key := "sigma_star2"
			if !(lambda > 0) || math.IsInf(lambda, 0) {
				key = "lambda"
			} else if terms > CompensationMaxTerms {
				key = "terms"
			}
			b.fail(key, "%s", strings.TrimPrefix(err.Error(), "compensation: "))
		}
		x := &Barker{Compensation: comp}
		if b.o["exchange_batch"] != "auto" {
			x.Batch = b.integer("exchange_batch", 1)
		}
		return x
	}
	if kind == "deterministic" {
		if b.o["buffer"] == "auto" {
			return &Deterministic{Adaptive: true, SwapRate: swapRate, Adapt: adapt}
		}
		return &Deterministic{Buffer: b.num("buffer")}
	}
	m := &Metropolis{Adapt: adapt}
	switch c := b.o["correction"]; c {
	case "none":
		m.Correction = NoCorrection
	case "model":
		m.Correction = ModelVariance
	case "running":
		m.Correction = RunningVariance
	default:
		m.Correction, m.Variance = FixedVariance, b.nonNegative("correction")
		if b.err != nil {
			b.err = &SettingError{b.name, "correction", fmt.Sprintf("want none, model, running or a variance ≥ 0, got %q", c)}
		}
	}
	if b.o["intensity"] != "auto" {
		m.Intensity = b.positive("intensity")
	}
	if kind == "multi_variance" {
		a1, a2 := b.nonNegative("a1"), b.nonNegative("a2")
		if b.err == nil && math.Abs(a1+a2-1) > 1e-9 {
			b.fail("a1", "the weights a1 = %g and a2 = %g must sum to 1 for an unbiased energy difference", a1, a2)
		}
		m.Weights = [2]float64{a1, a2}
		m.SecondBatch = b.integer("batch2", 0)
	}
	return m
}

func (b *builder) scheme(replicas int, swapRate float64) Scheme {
	var s Scheme
	switch b.oneOf("scheme", "adj", "seo", "deo") {
	case "adj":
		s.Kind = ADJ
	case "seo":
		s.Kind = SEO
	default:
		s.Kind = DEO
		if b.o["window"] == "auto" {
			s.Window = OptimalWindow(replicas, 1-swapRate)
		} else {
			s.Window = b.integer("window", 1)
		}
	}
	return s
}

func unknownSampler(name string) error {
	return fmt.Errorf("unknown sampler %q (samplers: %s)", name, strings.Join(SamplerNames(), ", "))
}

// parseLevels reads a ladder's levels as written: numbers separated by
// commas or spaces, optionally in brackets ("[1, 2, 4]", "1,2,4"). They
// must be positive, finite and strictly increasing, two at least.
func parseLevels(text string) ([]float64, error) {
	fields := strings.FieldsFunc(strings.Trim(strings.TrimSpace(text), "[]"), func(r rune) bool { return r == ',' || r == ' ' })
	var levels []float64
	for _, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("want positive numbers, got %q", f)
		}
		if n := len(levels); n > 0 && x <= levels[n-1] {
			return nil, fmt.Errorf("the levels must increase from the target level, got %g after %g", x, levels[n-1])
		}
		levels = append(levels, x)
	}
	if len(levels) < 2 {
		return nil, fmt.Errorf("want two levels at least, got %q", text)
	}
	return levels, nil
}
