package temper

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
)

// Options choose a sampler and configure a run. The zero value of every
// field is its default, so the zero Options run the sampler auto (NUTS or
// SGHMC on minibatches, whichever Plan predicts fits: plan.go) with 4
// chains of 2,000 iterations from seed 0, its step size and metric chosen
// by the warm-up, and escalate it when it fails (escalate.go).
type Options struct {
	// Sampler is auto or a preset: the exact nuts, hmc, mala and pt, or
	// the stochastic-gradient sgd, msgd, sgld, sghmc, sgnht,
	// adaptive_langevin, cyclical_sgld, cyclical_sghmc, snapshot, reld,
	// resgld, m_resgld, f_resgld, deo_sgd, deo_msgd, deo_psgd, renhd or
	// renhd_reld (infer.SamplerNames, infer.SamplerDoc). Empty means
	// auto.
	Sampler string
	// Settings override the preset's settings (infer.SettingNames and
	// infer.SettingDoc list them; temper samplers prints them): numbers
	// (1e-3, 8) or names ("deo", "auto") by setting name, the parts
	// included: dynamics, exchange, scheme, ladder. A string is read as the
	// infer block would read it ("1e-3" is a number).
	Settings map[string]any
	// Replicas, if positive, is the ladder size P of a replica-exchange
	// sampler (the setting "replicas").
	Replicas int

	Chains int // independent chains (default 4); each is a ladder of Replicas levels
	Iters  int // iterations kept after burn-in, before thinning (default 2000)
	Burn   int // iterations discarded first (default 0)
	Thin   int // keep every Thin-th iteration (default 1)
	Batch  int // minibatch rows per replica (default 0: every row)
	Seed   uint64
	// BatchBlocks, if positive, deals each minibatch as BatchBlocks runs
	// of consecutive rows from random starts (wrapping at the end) rather
	// than rows at random: the N/B-scaled energy stays unbiased, and a
	// batch reads a few stretches of the file rather than B scattered
	// pages, which data memory-mapped from a file larger than memory
	// needs. Rows next to each other in a sorted file come together, so
	// the estimate is noisier there (shuffle the file's rows once).
	BatchBlocks int

	// ChainID, if positive, runs chain ChainID (from 1) of the Chains
	// alone, as one task of an array job (a Slurm array, a Kubernetes
	// indexed job): its draws are that chain's in the run of all Chains
	// with the same seed, bit for bit, numbered ChainID, and temper merge
	// joins the tasks' output folders into that run's.
	ChainID int

	// KeepAll keeps the draws of every level of a replica-exchange ladder,
	// not only the target level's (Result.All; the draws file gains the
	// replica__, temperature__ and lr__ columns).
	KeepAll bool
	// LogLik adds each draw's pointwise log-likelihood, log_lik.1 ...
	// log_lik.N, one per row of the model's plate, to its columns
	// (compile.LogLik), for PSIS-LOO (temper loo, package infer/loo).
	LogLik bool
	// Prior samples the prior alone: the model's prior part
	// (compile.Model.PowerParts), with the generated block's outputs, so
	// that its _rng draws are the prior predictive.
	Prior bool
	// EnergyNoise and GradNoise add N(0, s²) noise to every energy and
	// every gradient coordinate: the synthetic noise of the replica-
	// exchange papers' experiments on targets without data.
	EnergyNoise, GradNoise float64
	// Precision is the floating-point type the model is evaluated in:
	// "float64" (the default) or "float32", which halves memory traffic
	// and doubles the vector width of the matrix products of neural-network
	// models; reductions such as the energy still accumulate in float64 and
	// the sampler's state stays float64.
	Precision string
	// Threads is the number of goroutines that evaluate the replicas (and
	// split large matrix products); 0 means GOMAXPROCS.
	Threads int
	// Device is where the model is evaluated: "cpu" (or "", the default)
	// or "cuda", an NVIDIA GPU, in a binary built with -tags cuda. The
	// sampler's state stays on the host; the model's values and gradients
	// stay on the device.
	Device string

	// Transport, if set with more than one process, splits the run's
	// replicas across the processes it connects, each moving its share,
	// with the one-process run's draws (infer.Transport; Open MPI's in a
	// build with the tag mpi, package infer/mpi). Every process gets the
	// whole Result.
	Transport infer.Transport

	// Checkpoint, if set, is a file the run's state is written to at the
	// end, on Ctrl-C and every CheckpointEvery, atomically (written then
	// renamed), so that a long run killed part-way can be resumed.
	Checkpoint string
	// CheckpointEvery is the time between checkpoints; 0 means 60 s when
	// Checkpoint is set.
	CheckpointEvery time.Duration
	// Resume, if set, is a checkpoint file whose run continues for Iters
	// more iterations, appending to the same output folder.
	Resume string
	// Strict makes temper run fail with exit status 3 when the Result has
	// any warning; Sample itself only reports them (Result.Warnings).
	Strict bool
	// Init, if set, is each chain's unconstrained starting point (Chains ×
	// Dim), or one point for every chain; by default every coordinate
	// starts uniform in [-InitRadius, InitRadius], retried where the log
	// density or its gradient is not finite.
	Init [][]float64
	// InitFile, if set, names a JSON file of starting points on the
	// constrained scale (Stan's inits): an object of parameter values for
	// every chain, or a list of one per chain. It excludes Init.
	InitFile string
	// InitRadius is the half-width of random starts (0: 2, as Stan's).
	InitRadius float64

	// OnDraw, if set, receives every kept draw as it is made, on the
	// goroutine that called Sample; an error stops the run.
	OnDraw func(Draw) error
	// Progress, if set, is called after every iteration with the number
	// done and the total (burn-in included), and for replica-exchange and
	// cyclical runs the swap rates, round trips, cycle and stage.
	Progress func(Progress)

	// Escalate says whether a run of sampler auto may replace its kernel
	// by a better one when the judgement finds it failing: "auto" (or "",
	// the default) or "never". A sampler named is never replaced, nor one
	// given settings by hand (lr), nor a resumed run, an array job's task
	// or a run split across processes: their warnings say what would run.
	Escalate string
	// OnAttempt, if set, is called before each attempt of a sampler = auto
	// run starts, with the attempt and the Result of the one before it
	// (nil for the first): a caller that writes the draws as they come
	// opens its files for the attempt's sampler here. An error stops the
	// run.
	OnAttempt func(a Attempt, earlier *Result) error
	// attempt numbers the draws of an escalating run's attempts;
	// nonCentre samples the model with its centred hierarchies rewritten
	// (an escalation's step); defaultIters says Iters was left to its
	// default, which an escalation's step may lengthen, and lengthened
	// that the "longer" step did.
	attempt      int
	nonCentre    []string
	defaultIters bool
	lengthened   bool
}

