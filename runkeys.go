package temper

import (
	"cmp"
	"fmt"
	"github.com/temper-ppl/temper/internal/settings"
	"math"
	"strconv"
	"time"
)

// runKeys is the table of run keys (settings.RunKey), in the order help
// lists them. Any other key of an infer block, --set or :run is a sampler
// setting.
var runKeys = []settings.RunKey{
	{Name: "chains", Flag: "chains", Kind: settings.Count, Arg: "C", Where: settings.Everywhere,
		Doc: "independent chains (default 4); each is a ladder of replicas",
		Set: count(1, "", func(o *Options, n int) { o.Chains = n }),
		Get: func(a any) any { o := a.(Options); return o.Chains }},
	{Name: "chain_id", Flag: "chain-id", Kind: settings.Count, Arg: "K", Where: settings.OnCommandLine,
		Doc: "run chain K alone of the --chains C run, as a task of an array job; temper merge joins the tasks' folders",
		Set: count(1, "", func(o *Options, n int) { o.ChainID = n })},
	{Name: "replicas", Flag: "replicas", Kind: settings.Count, Arg: "P", Where: settings.Everywhere,
		Doc: "replica-exchange ladder size (default: the sampler's)",
		Set: count(1, "", func(o *Options, n int) { o.Replicas = n })},
	{Name: "iters", Flag: "iters", Kind: settings.Count, Arg: "K", Where: settings.Everywhere,
		Doc: "iterations kept after burn-in, before thinning (default 2000)",
		Set: count(1, "", func(o *Options, n int) { o.Iters = n }),
		Get: func(a any) any { o := a.(Options); return o.Iters }},
	{Name: "burn", Flag: "burn", Kind: settings.Count, Arg: "K", Where: settings.Everywhere,
		Doc: "iterations discarded first (default 0)",
		Set: count(0, "", func(o *Options, n int) { o.Burn = n }),
		Get: func(a any) any { o := a.(Options); return o.Burn }},
	{Name: "thin", Flag: "thin", Kind: settings.Count, Arg: "n", Where: settings.Everywhere,
		Doc: "keep every n-th iteration (default 1)",
		Set: count(1, "", func(o *Options, n int) { o.Thin = n }),
		Get: func(a any) any { o := a.(Options); return o.Thin }},
	{Name: "batch", Flag: "batch", Kind: settings.Count, Arg: "B", Where: settings.Everywhere,
		Doc: "minibatch rows per replica, at most the data's rows (default: every row)",
		Set: count(1, "; leave it out for every row", func(o *Options, n int) { o.Batch = n }),
		Get: func(a any) any { o := a.(Options); return o.Batch }},
	{Name: "batch_blocks", Flag: "batch-blocks", Kind: settings.Count, Arg: "K", Where: settings.Everywhere,
		Doc: "each minibatch is K runs of consecutive rows from random starts, not rows at random: for memory-mapped data larger than memory; unbiased, but noisier where the file is sorted (default 0: rows at random)",
		Set: count(0, "", func(o *Options, n int) { o.BatchBlocks = n }),
		Get: func(a any) any { o := a.(Options); return o.BatchBlocks }},
	{Name: "seed", Flag: "seed", Kind: settings.Count, Arg: "S", Where: settings.Everywhere,
		Doc: "random seed (temper run's default 1)",
		Set: count(0, "", func(o *Options, n int) { o.Seed = uint64(n) }),
		Get: func(a any) any { o := a.(Options); return o.Seed }},
	{Name: "keep", Flag: "keep", Kind: settings.Choice, Arg: "target|all", Choices: []string{"target", "all"}, Where: settings.Everywhere,
		Doc: "the target level's draws, or every replica's (with replica__, temperature__ and lr__ columns)",
		Set: func(a any, v string) error { o := a.(*Options); o.KeepAll = v == "all"; return nil },
		Get: func(a any) any { o := a.(Options); return map[bool]string{false: "target", true: "all"}[o.KeepAll] }},
	{Name: "energy_noise", Flag: "energy-noise", Kind: settings.Number, Arg: "s", Where: settings.Everywhere,
		Doc: "add N(0, s²) noise to every energy",
		Set: nonNegative(func(o *Options, x float64) { o.EnergyNoise = x }),
		Get: func(a any) any { o := a.(Options); return o.EnergyNoise }},
	{Name: "grad_noise", Flag: "grad-noise", Kind: settings.Number, Arg: "s", Where: settings.Everywhere,
		Doc: "add N(0, s²) noise to every gradient coordinate",
		Set: nonNegative(func(o *Options, x float64) { o.GradNoise = x }),
		Get: func(a any) any { o := a.(Options); return o.GradNoise }},
	{Name: "precision", Flag: "precision", Kind: settings.Choice, Arg: "float64|float32", Choices: []string{"float64", "float32"}, Where: settings.Everywhere,
		Doc: "the type the model is computed in (default float64)",
		Set: func(a any, v string) error { o := a.(*Options); o.Precision = v; return nil },
		Get: func(a any) any { o := a.(Options); return cmp.Or(o.Precision, "float64") }},
	{Name: "device", Flag: "device", Kind: settings.Choice, Arg: "cpu|cuda", Choices: []string{"cpu", "cuda"}, Where: settings.Everywhere,
		Doc: "where the model is computed: cpu (the default) or cuda (an NVIDIA GPU; needs a build with -tags cuda)",
		Set: func(a any, v string) error { o := a.(*Options); o.Device = v; return nil },
		Get: func(a any) any { o := a.(Options); return cmp.Or(o.Device, "cpu") }},
	{Name: "threads", Flag: "threads", Kind: settings.Count, Arg: "N", Where: settings.Everywhere,
		Doc: "goroutines that evaluate the replicas (0, the default: GOMAXPROCS)",
		Set: count(0, "", func(o *Options, n int) { o.Threads = n }),
		Get: func(a any) any { o := a.(Options); return o.Threads }},
	{Name: "init", Flag: "init", Kind: settings.Path, Arg: "FILE", Where: settings.InFiles,
		Doc: "starting points on the constrained scale, as JSON: an object of parameter values for every chain, or a list of one per chain",
		Set: path(func(o *Options, p string) { o.InitFile = p }),
		Get: func(a any) any { o := a.(Options); return o.InitFile }},
	{Name: "init_radius", Flag: "init-radius", Kind: settings.Number, Arg: "r", Where: settings.Everywhere,
		Doc: "random starts are uniform in (-r, r) on the unconstrained scale, r > 0 (default 2, as Stan's)",
		Set: func(a any, text string) error {
			o := a.(*Options)
			x, err := strconv.ParseFloat(text, 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("must be a positive number, got %q; to start every chain at one point, give init a file", text)
			}
			o.InitRadius = x
			return nil
		},
		Get: func(a any) any { o := a.(Options); return cmp.Or(o.InitRadius, 2) }},
	{Name: "data", Flag: "data", Kind: settings.Path, Arg: "FILE", Where: settings.InFiles,
		Doc: "a data file (.json, .csv, .parquet, .npy or .npz); repeatable; the flags replace the infer block's"},
	{Name: "out", Flag: "out", Kind: settings.Path, Arg: "DIR", Where: settings.InFiles,
		Doc: "output folder (default out/MODEL)"},
	{Name: "checkpoint", Flag: "checkpoint", Kind: settings.Path, Arg: "FILE", Where: settings.InFiles,
		Doc: "save the run's state to FILE at the end, on Ctrl-C and every checkpoint_every",
		Set: path(func(o *Options, p string) { o.Checkpoint = p })},
	{Name: "checkpoint_every", Flag: "checkpoint-every", Kind: settings.Seconds, Arg: "SEC", Where: settings.InFiles,
		Doc: "seconds between checkpoints (default 60)",
		Set: seconds(func(o *Options, d time.Duration) { o.CheckpointEvery = d })},
	{Name: "escalate", Flag: "escalate", Kind: settings.Choice, Arg: "auto|never", Choices: []string{"auto", "never"}, Where: settings.Everywhere,
		Doc: "with sampler auto, run a better kernel when the judgement finds the run failing and the better one is affordable (default auto); a sampler named is never replaced",
		Set: func(a any, v string) error { o := a.(*Options); o.Escalate = v; return nil },
		Get: func(a any) any { o := a.(Options); return cmp.Or(o.Escalate, "auto") }},
	{Name: "strict", Flag: "strict", Kind: settings.Switch, Where: settings.OnCommandLine,
		Doc: "exit with status 3 when the run has any warning (for scripts and CI)",
		Set: func(a any, v string) error {
			o := a.(*Options)
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.Strict = on
			return nil
		}},
	{Name: "log_lik", Flag: "log-lik", Kind: settings.Switch, Where: settings.Everywhere,
		Doc: "add each draw's pointwise log-likelihood, log_lik.1 ... log_lik.N (one per row of the plate), to its columns, for temper loo",
		Set: func(a any, v string) error {
			o := a.(*Options)
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.LogLik = on
			return nil
		},
		Get: func(a any) any { o := a.(Options); return o.LogLik }},
	{Name: "prior", Flag: "prior", Kind: settings.Switch, Where: settings.Everywhere,
		Doc: "sample the prior alone, the likelihood's ~ statements left out (the generated block still runs: its _rng draws are the prior predictive)",
		Set: func(a any, v string) error {
			o := a.(*Options)
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("must be true or false, got %q", v)
			}
			o.Prior = on
			return nil
		},
		Get: func(a any) any { o := a.(Options); return o.Prior }},
	{Name: "resume", Flag: "resume", Kind: settings.Path, Arg: "FILE", Where: settings.OnCommandLine,
		Doc: "continue the run saved in FILE for iters more iterations, in the same output folder",
		Set: path(func(o *Options, p string) { o.Resume = p })},
}

