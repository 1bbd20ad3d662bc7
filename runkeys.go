package temper

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RunKey is one setting of a run rather than of its sampler: the infer
// block, temper run's flags and --set, and the REPL's :run all read it
// through this table, so that its spelling, checks and doc are written once.
type RunKey struct {
	Name string // as the infer block and :run write it: energy_noise
	Flag string // temper run's flag, without the dashes: energy-noise
	Doc  string // one line for temper run -h and :help keys
	Kind ValueKind
	// Arg names the value in usage lines: N, s, SEC, FILE.
	Arg string
	// Choices are the values a Choice key takes; set sees only these.
	Choices []string
	Where   Where
	// set parses the text into Options and reports an impossible value,
	// in words that follow the key's name ("must be ..."). It is nil for
	// data and out, which name files that the caller reads and writes
	// rather than fields of Options.
	set func(o *Options, text string) error
	// get is the field's value, for the files that record a run's
	// settings (the draws file's header, diagnostics.json); nil for the
	// keys about files.
	get func(o Options) any
}

// ValueKind is what a run key's value is.
type ValueKind int

const (
	Count   ValueKind = iota // a whole number
	Number                   // a real number
	Seconds                  // a positive number of seconds
	Choice                   // one of RunKey.Choices
	Path                     // a file or folder; quoted in the infer block
	Switch                   // on or off: a flag without a value (--strict)
)

// Where says where a run key may be written.
type Where uint8

const (
	InInferBlock Where = 1 << iota
	OnCommandLine
	InREPL

	everywhere = InInferBlock | OnCommandLine | InREPL
	inFiles    = InInferBlock | OnCommandLine // keys about files, which a REPL session keeps in memory
)

// String names the places, for messages.
func (w Where) String() string {
	var places []string
	for _, p := range []struct {
		w    Where
		name string
	}{{InInferBlock, "an infer block"}, {OnCommandLine, "temper run's flags"}, {InREPL, ":run"}} {
		if w&p.w != 0 {
			places = append(places, p.name)
		}
	}
	return strings.Join(places, " and ")
}

