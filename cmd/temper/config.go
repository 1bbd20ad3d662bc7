package main

import (
	"errors"
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
	options     map[string]string // sampler settings as written: "0.01", "auto", "deo"
	keepAll     bool
	chains      int
	iters, burn int
	thin, batch int
	seed        uint64
	data        []string
	out         string
	energyNoise float64
	gradNoise   float64

	optionPos map[string]lang.Pos // where each option was set in the file, for errors
	specKeys  []string            // the options written in sampler = name(...)
}

func defaultConfig() config {
	return config{sampler: "sgld", options: map[string]string{}, chains: 4, iters: 2000, thin: 1, seed: 1, optionPos: map[string]lang.Pos{}}
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
					x, ok := settingValue(o.Value)
					if !ok {
						errs.Add(o.Pos, "sampler option %s must be a number or a name", o.Key)
						continue
					}
					c.options[o.Key], c.optionPos[o.Key] = x, o.Pos
					c.specKeys = append(c.specKeys, o.Key)
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
		case "keep":
			v, ok := settingValue(s.Value)
			if !ok || v != "all" && v != "target" {
				errs.Add(s.Pos, "keep must be target or all")
				continue
			}
			c.keepAll = v == "all"
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
			// Any other key is a setting of the sampler (lr = 0.01,
			// window = auto, replicas = 16).
			x, ok := settingValue(s.Value)
			if !ok {
				errs.Add(s.Pos, "%s must be a number or a name", s.Key)
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

// settingValue is a sampler setting as text: a number, a name or a string.
func settingValue(n lang.Node) (string, bool) {
	if x, ok := number(n); ok {
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	switch v := n.(type) {
	case *lang.Ident:
		return v.Name, true
	case *lang.String:
		return v.Value, true
	}
	return "", false
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

// runSettings lists the infer-block keys that are the run's, not the
// sampler's.
const runSettings = "sampler, chains, iters, burn, thin, batch, seed, data, out, keep, energy_noise, grad_noise"

// newSampler builds the configured sampler. A bad setting written in the
// infer block is reported at its place in the file (as a lang.ErrorList).
func (c *config) newSampler() (infer.Sampler, error) {
	s, err := infer.NewSampler(c.sampler, c.options)
	var se *infer.SettingError
	if errors.As(err, &se) {
		pos, ok := c.optionPos[se.Key]
		for k, p := range c.optionPos { // a message about two settings: t_min = 1 must be below t_max = 0.5
			if !ok && strings.Contains(se.Msg, k+" = ") {
				pos, ok = p, true
			}
		}
		if ok {
			var errs lang.ErrorList
			if strings.HasPrefix(se.Msg, "no such setting") {
				msg := fmt.Sprintf("%q is neither a run setting (%s) nor a setting of sampler %s", se.Key, runSettings, c.sampler)
				applied, _ := infer.SamplerOptions(c.sampler, nil)
				if near := lang.Suggest(se.Key, append(strings.Split(runSettings, ", "), infer.SettingNames()...)); near != "" {
					msg += fmt.Sprintf("; did you mean %s?", near)
				} else {
					msg += " (" + strings.Join(mapKeys(applied), ", ") + ")"
				}
				errs.Add(pos, "%s", msg)
			} else {
				errs.Add(pos, "%v", se)
			}
			return s, errs.Err()
		}
	}
	return s, err
}

func mapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// setSampler switches to another sampler, dropping the options the file
// wrote for its own (sampler = deo_sgd(lr_min = 0.003) says nothing about
// sgld).
func (c *config) setSampler(name string) {
	if name == c.sampler {
		return
	}
	for _, k := range c.specKeys {
		delete(c.options, k)
		delete(c.optionPos, k)
	}
	c.sampler, c.specKeys = name, nil
}

// setFlag parses --set key=value into a sampler setting.
func (c *config) setFlag(kv string) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok || key == "" || val == "" {
		return fmt.Errorf("--set %q: want key=value", kv)
	}
	c.options[key] = val
	delete(c.optionPos, key)
	return nil
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