// Progress is what Options.Progress receives after each iteration, for a
// progress display: the count, and the run's health so far; its Describe
// is the note temper run shows beside the count.
type Progress = infer.Progress

// Draw is one kept state of one chain (of one level of its ladder, with
// KeepAll), as Options.OnDraw and Model.Draws receive it while the run goes
// on, so that a caller can watch or stream the draws.
type Draw struct {
	Chain int // counted from 0
	Iter  int // counted from 0 at the end of burn-in
	// Level is the draw's rung of the ladder (0: the target level) with
	// the step size and temperature it moved with.
	Level           int
	LR, Temperature float64
	// Cycle is the draw's cycle under a cyclical schedule (cyclical_sgld,
	// cyclical_sghmc, snapshot), counted from 0; 0 otherwise.
	Cycle int
	// Values are lp__ then the parameters, as Model.Columns names them.
	// They belong to the receiver.
	Values []float64
	// Stats are the sampler's diagnostics of the draw, named by
	// Result.StatColumns (accept_stat__, stepsize__, ... of nuts, hmc and
	// mala); nil for the stochastic-gradient samplers.
	Stats []float64
	// Attempt is the draw's attempt of a sampler = auto run that
	// escalated, from 0: the draws of a later attempt replace the earlier
	// ones'.
	Attempt int
}

// withDefaults fills the zero fields that have defaults: the sampler here,
// the run's counts as the driver fills them.
func (o Options) withDefaults() Options {
	if o.Sampler == "" {
		o.Sampler = settings.Auto
	}
	r := infer.Options{Chains: o.Chains, Iters: o.Iters, Thin: o.Thin}.WithDefaults()
	o.Chains, o.Iters, o.Thin = r.Chains, r.Iters, r.Thin
	return o
}