// RunKeys is the table of run keys, in the order help lists them. Any other
// key of an infer block, --set or :run is a sampler setting.
var RunKeys = []RunKey{
	{Name: "chains", Flag: "chains", Kind: Count, Arg: "C", Where: everywhere,
		Doc: "independent chains (default 4); each is a ladder of replicas",
		set: count(1, "", func(o *Options, n int) { o.Chains = n }),
		get: func(o Options) any { return o.Chains }},
	{Name: "chain_id", Flag: "chain-id", Kind: Count, Arg: "K", Where: OnCommandLine,
		Doc: "run chain K alone of the --chains C run, as a task of an array job; temper merge joins the tasks' folders",
		set: count(1, "", func(o *Options, n int) { o.ChainID = n })},
	{Name: "replicas", Flag: "replicas", Kind: Count, Arg: "P", Where: everywhere,
		Doc: "replica-exchange ladder size (default: the sampler's)",
		set: count(1, "", func(o *Options, n int) { o.Replicas = n })},
	{Name: "iters", Flag: "iters", Kind: Count, Arg: "K", Where: everywhere,
		Doc: "iterations kept after burn-in, before thinning (default 2000)",
		set: count(1, "", func(o *Options, n int) { o.Iters = n }),
		get: func(o Options) any { return o.Iters }},
	{Name: "burn", Flag: "burn", Kind: Count, Arg: "K", Where: everywhere,
		Doc: "iterations discarded first (default 0)",
		set: count(0, "", func(o *Options, n int) { o.Burn = n }),
		get: func(o Options) any { return o.Burn }},
	{Name: "thin", Flag: "thin", Kind: Count, Arg: "n", Where: everywhere,
		Doc: "keep every n-th iteration (default 1)",
		set: count(1, "", func(o *Options, n int) { o.Thin = n }),
		get: func(o Options) any { return o.Thin }},
	{Name: "batch", Flag: "batch", Kind: Count, Arg: "B", Where: everywhere,
		Doc: "minibatch rows per replica, at most the data's rows (default: every row)",
		set: count(1, "; leave it out for every row", func(o *Options, n int) { o.Batch = n }),
		get: func(o Options) any { return o.Batch }},
	{Name: "batch_blocks", Flag: "batch-blocks", Kind: Count, Arg: "K", Where: everywhere,
		Doc: "each minibatch is K runs of consecutive rows from random starts, not rows at random: for memory-mapped data larger than memory; unbiased, but noisier where the file is sorted (default 0: rows at random)",
		set: count(0, "", func(o *Options, n int) { o.BatchBlocks = n }),
		get: func(o Options) any { return o.BatchBlocks }},
	{Name: "seed", Flag: "seed", Kind: Count, Arg: "S", Where: everywhere,
		Doc: "random seed (temper run's default 1)",
		set: count(0, "", func(o *Options, n int) { o.Seed = uint64(n) }),
		get: func(o Options) any { return o.Seed }},
	{Name: "keep", Flag: "keep", Kind: Choice, Arg: "target|all", Choices: []string{"target", "all"}, Where: everywhere,
		Doc: "the target level's draws, or every replica's (with replica__, temperature__ and lr__ columns)",
		set: func(o *Options, v string) error { o.KeepAll = v == "all"; return nil },
		get: func(o Options) any { return map[bool]string{false: "target", true: "all"}[o.KeepAll] }},
	{Name: "energy_noise", Flag: "energy-noise", Kind: Number, Arg: "s", Where: everywhere,
		Doc: "add N(0, s²) noise to every energy",
		set: nonNegative(func(o *Options, x float64) { o.EnergyNoise = x }),
		get: func(o Options) any { return o.EnergyNoise }},
	{Name: "grad_noise", Flag: "grad-noise", Kind: Number, Arg: "s", Where: everywhere,
		Doc: "add N(0, s²) noise to every gradient coordinate",
		set: nonNegative(func(o *Options, x float64) { o.GradNoise = x }),
		get: func(o Options) any { return o.GradNoise }},
	{Name: "precision", Flag: "precision", Kind: Choice, Arg: "float64|float32", Choices: []string{"float64", "float32"}, Where: everywhere,
		Doc: "the type the model is computed in (default float64)",
		set: func(o *Options, v string) error { o.Precision = v; return nil },
		get: func(o Options) any { return cmp.Or(o.Precision, "float64") }},
	{Name: "device", Flag: "device", Kind: Choice, Arg: "cpu|cuda", Choices: []string{"cpu", "cuda"}, Where: everywhere,
		Doc: "where the model is computed: cpu (the default) or cuda (an NVIDIA GPU; needs a build with -tags cuda)",
		set: func(o *Options, v string) error { o.Device = v; return nil },
		get: func(o Options) any { return cmp.Or(o.Device, "cpu") }},
	{Name: "threads", Flag: "threads", Kind: Count, Arg: "N", Where: everywhere,
		Doc: "goroutines that evaluate the replicas (0, the default: GOMAXPROCS)",
		set: count(0, "", func(o *Options, n int) { o.Threads = n }),
		get: func(o Options) any { return o.Threads }},
	{Name: "init", Flag: "init", Kind: Path, Arg: "FILE", Where: inFiles,
		Doc: "starting points on the constrained scale, as JSON: an object of parameter values for every chain, or a list of one per chain",
		set: path(func(o *Options, p string) { o.InitFile = p }),
		get: func(o Options) any { return o.InitFile }},
	{Name: "init_radius", Flag: "init-radius", Kind: Number, Arg: "r", Where: everywhere,
		Doc: "random starts are uniform in (-r, r) on the unconstrained scale, r > 0 (default 2, as Stan's)",
		set: func(o *Options, text string) error {
			x, err := strconv.ParseFloat(text, 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("must be a positive number, got %q; to start every chain at one point, give init a file", text)
			}
			o.InitRadius = x
			return nil
		},
		get: func(o Options) any { return cmp.Or(o.InitRadius, 2) }},
	{Name: "data", Flag: "data", Kind: Path, Arg: "FILE", Where: inFiles,
		Doc: "a data file (.json, .csv, .parquet, .npy or .npz); repeatable; the flags replace the infer block's"},
	{Name: "out", Flag: "out", Kind: Path, Arg: "DIR", Where: inFiles,
		Doc: "output folder (default out/MODEL)"},
	{Name: "checkpoint", Flag: "checkpoint", Kind: Path, Arg: "FILE", Where: inFiles,
		Doc: "save the run's state to FILE at the end, on Ctrl-C and every checkpoint_every",
		set: path(func(o *Options, p string) { o.Checkpoint = p })},
	{Name: "checkpoint_every", Flag: "checkpoint-every", Kind: Seconds, Arg: "SEC", Where: inFiles,
		Doc: "seconds between checkpoints (default 60)",
		set: seconds(func(o *Options, d time.Duration) { o.CheckpointEvery = d })},
	{Name: "escalate", Flag: "escalate", Kind: Choice, Arg: "auto|never", Choices: []string{"auto", "never"}, Where: everywhere,
		Doc: "with sampler auto, run a better kernel when the judgement finds the run failing and the better one is affordable (default auto); a sampler named is never replaced",
		set: func(o *Options, v string) error { o.Escalate = v; return nil },
		get: func(o Options) any { return cmp.Or(o.Escalate, "auto") }},
	{Name: "strict", Flag: "strict", Kind: Switch, Where: OnCommandLine,
		Doc: "exit with status 3 when the run has any warning (for scripts and CI)",
		set: func(o *Options, v string) error {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.Strict = on
			return nil
		}},
	{Name: "log_lik", Flag: "log-lik", Kind: Switch, Where: everywhere,
		Doc: "add each draw's pointwise log-likelihood, log_lik.1 ... log_lik.N (one per row of the plate), to its columns, for temper loo",
		set: func(o *Options, v string) error {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.LogLik = on
			return nil
		},
		get: func(o Options) any { return o.LogLik }},
	{Name: "prior", Flag: "prior", Kind: Switch, Where: everywhere,
		Doc: "sample the prior alone, the likelihood's ~ statements left out (the generated block still runs: its _rng draws are the prior predictive)",
		set: func(o *Options, v string) error {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.Prior = on
			return nil
		},
		get: func(o Options) any { return o.Prior }},
	{Name: "resume", Flag: "resume", Kind: Path, Arg: "FILE", Where: OnCommandLine,
		Doc: "continue the run saved in FILE for iters more iterations, in the same output folder",
		set: path(func(o *Options, p string) { o.Resume = p })},
}

