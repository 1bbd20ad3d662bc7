package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/internal/checkpoint"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/settings"
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

	optionPos map[string]lang.Pos // where each setting was written in the file
	specKeys  []string            // the settings written in sampler = name(...)
}

// The run keys that name files outside Options (settings.Keys()).
const (
	dataKey = "data"
	outKey  = "out"
)

func defaultConfig() config {
	return config{opts: temper.Options{Sampler: settings.Auto, Chains: 4, Thin: 1, Seed: 1}, optionPos: map[string]lang.Pos{}}
}

// fromInferBlock reads the infer block's settings. Paths are relative to the
// model file.
func (c *config) fromInferBlock(f *lang.File, modelPath string) error {
	if f.Infer == nil {
		return nil
	}
	if err := hook.ReadInferBlock(&c.opts, f); err != nil {
		return err
	}
	dir := filepath.Dir(modelPath)
	for _, s := range f.Infer.Settings {
		if spec, ok := s.Value.(*lang.SamplerSpec); ok {
			for _, o := range spec.Options {
				c.optionPos[o.Key] = o.Pos
				c.specKeys = append(c.specKeys, o.Key)
			}
			continue
		}
		c.optionPos[s.Key] = s.Pos
		k, isRunKey := settings.Lookup(s.Key)
		str, quoted := s.Value.(*lang.String)
		if !isRunKey || k.Kind != settings.Path || !quoted { // ReadInferBlock reported unquoted paths
			continue
		}
		p := str.Value
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := c.set(k, p); err != nil {
			return err
		}
	}
	return nil
}

// set gives a run key its value: data adds a file, out replaces the
// folder, and the other keys set their field of Options.
func (c *config) set(k settings.RunKey, value string) error {
	switch {
	case k.IsField():
		return settings.Set(&c.opts, k.Name, value)
	case k.Name == dataKey:
		c.data = append(c.data, value)
	case k.Name == outKey:
		c.out = value
	default:
		return fmt.Errorf("%s is a run key that temper run does not handle", k.Name)
	}
	return nil
}

// check reports a checkpoint setting or a sampler that the flags made
// impossible; a bad setting written in the infer block is reported at its
// place in the file.
func (c *config) check() error {
	if c.opts.CheckpointEvery != 0 && c.opts.Checkpoint == "" {
		return errors.New("checkpoint_every (--checkpoint-every) says how often to write a checkpoint, but no checkpoint file is named: add --checkpoint FILE (or checkpoint = \"FILE\" to the infer block)")
	}
	if c.opts.Resume != "" {
		if _, err := os.Stat(c.opts.Resume); err != nil {
			return fmt.Errorf("--resume: %v", err)
		}
	}
	return settings.LocateError(c.opts.Check(), c.opts.Sampler, c.optionPos)
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

// runFlags are temper run's flags: a flag for each run key that the
// command line may set (settings.Keys()), --set, --sampler and --quiet.
type runFlags struct {
	assignments []assignment // the run keys and --set, in the order given
	sampler     string
	quiet       bool
}

// assignment is one key=value of the command line, applied over the infer
// block.
type assignment struct {
	key, value string
	spelling   string // the flag as written, for errors: --replicas, --set replicas
}

// defineRunFlags defines the flags on fs. docs, for a command other than
// temper run, replace the docs of the run keys it names, and leave out
// those it maps to "".
func defineRunFlags(fs *flag.FlagSet, docs map[string]string) *runFlags {
	r := &runFlags{}
	for _, k := range settings.Keys() {
		doc, replaced := docs[k.Name]
		if k.Allowed(settings.OnCommandLine) != nil || replaced && doc == "" {
			continue
		}
		fs.Var(&textFlag{arg: k.Arg, isSwitch: k.Kind == settings.Switch, record: func(v string) error {
			r.assignments = append(r.assignments, assignment{k.Name, v, "--" + k.Flag})
			return nil
		}}, k.Flag, cmp.Or(doc, k.Doc))
	}
	fs.Var(&textFlag{arg: "key=value", record: func(kv string) error {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" || val == "" {
			return fmt.Errorf("want key=value, got %q", kv)
		}
		if k, ok := settings.Lookup(key); ok {
			key = k.Name // --set energy-noise=1 is --energy-noise 1
		}
		r.assignments = append(r.assignments, assignment{key, val, "--set " + key})
		return nil
	}}, "set", "a sampler setting (lr=0.01, scheme=deo, window=auto) or run key; repeatable")
	fs.Var(&textFlag{arg: "NAME", record: func(name string) error { r.sampler = name; return nil }},
		"sampler", "the sampler (temper samplers lists them)")
	fs.BoolVar(&r.quiet, "quiet", false, "no progress or table")
	fs.Usage = func() {
		printFlags(fs, "usage: temper run MODEL.ppl [flags]\n\nFlags override the model's infer block, which overrides the defaults:")
	}
	return r
}

