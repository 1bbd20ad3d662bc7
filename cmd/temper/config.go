package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/lang"
)

// config is a run's settings: the infer block's, then the flags'. The run
// and sampler settings are the embedding API's Options, read from the
// infer block by Options.ReadInferBlock; config adds what concerns files
// and where each sampler setting was written, for errors after the flags.
type config struct {
	opts temper.Options
	data []string
	out  string

	optionPos map[string]lang.Pos // where each sampler setting was set in the file
	specKeys  []string            // the settings written in sampler = name(...)
}

func defaultConfig() config {
	return config{opts: temper.Options{Sampler: "sgld", Chains: 4, Iters: 2000, Thin: 1, Seed: 1}, optionPos: map[string]lang.Pos{}}
}

// fromInferBlock reads the infer block's settings. Paths are relative to the
// model file.
func (c *config) fromInferBlock(f *lang.File, modelPath string) error {
	if f.Infer == nil {
		return nil
	}
	if err := c.opts.ReadInferBlock(f); err != nil {
		return err
	}
	var errs lang.ErrorList
	dir := filepath.Dir(modelPath)
	for _, s := range f.Infer.Settings {
		switch {
		case s.Key == "sampler":
			if spec, ok := s.Value.(*lang.SamplerSpec); ok {
				for _, o := range spec.Options {
					c.optionPos[o.Key] = o.Pos
					c.specKeys = append(c.specKeys, o.Key)
				}
			}
		case s.Key == "data" || s.Key == "out":
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
		case !temper.IsRunSetting(s.Key):
			c.optionPos[s.Key] = s.Pos
		}
	}
	return errs.Err()
}

// check reports a sampler the flags made impossible; a bad setting written
// in the infer block is reported at its place in the file.
func (c *config) check() error {
	return temper.LocateSettingError(c.opts.Check(), c.opts.Sampler, c.optionPos)
}

// setSampler switches to another sampler, dropping the settings the file
// wrote for its own (sampler = deo_sgd(lr_min = 0.003) says nothing about
// sgld).
func (c *config) setSampler(name string) {
	if name == c.opts.Sampler {
		return
	}
	for _, k := range c.specKeys {
		delete(c.opts.Settings, k)
		delete(c.optionPos, k)
	}
	c.opts.Sampler, c.specKeys = name, nil
}

// setFlag parses --set key=value into a sampler setting.
func (c *config) setFlag(kv string) error {
	key, val, ok := strings.Cut(kv, "=")
	if !ok || key == "" || val == "" {
		return fmt.Errorf("--set %q: want key=value", kv)
	}
	if c.opts.Settings == nil {
		c.opts.Settings = map[string]any{}
	}
	c.opts.Settings[key] = val
	delete(c.optionPos, key)
	return nil
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