// LookupRunKey finds a run key by its name or its flag spelling.
func LookupRunKey(name string) (RunKey, bool) {
	for _, k := range RunKeys {
		if k.Name == name || k.Flag == name {
			return k, true
		}
	}
	return RunKey{}, false
}

// RunKeyNames are the names of the run keys allowed at w.
func RunKeyNames(w Where) []string {
	var names []string
	for _, k := range RunKeys {
		if k.Where&w != 0 {
			names = append(names, k.Name)
		}
	}
	return names
}

// Allowed reports an error unless k may be written at w.
func (k RunKey) Allowed(w Where) error {
	if k.Where&w != 0 {
		return nil
	}
	return fmt.Errorf("%s belongs in %s, not in %s", k.Name, k.Where, w)
}

// IsField reports whether k sets a field of Options; data and out name
// files that the caller handles.
func (k RunKey) IsField() bool { return k.set != nil }

// IsRunSetting reports whether an infer-block key configures the run (or
// names files, or the sampler) rather than the sampler's settings.
func IsRunSetting(key string) bool {
	_, ok := LookupRunKey(key)
	return ok || key == samplerKey
}

// samplerKey names the sampler in an infer block: sampler = sghmc(lr = 1e-3).
const samplerKey = "sampler"

// SetRunSetting sets the run key named key (RunKeys, by name or flag
// spelling) from its text, as an infer block, a flag or the REPL's :run
// writes it, and reports an impossible value. It does not check where the
// key may be written (RunKey.Allowed).
func (o *Options) SetRunSetting(key, value string) error {
	k, ok := LookupRunKey(key)
	if !ok {
		return fmt.Errorf("%s is not a run setting (%s)", key, strings.Join(RunKeyNames(everywhere), ", "))
	}
	if err := k.Parse(o, value); err != nil {
		return fmt.Errorf("%s %w", k.Name, err)
	}
	return nil
}