// settings are the sampler settings as text, the form infer reads and the
// output files record; never nil.
func (o Options) settings() (map[string]string, error) {
	out := make(map[string]string, len(o.Settings)+1)
	for k, v := range o.Settings {
		s, err := settingText(v)
		if err != nil {
			return nil, fmt.Errorf("temper: setting %s: %v", k, err)
		}
		out[k] = s
	}
	if o.Replicas > 0 {
		out["replicas"] = strconv.Itoa(o.Replicas)
	}
	return out, nil
}

func settingText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case fmt.Stringer:
		return v.String(), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'g', -1, 64), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	}
	return "", fmt.Errorf("%v (%T) is neither a number nor a name", v, v)
}

// sampler builds the configured sampler, with the settings as text.
func (o Options) sampler() (infer.Sampler, map[string]string, error) {
	o = o.withDefaults()
	settings, err := o.settings()
	if err != nil {
		return infer.Sampler{}, nil, err
	}
	s, err := infer.NewSampler(o.Sampler, settings)
	var se *infer.SettingError
	if errors.As(err, &se) && strings.HasPrefix(se.Msg, "no such setting") {
		if near := lang.Suggest(se.Key, infer.SettingNames()); near != "" {
			return s, nil, suggestion{fmt.Sprintf("sampler %s has no setting %q; did you mean %s?", o.Sampler, se.Key, near), se}
		}
	}
	return s, settings, err
}

// suggestion is a SettingError told with a likely correction.
type suggestion struct {
	msg string
	err *infer.SettingError
}

func (e suggestion) Error() string { return e.msg }
func (e suggestion) Unwrap() error { return e.err }

// Check reports what building o's sampler refuses: an unknown sampler, or
// a setting that is unknown, does not apply or has an impossible value (an
// *infer.SettingError, which settings.LocateError can place in a file).
func (o Options) Check() error {
	if o.withDefaults().auto() {
		if err := o.checkAuto(); err != nil {
			return err
		}
	} else if _, _, err := o.sampler(); err != nil {
		return err
	}
	return o.checkRun()
}

// checkAuto reports settings that neither of the samplers auto chooses
// from (sghmc and nuts) takes, with sghmc's error, and a ladder's size.
func (o Options) checkAuto() error {
	settings, err := o.settings()
	if err != nil {
		return err
	}
	if settings["replicas"] != "" {
		return fmt.Errorf("replicas = %s is the size of a replica-exchange ladder, and sampler auto runs none: name a replica-exchange sampler (resgld, deo_sgd, renhd, ...)", settings["replicas"])
	}
	if takes("nuts", settings) == nil {
		return nil
	}
	sg := o
	sg.Sampler = "sghmc"
	_, _, err = sg.sampler()
	return err
}

// checkRun reports run options the driver does not check itself.
func (o Options) checkRun() error {
	switch {
	case o.Precision != "" && o.Precision != "float64" && o.Precision != "float32":
		return fmt.Errorf("precision must be float64 or float32, got %q", o.Precision)
	case o.Threads < 0:
		return fmt.Errorf("threads must be ≥ 0 (0: GOMAXPROCS), got %d", o.Threads)
	case o.ChainID < 0:
		return fmt.Errorf("chain_id must be ≥ 1, got %d", o.ChainID)
	case o.ChainID > 0 && o.ChainID > o.withDefaults().Chains:
		return fmt.Errorf("chain_id = %d is more than chains = %d: chain_id K runs chain K of the run of chains = C (default 4), so give chains = C with C ≥ %d, the same in every task", o.ChainID, o.withDefaults().Chains, o.ChainID)
	case o.Escalate != "" && o.Escalate != "auto" && o.Escalate != "never":
		return fmt.Errorf("escalate must be auto or never, got %q", o.Escalate)
	case o.Device != "" && o.Device != "cpu" && !slices.Contains(autodiff.Devices(), o.Device):
		return autodiff.UnknownDeviceError(o.Device)
	}
	return nil
}

// evalOptions are the model evaluator's options for o.
func (o Options) evalOptions() compile.EvalOptions {
	return compile.EvalOptions{Float32: o.Precision == "float32", Threads: o.Threads, Device: o.Device}
}

// runOptions are the driver's options for o (with defaults filled).
func (o Options) runOptions() infer.Options {
	return infer.Options{
		Chains: o.Chains, Chain: o.ChainID, Iters: o.Iters, Burn: o.Burn, Thin: o.Thin, Batch: o.Batch, BatchBlocks: o.BatchBlocks, Seed: o.Seed,
		EnergyNoise: o.EnergyNoise, GradNoise: o.GradNoise, Init: o.Init, InitRadius: o.InitRadius, Threads: o.Threads,
		KeepAll: o.KeepAll, Progress: o.Progress, Transport: o.Transport,
	}
}

