package temper

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/lang"
)

// Options choose a sampler and configure a run. The zero value of every
// field is its default, so the zero Options run SGLD (step size 1e-4) with
// 4 chains of 2,000 iterations from seed 0, every row of the data at each
// step.
type Options struct {
	// Sampler is a preset: sgd, msgd, sgld, sghmc, sgnht,
	// adaptive_langevin, cyclical_sgld, cyclical_sghmc, snapshot, reld,
	// resgld, m_resgld, f_resgld, deo_sgd, deo_msgd, deo_psgd, renhd or
	// renhd_reld
	// (infer.SamplerNames, infer.SamplerDoc). Empty means sgld.
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

	// KeepAll keeps the draws of every level of a replica-exchange ladder,
	// not only the target level's (Result.All; the draws file gains the
	// replica__, temperature__ and lr__ columns).
	KeepAll bool
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
	// Init, if set, is each chain's unconstrained starting point (Chains ×
	// Dim); by default every coordinate starts uniform in [-2, 2].
	Init [][]float64

	// OnDraw, if set, receives every kept draw as it is made, on the
	// goroutine that called Sample; an error stops the run.
	OnDraw func(Draw) error
	// Progress, if set, is called after every iteration with the number
	// done and the total (burn-in included), and for replica-exchange and
	// cyclical runs the swap rates, round trips, cycle and stage.
	Progress func(Progress)
}

// Progress is what a run reports after each iteration (infer.Progress).
type Progress = infer.Progress

// Draw is one kept state of one chain (of one level of its ladder, with
// KeepAll).
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
}

