package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The modes page: what the defaults do with multimodal posteriors (the
// mode search, pt started in NUTS's place, mode masses), what NUTS alone
// says of them, label switching, and log Z on the power path, each beside
// the exact answer.

var modesPage = galleryPage{name: "modes", title: "Modes found and tempered by default, and log Z from the power path",
	shows: "sampler auto's mode search starting pt on a five-mode mixture and a double well, their mode masses beside the exact ones, NUTS alone warned in words, label switching said and fixed, and log Z of a bimodal posterior from pt on the power path",
	runs: []galleryRun{
		{label: "five modes, defaults"},
		{label: "five modes, nuts", args: []string{"--sampler", "nuts"}},
		{label: "double well, defaults", model: "double_well.ppl"},
		{label: "label switching, defaults", model: "mixture.ppl"},
		{label: "label switching, ordered", model: "mixture_ordered.ppl"},
		{label: "squared, power path", model: "squared.ppl", args: []string{"--sampler", "pt", "--set", "path=power"}},
	},
	about: "Each run is `temper run` with the defaults (`sampler = auto`) unless its flags say otherwise. Before NUTS would run, the plan searches for modes: 32 L-BFGS ascents from dispersed starts, their ends grouped by the Laplace approximation at each (README, \"Modes\"). Several distinct modes start the run on `pt`, NUTS on a temperature ladder tuned in the warm-up to equal rejection between its levels, whose target level's draws then weigh the modes: each of up to 4,000 draws climbs to its mode, and a mode's mass is its share, with a standard error from the chains'. Modes that are one solution relabelled are not tempered across: the run says so and names the parameter to order. `--set path=power` puts the ladder on the power path from the prior to the posterior, whose likelihoods give log Z.",
	figures: []galleryFigure{
		{file: "modes.svg", run: "five modes, defaults", caption: "The default run's draws (pt's target level) over the target's density: every mode visited in proportion.", args: []string{"--kind", "modes", "--model", "{model}"}},
		{file: "index.svg", run: "five modes, defaults", caption: "pt's replica index process: each replica's level over the swap rounds, travelling between the target (level 1) and the hottest level, where the modes connect.", args: []string{"--kind", "index", "--rounds", "400"}},
		{file: "trace-nuts.svg", run: "five modes, nuts", caption: "NUTS alone: each chain stays in the mode it fell into, and the run's warning names the modes and the command that samples them.", args: []string{"--kind", "trace", "--params", "x.1,x.2"}},
		{file: "trace-squared.svg", run: "squared, power path", caption: "pt on the power path: θ's draws at the target level cross between ±2 through the prior's level.", args: []string{"--kind", "trace", "--params", "theta"}},
	},
	results: modesResults}

// modeDiagnostics is what the page reads of a run's diagnostics.json
// beyond runDiagnostics: the sampler run, the mode search, the mode
// masses, the barrier and log Z.
type modeDiagnostics struct {
	Sampler    string  `json:"sampler"`
	Barrier    float64 `json:"barrier"`
	RoundTrips int     `json:"round_trips"`
	LogZ       float64 `json:"log_z"`
	LogZSE     float64 `json:"log_z_se"`
	Search     *struct {
		Modes []json.RawMessage `json:"modes"`
	} `json:"mode_search"`
	Modes *struct {
		Found int `json:"found"`
		Modes []struct {
			Mass   float64            `json:"mass"`
			MassSE float64            `json:"mass_se"`
			At     map[string]float64 `json:"at"`
		} `json:"modes"`
	} `json:"modes"`
	Warnings []string `json:"warnings"`
}

func modesResults(g *galleryRuns) (string, error) {
	read := func(label string) (modeDiagnostics, error) {
		var d modeDiagnostics
		r, err := g.get(label)
		if err != nil {
			return d, err
		}
		return d, r.diagnostics(0, &d)
	}
	var b strings.Builder
	searched := func(d modeDiagnostics) string {
		if d.Search == nil {
			return "–"
		}
		return fmt.Sprint(len(d.Search.Modes))
	}

	// The five-mode mixture: each mode's mass beside its weight.
	five, err := read("five modes, defaults")
	if err != nil {
		return "", err
	}
	weights := []float64{0.1, 0.15, 0.2, 0.25, 0.3}
	if five.Modes == nil || len(five.Modes.Modes) != len(weights) {
		return "", fmt.Errorf("five modes, defaults: modes %+v", five.Modes)
	}
	var rows [][]string
	tv := 0.0
	for k, w := range weights {
		a := 2 * math.Pi * float64(k) / 5
		cx, cy := 4*math.Sin(a), 4*math.Cos(a)
		for _, md := range five.Modes.Modes {
			if math.Hypot(md.At["x.1"]-cx, md.At["x.2"]-cy) < 0.1 {
				rows = append(rows, []string{fmt.Sprintf("(%.2f, %.2f)", cx, cy), f2(w), f3(md.Mass) + " ± " + f3(md.MassSE)})
				tv += math.Abs(md.Mass-w) / 2
			}
		}
	}
	if len(rows) != len(weights) {
		return "", fmt.Errorf("five modes, defaults: the modes found are not the mixture's centres: %+v", five.Modes)
	}
	g.fact("five modes: sampler", five.Sampler)
	g.fact("five modes: TV", number(tv))
	fmt.Fprintf(&b, "**Five modes, the defaults.** The mode search found %s modes and the run was `%s`, %d round trips on its ladders (communication barrier Λ = %.2f); total-variation distance of the masses from the weights %.3f:\n\n", searched(five), five.Sampler, five.RoundTrips, five.Barrier, tv)
	b.WriteString(mdTable([]string{"centre", "weight", "mass (temper)"}, rows))

	nuts, err := read("five modes, nuts")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n**NUTS alone** (`--sampler nuts`) cannot cross between the modes; its run is warned:\n\n%s\n", quoteWarnings(nuts.Warnings, "modes"))

	// The double well: the left mode's mass by quadrature.
	well, err := read("double well, defaults")
	if err != nil {
		return "", err
	}
	left := quadratureMass(func(x float64) float64 { return 4*(x*x-1)*(x*x-1) + 0.6*x }, -4, 4)
	if well.Modes == nil || len(well.Modes.Modes) != 2 {
		return "", fmt.Errorf("double well: modes %+v", well.Modes)
	}
	var got, se float64
	for _, md := range well.Modes.Modes {
		if md.At["x"] < 0 {
			got, se = md.Mass, md.MassSE
		}
	}
	g.fact("double well: left", fmt.Sprintf("%.3f ± %.3f", got, se))
	g.fact("double well: exact", fmt.Sprintf("%.3f", left))
	fmt.Fprintf(&b, "\n**The double well**, U(x) = 4(x² − 1)² + 0.6x, with the defaults: the search found %s modes, the run was `%s`, and the left mode's mass is %.3f ± %.3f against %.3f by quadrature.\n", searched(well), well.Sampler, got, se, left)

	// Label switching.
	mix, err := read("label switching, defaults")
	if err != nil {
		return "", err
	}
	ordered, err := read("label switching, ordered")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n**Label switching.** The two-component mixture's search found %s modes that are one solution relabelled; the run stayed on `%s` and said:\n\n%s\nWith `mu: ordered[2]` (`mixture_ordered.ppl`) the run has one labelling and %d warnings.\n", searched(mix), mix.Sampler, quoteWarnings(mix.Warnings, "label switching"), len(ordered.Warnings))

	// log Z on the power path, against quadrature.
	sq, err := read("squared, power path")
	if err != nil {
		return "", err
	}
	exact, err := squaredEvidence(filepath.Join(g.dir, "squared.json"))
	if err != nil {
		return "", err
	}
	var masses []string
	if sq.Modes != nil {
		for _, md := range sq.Modes.Modes {
			masses = append(masses, fmt.Sprintf("%.3f ± %.3f at θ = %.2f", md.Mass, md.MassSE, md.At["theta"]))
		}
	}
	g.fact("log Z", fmt.Sprintf("%.3f ± %.3f", sq.LogZ, sq.LogZSE))
	g.fact("log Z: exact", fmt.Sprintf("%.3f", exact))
	fmt.Fprintf(&b, "\n**log Z.** `squared.ppl` (θ ~ N(0, 2²), y ~ N(θ², 1)) has two modes of equal mass; pt on the power path gives log Z = %.3f ± %.3f against %.3f by quadrature, and mode masses %s (exact 0.5 each). `temper compare` ranks such runs by log Z and prints their log Bayes factors.\n", sq.LogZ, sq.LogZSE, exact, strings.Join(masses, " and "))
	return b.String(), nil
}

// quoteWarnings quotes the warnings that contain what, as a Markdown list.
func quoteWarnings(warnings []string, what string) string {
	var b strings.Builder
	for _, w := range warnings {
		if strings.Contains(w, what) {
			fmt.Fprintf(&b, "> %s\n", w)
		}
	}
	if b.Len() == 0 {
		return "> (no warning said " + what + ")\n"
	}
	return b.String()
}

// quadratureMass is the mass of x < 0 under e^{-u} on [lo, hi], by the
// trapezoid rule.
func quadratureMass(u func(float64) float64, lo, hi float64) float64 {
	const n = 400000
	var left, total float64
	for i := 0; i <= n; i++ {
		x := lo + (hi-lo)*float64(i)/n
		w := math.Exp(-u(x))
		if i == 0 || i == n {
			w /= 2
		}
		total += w
		if x < 0 {
			left += w
		}
	}
	return left / total
}

// squaredEvidence is log ∫ N(θ; 0, 2²) Π N(y_i; θ², 1) dθ for squared.ppl's
// data, by the trapezoid rule on [-6, 6].
func squaredEvidence(path string) (float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var d struct{ Y []float64 }
	if err := json.Unmarshal(raw, &d); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	const n, a = 400000, 6.0
	logs := make([]float64, n+1)
	peak := math.Inf(-1)
	for i := range logs {
		x := -a + 2*a*float64(i)/n
		l := -0.5*x*x/4 - math.Log(2) - 0.5*math.Log(2*math.Pi)
		for _, y := range d.Y {
			l += -0.5*(y-x*x)*(y-x*x) - 0.5*math.Log(2*math.Pi)
		}
		logs[i], peak = l, max(peak, l)
	}
	sum := 0.0
	for i, l := range logs {
		w := math.Exp(l - peak)
		if i == 0 || i == n {
			w /= 2
		}
		sum += w
	}
	return peak + math.Log(sum*2*a/n), nil
}