// checkData reports run options that the model's data make impossible,
// once the model is compiled: a minibatch larger than the numData rows of
// its plate, or any minibatch for a model without a plate.
func (o Options) checkData(numData int) error {
	switch {
	case o.Batch > 0 && numData == 0:
		return fmt.Errorf("batch = %d, but the model has no plate (no rows of data to minibatch); leave batch out", o.Batch)
	case o.Batch > numData:
		return fmt.Errorf("batch = %d is more than the %d rows of the data; leave batch out for every row", o.Batch, numData)
	}
	return nil
}

// count parses a whole number ≥ min; note adds a hint to the error.
func count(min int, note string, set func(*Options, int)) func(any, string) error {
	return func(o any, text string) error {
		n, ok := wholeNumber(text)
		if !ok || n < uint64(min) || n > math.MaxInt {
			return fmt.Errorf("must be a whole number ≥ %d, got %q%s", min, text, note)
		}
		set(o.(*Options), int(n))
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

func nonNegative(set func(*Options, float64)) func(any, string) error {
	return func(o any, text string) error {
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("must be a number ≥ 0, got %q", text)
		}
		set(o.(*Options), x)
		return nil
	}
}

// maxSeconds keeps a time.Duration from overflowing (about 292 years).
const maxSeconds = math.MaxInt64 / float64(time.Second)

func seconds(set func(*Options, time.Duration)) func(any, string) error {
	return func(o any, text string) error {
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || !(x > 0) || x >= maxSeconds {
			return fmt.Errorf("must be a positive number of seconds, got %q", text)
		}
		set(o.(*Options), time.Duration(x*float64(time.Second)))
		return nil
	}
}

func path(set func(*Options, string)) func(any, string) error {
	return func(o any, text string) error {
		if text == "" {
			return fmt.Errorf("must name a file")
		}
		set(o.(*Options), text)
		return nil
	}
}

// recordedSettings are the run keys' values of o that the output files
// record, in the table's order.
func (o Options) recordedSettings() []keyValue {
	var out []keyValue
	for _, k := range runKeys {
		if k.Get != nil {
			out = append(out, keyValue{k.Name, k.Get(o)})
		}
	}
	return out
}

type keyValue struct {
	key   string
	value any
}

// init registers the table of run keys with package settings, for the
// command and the REPL.
func init() { settings.Register(runKeys) }
