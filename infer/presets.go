package infer

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// preset describes a named sampler: its option names with defaults and the
// construction from them.
type preset struct {
	doc      string
	defaults map[string]float64
	build    func(o map[string]float64) Sampler
}

// scheduleOptions are shared by every preset: lr is the step size, and
// setting gamma switches to the decaying schedule lr·(b + k)^-gamma.
var scheduleDefaults = map[string]float64{"lr": 1e-4, "b": 1, "gamma": 0}

var presets = map[string]preset{
	"sgd": {"stochastic gradient descent (Langevin dynamics at temperature 0)",
		map[string]float64{"lr": 1e-3},
		func(o map[string]float64) Sampler { return Sampler{Dynamics: Langevin{}} }},
	"msgd": {"SGD with momentum 1 - friction (Hamiltonian dynamics at temperature 0)",
		map[string]float64{"lr": 1e-3, "friction": 0.1},
		func(o map[string]float64) Sampler { return Sampler{Dynamics: &Hamiltonian{Friction: o["friction"]}} }},
	"sgld": {"stochastic gradient Langevin dynamics (Welling & Teh 2011)",
		map[string]float64{"temperature": 1},
		func(o map[string]float64) Sampler {
			return Sampler{Dynamics: Langevin{}, Temperature: o["temperature"]}
		}},
	"sghmc": {"stochastic gradient Hamiltonian Monte Carlo (Chen, Fox & Guestrin 2014)",
		map[string]float64{"lr": 1e-5, "friction": 0.1, "temperature": 1},
		func(o map[string]float64) Sampler {
			return Sampler{Dynamics: &Hamiltonian{Friction: o["friction"]}, Temperature: o["temperature"]}
		}},
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

// SamplerOptions lists the options of a named sampler with their defaults.
func SamplerOptions(name string) (map[string]float64, error) {
	p, ok := presets[name]
	if !ok {
		return nil, unknownSampler(name)
	}
	o := make(map[string]float64)
	for k, v := range scheduleDefaults {
		o[k] = v
	}
	for k, v := range p.defaults {
		o[k] = v
	}
	return o, nil
}

// NewSampler builds a named sampler with options overriding its defaults,
// and rejects unknown options and impossible values.
func NewSampler(name string, options map[string]float64) (Sampler, error) {
	o, err := SamplerOptions(name)
	if err != nil {
		return Sampler{}, err
	}
	for k, v := range options {
		if _, ok := o[k]; !ok {
			keys := make([]string, 0, len(o))
			for key := range o {
				keys = append(keys, key)
			}
			slices.Sort(keys)
			return Sampler{}, fmt.Errorf("sampler %s has no option %q (options: %s)", name, k, strings.Join(keys, ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Sampler{}, fmt.Errorf("sampler %s: option %s must be finite, got %v", name, k, v)
		}
		o[k] = v
	}
	switch {
	case o["lr"] <= 0:
		return Sampler{}, fmt.Errorf("sampler %s: lr must be positive, got %g", name, o["lr"])
	case o["gamma"] < 0:
		return Sampler{}, fmt.Errorf("sampler %s: gamma must be ≥ 0, got %g", name, o["gamma"])
	case o["gamma"] > 0 && o["b"] <= 0:
		return Sampler{}, fmt.Errorf("sampler %s: b must be positive for a decaying step size, got %g", name, o["b"])
	}
	if f, ok := o["friction"]; ok && !(f > 0 && f <= 1) {
		return Sampler{}, fmt.Errorf("sampler %s: friction must lie in (0, 1], got %g", name, f)
	}
	if t, ok := o["temperature"]; ok && t < 0 {
		return Sampler{}, fmt.Errorf("sampler %s: temperature must be ≥ 0, got %g", name, t)
	}
	s := presets[name].build(o)
	s.Name = name
	if o["gamma"] > 0 {
		s.Schedule = Polynomial{A: o["lr"], B: o["b"], Gamma: o["gamma"]}
	} else {
		s.Schedule = Constant(o["lr"])
	}
	return s, nil
}

func unknownSampler(name string) error {
	return fmt.Errorf("unknown sampler %q (samplers: %s)", name, strings.Join(SamplerNames(), ", "))
}