// withDefaults fills the zero fields that have defaults: the sampler here,
// the run's counts as the driver fills them.
func (o Options) withDefaults() Options {
	if o.Sampler == "" {
		o.Sampler = "sgld"
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
// *infer.SettingError, which LocateSettingError can place in a file).
func (o Options) Check() error {
	if _, _, err := o.sampler(); err != nil {
		return err
	}
	return o.checkRun()
}

// LocateSettingError turns a sampler setting error into a diagnostic at the
// place in the file where the setting was written (positions maps setting
// names to places), and returns any other error, or one whose setting was
// not written in the file, unchanged.
func LocateSettingError(err error, sampler string, positions map[string]lang.Pos) error {
	var se *infer.SettingError
	if !errors.As(err, &se) {
		return err
	}
	at, ok := positions[se.Key]
	for k, p := range positions { // a message about two settings: t_min = 1 must be below t_max = 0.5
		if !ok && strings.Contains(se.Msg, k+" = ") {
			at, ok = p, true
		}
	}
	if !ok {
		return err
	}
	var errs lang.ErrorList
	if strings.HasPrefix(se.Msg, "no such setting") {
		msg := fmt.Sprintf("%q is neither a run setting (%s) nor a setting of sampler %s", se.Key, strings.Join(runSettings, ", "), sampler)
		if near := lang.Suggest(se.Key, append(slices.Clone(runSettings), infer.SettingNames()...)); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		errs.Add(at, "%s", msg)
	} else {
		errs.Add(at, "%v", se)
	}
	return errs
}

// IsRunSetting reports whether an infer-block key configures the run (or
// names files) rather than the sampler.
func IsRunSetting(key string) bool { return slices.Contains(runSettings, key) }

// SetRunSetting sets the run setting key (chains, iters, burn, thin,
// batch, seed, threads, precision, keep, energy_noise or grad_noise) from
// its text, as an
// infer block or the REPL's :run writes it.
func (o *Options) SetRunSetting(key, value string) error {
	switch key {
	case "chains", "iters", "burn", "thin", "batch", "seed", "threads":
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || x != math.Trunc(x) || x < 0 || x > 1<<53 {
			return fmt.Errorf("%s must be a whole number ≥ 0, got %q", key, value)
		}
		switch n := int(x); key {
		case "chains":
			o.Chains = n
		case "iters":
			o.Iters = n
		case "burn":
			o.Burn = n
		case "thin":
			o.Thin = n
		case "batch":
			o.Batch = n
		case "seed":
			o.Seed = uint64(n)
		case "threads":
			o.Threads = n
		}
	case "precision":
		if value != "float64" && value != "float32" {
			return fmt.Errorf("precision must be float64 or float32, got %q", value)
		}
		o.Precision = value
	case "keep":
		if value != "all" && value != "target" {
			return fmt.Errorf("keep must be target or all, got %q", value)
		}
		o.KeepAll = value == "all"
	case "energy_noise", "grad_noise":
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%s must be a number ≥ 0, got %q", key, value)
		}
		if key == "energy_noise" {
			o.EnergyNoise = x
		} else {
			o.GradNoise = x
		}
	default:
		return fmt.Errorf("%s is not a run setting (chains, iters, burn, thin, batch, seed, threads, precision, keep, energy_noise, grad_noise)", key)
	}
	return nil
}

// checkRun reports run options the driver does not check itself.
func (o Options) checkRun() error {
	switch {
	case o.Precision != "" && o.Precision != "float64" && o.Precision != "float32":
		return fmt.Errorf("precision must be float64 or float32, got %q", o.Precision)
	case o.Threads < 0:
		return fmt.Errorf("threads must be ≥ 0 (0: GOMAXPROCS), got %d", o.Threads)
	}
	return nil
}

// evalOptions are the model evaluator's options for o.
func (o Options) evalOptions() compile.EvalOptions {
	return compile.EvalOptions{Float32: o.Precision == "float32", Threads: o.Threads}
}

// runOptions are the driver's options for o (with defaults filled).
func (o Options) runOptions() infer.Options {
	return infer.Options{
		Chains: o.Chains, Iters: o.Iters, Burn: o.Burn, Thin: o.Thin, Batch: o.Batch, Seed: o.Seed,
		EnergyNoise: o.EnergyNoise, GradNoise: o.GradNoise, Init: o.Init, Threads: o.Threads,
		KeepAll: o.KeepAll, Progress: o.Progress,
	}
}

// runSettings are the keys of an infer block that configure the run rather
// than the sampler; every other key is a sampler setting.
var runSettings = []string{"sampler", "chains", "iters", "burn", "thin", "batch", "seed", "threads", "precision", "data", "out", "keep", "energy_noise", "grad_noise"}

// ReadInferBlock sets the fields of o that the infer block of f gives:
// the sampler and its settings (sampler = sghmc(lr = 1e-3), or any other
// key), chains, iters, burn, thin, batch, seed, keep (target or all) and
// the noise scales; data and out concern files, not the run, and are
// skipped. Fields the block does not set are left as they are. Bad values
// and settings are reported at their place in the file (an ErrorList),
// the sampler's settings checked by building it.
func (o *Options) ReadInferBlock(f *lang.File) error {
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
		switch s.Key {
		case "sampler":
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
		case "data", "out":
		case "chains", "iters", "burn", "thin", "batch", "seed", "threads", "precision", "keep", "energy_noise", "grad_noise":
			v, ok := settingValue(s.Value)
			err := fmt.Errorf("%s must be a number or a name", s.Key)
			if ok {
				err = o.SetRunSetting(s.Key, v)
			}
			if err != nil {
				errs.Add(s.Pos, "%v", err)
			}
		default:
			x, ok := settingValue(s.Value)
			if !ok {
				errs.Add(s.Pos, "%s must be a number or a name", s.Key)
				continue
			}
			set(s.Key, x, s.Pos)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if err := o.Check(); err != nil {
		var list lang.ErrorList
		if located := LocateSettingError(err, o.withDefaults().Sampler, pos); errors.As(located, &list) {
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

// unknownSamplerPos is where the infer block names its sampler.
func unknownSamplerPos(f *lang.File) (lang.Pos, bool) {
	for _, s := range f.Infer.Settings {
		if s.Key == "sampler" {
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