// Parse sets k's field of o from text, or says what the value must be
// ("must be a whole number ≥ 1, got "0""), for the caller to put after the
// key as its user spelt it (replicas, --replicas).
func (k RunKey) Parse(o *Options, text string) error {
	if k.Kind == Choice && !slices.Contains(k.Choices, text) {
		return fmt.Errorf("must be %s, got %q", strings.Join(k.Choices, " or "), text)
	}
	if k.set == nil {
		return fmt.Errorf("names files, which Options does not hold")
	}
	return k.set(o, text)
}

// CheckData reports run options that the model's data make impossible,
// once the model is compiled: a minibatch larger than the numData rows of
// its plate, or any minibatch for a model without a plate.
func (o Options) CheckData(numData int) error {
	switch {
	case o.Batch > 0 && numData == 0:
		return fmt.Errorf("batch = %d, but the model has no plate (no rows of data to minibatch); leave batch out", o.Batch)
	case o.Batch > numData:
		return fmt.Errorf("batch = %d is more than the %d rows of the data; leave batch out for every row", o.Batch, numData)
	}
	return nil
}

// count parses a whole number ≥ min; note adds a hint to the error.
func count(min int, note string, set func(*Options, int)) func(*Options, string) error {
	return func(o *Options, text string) error {
		n, ok := wholeNumber(text)
		if !ok || n < uint64(min) || n > math.MaxInt {
			return fmt.Errorf("must be a whole number ≥ %d, got %q%s", min, text, note)
		}
		set(o, int(n))
		return nil
	}
}

// wholeNumber reads 12 or, as the infer block writes numbers, 1e3.
func wholeNumber(text string) (uint64, bool) {
	if n, err := strconv.ParseUint(text, 10, 64); err == nil {
		return n, true
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || x != math.Trunc(x) || x < 0 || x > 1<<53 {
		return 0, false
	}
	return uint64(x), true
}

func nonNegative(set func(*Options, float64)) func(*Options, string) error {
	return func(o *Options, text string) error {
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("must be a number ≥ 0, got %q", text)
		}
		set(o, x)
		return nil
	}
}

// maxSeconds keeps a time.Duration from overflowing (about 292 years).
const maxSeconds = math.MaxInt64 / float64(time.Second)

func seconds(set func(*Options, time.Duration)) func(*Options, string) error {
	return func(o *Options, text string) error {
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || !(x > 0) || x >= maxSeconds {
			return fmt.Errorf("must be a positive number of seconds, got %q", text)
		}
		set(o, time.Duration(x*float64(time.Second)))
		return nil
	}
}

func path(set func(*Options, string)) func(*Options, string) error {
	return func(o *Options, text string) error {
		if text == "" {
			return fmt.Errorf("must name a file")
		}
		set(o, text)
		return nil
	}
}

// recordedSettings are the run keys' values of o that the output files
// record, in the table's order.
func (o Options) recordedSettings() []keyValue {
	var out []keyValue
	for _, k := range RunKeys {
		if k.get != nil {
			out = append(out, keyValue{k.Name, k.get(o)})
		}
	}
	return out
}

type keyValue struct {
	key   string
	value any
}