// parse parses args into the flags of fs (defineRunFlags' and the
// command's own) and checks the run keys' values, returning the
// positional arguments; none, not even empty, after -h.
func (r *runFlags) parse(fs *flag.FlagSet, cmd string, args []string) ([]string, error) {
	parsed, pos := reorderFlags(args, append(switchFlags(), "quiet")...)
	if err := fs.Parse(parsed); errors.Is(err, flag.ErrHelp) {
		return nil, nil
	} else if err != nil {
		return nil, badf("temper %s: %v", cmd, err)
	}
	if err := r.check(); err != nil {
		return nil, badf("temper %s: %v", cmd, err)
	}
	return append([]string{}, pos...), nil
}

// readRunConfig reads the model at path and lays its infer block, then
// the flags, over base. fromBlock, if not nil, amends what the infer block
// set before the flags apply.
func readRunConfig(cmd, path string, base config, flags *runFlags, fromBlock func(*config)) (*lang.File, []byte, config, error) {
	f, src, err := loadModel(path)
	if err != nil {
		return nil, nil, base, err
	}
	cfg := base
	if err := cfg.fromInferBlock(f, path); err != nil {
		return nil, nil, base, badInput{lang.Format(err, src)}
	}
	if fromBlock != nil {
		fromBlock(&cfg)
	}
	if err := cfg.applyFlags(flags); err != nil {
		return nil, nil, base, badf("temper %s: %v", cmd, err)
	}
	cfg.resumeSeed(flags)
	err = cfg.check()
	var list lang.ErrorList
	switch {
	case errors.As(err, &list):
		return nil, nil, base, badInput{lang.Format(err, src)}
	case err != nil:
		return nil, nil, base, badf("temper %s: %v", cmd, err)
	}
	return f, src, cfg, nil
}

// resumeSeed gives a resumed run the seed its checkpoint was started with,
// where neither the infer block nor the command line names one: the
// default seed would otherwise refuse the checkpoint.
func (c *config) resumeSeed(flags *runFlags) {
	if c.opts.Resume == "" {
		return
	}
	if _, inBlock := c.optionPos["seed"]; inBlock {
		return
	}
	for _, a := range flags.assignments {
		if a.key == "seed" {
			return
		}
	}
	if st, err := checkpoint.Read(c.opts.Resume); err == nil {
		c.opts.Seed = st.Seed
	}
}

// check reports an impossible value of a run key, before the model is read.
func (r *runFlags) check() error {
	var scratch temper.Options
	for _, a := range r.assignments {
		k, ok := settings.Lookup(a.key)
		if !ok || !k.IsField() {
			continue
		}
		if err := k.Parse(&scratch, a.value); err != nil {
			return fmt.Errorf("%s %v", a.spelling, err)
		}
	}
	return nil
}

// applyFlags lays the command line over the infer block: the sampler, then
// each assignment in turn. Data files on the command line replace the
// infer block's.
func (c *config) applyFlags(r *runFlags) error {
	if r.sampler != "" {
		c.setSampler(r.sampler)
	}
	if slices.ContainsFunc(r.assignments, func(a assignment) bool { return a.key == dataKey }) {
		c.data = nil
	}
	for _, a := range r.assignments {
		delete(c.optionPos, a.key) // an error about it is not the file's
		k, isRunKey := settings.Lookup(a.key)
		if !isRunKey {
			if c.opts.Settings == nil {
				c.opts.Settings = map[string]any{}
			}
			c.opts.Settings[a.key] = a.value
			continue
		}
		if err := c.set(k, a.value); err != nil {
			return fmt.Errorf("%s: %v", a.spelling, err)
		}
	}
	return nil
}

// printFlags is temper run -h (and sbc's): the header, then every flag
// with its value and doc.
func printFlags(fs *flag.FlagSet, header string) {
	w := fs.Output()
	fmt.Fprintln(w, header)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := "--"+f.Name, f.Usage
		if t, ok := f.Value.(*textFlag); ok && !t.isSwitch {
			name += " " + t.arg
		} else if !ok {
			var arg string
			arg, usage = flag.UnquoteUsage(f) // the flag package's: `N` in the doc names the value
			name += " " + arg
		}
		fmt.Fprintf(w, "  %-28s %s\n", name, usage)
	})
}

// textFlag is a flag whose values go to record; arg names the value in
// the usage. A switch takes no value (--strict records "true").
type textFlag struct {
	arg      string
	isSwitch bool
	record   func(string) error
}

func (t *textFlag) String() string     { return "" }
func (t *textFlag) Set(v string) error { return t.record(v) }
func (t *textFlag) IsBoolFlag() bool   { return t.isSwitch }

// switchFlags are the run keys given as flags without a value, which
// reorderFlags must not pair with the next argument.
func switchFlags() []string {
	var names []string
	for _, k := range settings.Keys() {
		if k.Kind == settings.Switch {
			names = append(names, k.Flag)
		}
	}
	return names
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
