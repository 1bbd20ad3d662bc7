package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/lang"
)

// config is a run's settings: the infer block's, then the flags'.
type config struct {
	sampler     string
	options     map[string]float64
	chains      int
	iters, burn int
	thin, batch int
	seed        uint64
	data        []string
	out         string
	energyNoise float64
	gradNoise   float64

	optionPos map[string]lang.Pos // where each option was set in the file, for errors
}

func defaultConfig() config {
	return config{sampler: "sgld", options: map[string]float64{}, chains: 4, iters: 2000, thin: 1, seed: 1, optionPos: map[string]lang.Pos{}}
}

// fromInferBlock reads the infer block's settings. Paths are relative to the
// model file.
func (c *config) fromInferBlock(f *lang.File, modelPath string) error {
	if f.Infer == nil {
		return nil
	}
	var errs lang.ErrorList
	dir := filepath.Dir(modelPath)
	for _, s := range f.Infer.Settings {
		switch s.Key {
		case "sampler":
			switch v := s.Value.(type) {
			case *lang.Ident:
				c.sampler = v.Name
			case *lang.SamplerSpec:
				c.sampler = v.Name
				for _, o := range v.Options {
					x, ok := number(o.Value)
					if !ok {
						errs.Add(o.Pos, "sampler option %s must be a number", o.Key)
						continue
					}
					c.options[o.Key], c.optionPos[o.Key] = x, o.Pos
				}
			default:
				errs.Add(s.Pos, "sampler must be a name, as in sampler = sgld, or sgld(lr = 0.01)")
			}
		case "data", "out":
			str, ok := s.Value.(*lang.String)
			if !ok {
				errs.Add(s.Pos, "%s must be a quoted path", s.Key)
				continue
			}
			p := str.Value
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if s.Key == "data" {
				c.data = append(c.data, p)
			} else {
				c.out = p
			}
		case "chains", "iters", "burn", "thin", "batch", "seed":
			x, ok := number(s.Value)
			if !ok || x != math.Trunc(x) || x < 0 || x > 1<<53 {
				errs.Add(s.Pos, "%s must be a whole number ≥ 0", s.Key)
				continue
			}
			c.setInt(s.Key, int(x))
		case "energy_noise", "grad_noise":
			x, ok := number(s.Value)
			if !ok || x < 0 {
				errs.Add(s.Pos, "%s must be a number ≥ 0", s.Key)
				continue
			}
			if s.Key == "energy_noise" {
				c.energyNoise = x
			} else {
				c.gradNoise = x
			}
		default:
			// Any other key is an option of the sampler (lr = 0.01).
			x, ok := number(s.Value)
			if !ok {
				errs.Add(s.Pos, "unknown setting %q (settings: sampler, chains, iters, burn, thin, batch, seed, data, out, energy_noise, grad_noise, or a sampler option)", s.Key)
				continue
			}
			c.options[s.Key], c.optionPos[s.Key] = x, s.Pos
		}
	}
	return errs.Err()
}

func (c *config) setInt(key string, v int) {
	switch key {
	case "chains":
		c.chains = v
	case "iters":
		c.iters = v
	case "burn":
		c.burn = v
	case "thin":
		c.thin = v
	case "batch":
		c.batch = v
	case "seed":
		c.seed = uint64(v)
	}
}

func number(n lang.Node) (float64, bool) {
	switch v := n.(type) {
	case *lang.Number:
		return v.Value, true
	case *lang.Unary:
		if x, ok := number(v.X); ok && v.Op == "-" {
			return -x, true
		}
	}
	return 0, false
}

// checkOptionKeys reports, at its place in the file, an infer-block key that
// is neither a setting nor an option of the chosen sampler.
func (c *config) checkOptionKeys() error {
	known, err := infer.SamplerOptions(c.sampler)
	if err != nil {
		return nil // NewSampler reports the unknown sampler
	}
	var errs lang.ErrorList
	for key, pos := range c.optionPos {
		if _, ok := known[key]; !ok {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			slices.Sort(names)
			errs.Add(pos, "%q is neither a setting (sampler, chains, iters, burn, thin, batch, seed, data, out, energy_noise, grad_noise) nor an option of %s (%s)",
				key, c.sampler, strings.Join(names, ", "))
		}
	}
	errs.Sort()
	return errs.Err()
}

// setFlag parses --set key=value into a sampler option.
func (c *config) setFlag(kv string) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return fmt.Errorf("--set %q: want key=value", kv)
	}
	x, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("--set %s: %q is not a number", key, val)
	}
	c.options[key] = x
	delete(c.optionPos, key)
	return nil
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