// readInferBlock sets the fields of o that the infer block of f gives:
// the sampler and its settings (sampler = sghmc(lr = 1e-3), or any key that
// is not a run key) and the run keys (runKeys); data and out name files
// for the caller and are only checked to be quoted. Fields the block does
// not set are left as they are. Bad values and settings are reported at
// their place in the file (an ErrorList), the sampler's settings checked
// by building it.
func (o *Options) readInferBlock(f *lang.File) error {
	if f == nil || f.Infer == nil {
		return nil
	}
	var errs lang.ErrorList
	pos := map[string]lang.Pos{}
	set := func(key, value string, at lang.Pos) {
		if o.Settings == nil {
			o.Settings = map[string]any{}
		}
		o.Settings[key], pos[key] = value, at
	}
	for _, s := range f.Infer.Settings {
		if s.Key == settings.SamplerKey {
			o.readSampler(s, set, &errs)
			continue
		}
		value, ok := settingValue(s.Value)
		if !ok {
			errs.Add(s.Pos, "%s must be a number or a name", s.Key)
			continue
		}
		k, isRunKey := settings.Lookup(s.Key)
		if !isRunKey {
			set(s.Key, value, s.Pos)
			continue
		}
		pos[s.Key] = s.Pos // replicas is also the sampler's setting
		_, quoted := s.Value.(*lang.String)
		switch err := k.Allowed(settings.InInferBlock); {
		case err != nil:
			errs.Add(s.Pos, "%v", err)
		case k.Kind == settings.Path && !quoted:
			errs.Add(s.Pos, "%s must be a quoted path", s.Key)
		case k.IsField():
			if err := settings.Set(o, s.Key, value); err != nil {
				errs.Add(s.Pos, "%v", err)
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if err := o.Check(); err != nil {
		var list lang.ErrorList
		if located := settings.LocateError(err, o.withDefaults().Sampler, pos); errors.As(located, &list) {
			return located
		}
		if s, ok := unknownSamplerPos(f); ok && strings.Contains(err.Error(), "unknown sampler") {
			errs.Add(s, "%v", err)
			return errs
		}
		return err
	}
	return nil
}

// readSampler reads sampler = name or sampler = name(key = value, ...).
func (o *Options) readSampler(s *lang.Setting, set func(key, value string, at lang.Pos), errs *lang.ErrorList) {
	switch v := s.Value.(type) {
	case *lang.Ident:
		o.Sampler = v.Name
	case *lang.SamplerSpec:
		o.Sampler = v.Name
		for _, opt := range v.Options {
			x, ok := settingValue(opt.Value)
			if !ok {
				errs.Add(opt.Pos, "sampler option %s must be a number or a name", opt.Key)
				continue
			}
			set(opt.Key, x, opt.Pos)
		}
	default:
		errs.Add(s.Pos, "sampler must be a name, as in sampler = sgld, or sgld(lr = 0.01)")
	}
}

// unknownSamplerPos is where the infer block names its sampler.
func unknownSamplerPos(f *lang.File) (lang.Pos, bool) {
	for _, s := range f.Infer.Settings {
		if s.Key == settings.SamplerKey {
			return s.Value.Position(), true
		}
	}
	return lang.Pos{}, false
}

// settingValue is a setting as text: a number, a name or a string.
func settingValue(n lang.Node) (string, bool) {
	if x, ok := numberValue(n); ok {
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	switch v := n.(type) {
	case *lang.Ident:
		return v.Name, true
	case *lang.String:
		return v.Value, true
	case *lang.NumberList: // a ladder's levels: [1, 2, 4]
		parts := make([]string, len(v.Values))
		for i, x := range v.Values {
			parts[i] = strconv.FormatFloat(x.Value, 'g', -1, 64)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	}
	return "", false
}

func numberValue(n lang.Node) (float64, bool) {
	switch v := n.(type) {
	case *lang.Number:
		return v.Value, true
	case *lang.Unary:
		if x, ok := numberValue(v.X); ok && v.Op == "-" {
			return -x, true
		}
	}
	return 0, false
}
