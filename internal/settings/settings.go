// Package settings reads a run's settings as text, as the infer block,
// temper run's flags and --set and the REPL's :run write them: the table
// of run keys (chains, iters, seed, ...), where each may be written, the
// names of the samplers, and the placing of a bad setting at its line.
// The table itself is package temper's (its entries set the fields of
// temper.Options), which registers it when it is initialised.
package settings

import (
	"fmt"
	"slices"
	"strings"

	"errors"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/lang"
)

// Auto is the sampler of a run that names none: temper.Model.Plan chooses
// between NUTS on the full data and SGHMC on minibatches.
const Auto = "auto"

// IsAuto reports whether a run that names sampler leaves it to the plan
// (temper.Model.Plan): auto, or none.
func IsAuto(sampler string) bool { return sampler == "" || sampler == Auto }

// keys is the table of run keys, in the order help lists them (Register).
var keys []RunKey

// Register sets the table of run keys; package temper calls it once, when
// it is initialised.
func Register(table []RunKey) { keys = table }

// Keys is the table of run keys, in the order help lists them. Any other
// key of an infer block, --set or :run is a sampler setting.
func Keys() []RunKey { return slices.Clone(keys) }

// RunKey is one setting of a run rather than of its sampler: the infer
// block, temper run's flags and --set, and the REPL's :run all read it
// through one table (package temper's, registered here), so that its spelling, checks and doc are written once.
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
	// Set parses the text into o, a *temper.Options, and reports an
	// impossible value, in words that follow the key's name ("must
	// be ..."). It is nil for data and out, which name files that the
	// caller reads and writes rather than fields of Options.
	Set func(o any, text string) error
	// Get is the field's value in o, a temper.Options, for the files that
	// record a run's settings (the draws file's header,
	// diagnostics.json); nil for the keys about files.
	Get func(o any) any
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

	Everywhere = InInferBlock | OnCommandLine | InREPL
	InFiles    = InInferBlock | OnCommandLine // keys about files, which a REPL session keeps in memory
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

// Lookup finds a run key by its name or its flag spelling.
func Lookup(name string) (RunKey, bool) {
	for _, k := range keys {
		if k.Name == name || k.Flag == name {
			return k, true
		}
	}
	return RunKey{}, false
}

// Names are the names of the run keys allowed at w.
func Names(w Where) []string {
	var names []string
	for _, k := range keys {
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
func (k RunKey) IsField() bool { return k.Set != nil }

// IsRunSetting reports whether an infer-block key configures the run (or
// names files, or the sampler) rather than the sampler's settings.
func IsRunSetting(key string) bool {
	_, ok := Lookup(key)
	return ok || key == SamplerKey
}

// SamplerKey names the sampler in an infer block: sampler = sghmc(lr = 1e-3).
const SamplerKey = "sampler"

// Set sets the run key named key of o, a *temper.Options (by name or flag
// spelling), from its text, as an infer block, a flag or the REPL's :run
// writes it, and reports an impossible value. It does not check where the
// key may be written (RunKey.Allowed).
func Set(o any, key, value string) error {
	k, ok := Lookup(key)
	if !ok {
		return fmt.Errorf("%s is not a run setting (%s)", key, strings.Join(Names(Everywhere), ", "))
	}
	if err := k.Parse(o, value); err != nil {
		return fmt.Errorf("%s %w", k.Name, err)
	}
	return nil
}

// Parse sets k's field of o, a *temper.Options, from text, or says what the value must be
// ("must be a whole number ≥ 1, got "0""), for the caller to put after the
// key as its user spelt it (replicas, --replicas).
func (k RunKey) Parse(o any, text string) error {
	if k.Kind == Choice && !slices.Contains(k.Choices, text) {
		return fmt.Errorf("must be %s, got %q", strings.Join(k.Choices, " or "), text)
	}
	if k.Set == nil {
		return fmt.Errorf("names files, which Options does not hold")
	}
	return k.Set(o, text)
}

// LocateError turns a sampler setting error into a diagnostic at the
// place in the file where the setting was written (positions maps setting
// names to places), and returns any other error, or one whose setting was
// not written in the file, unchanged.
func LocateError(err error, sampler string, positions map[string]lang.Pos) error {
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
		runKeys := append([]string{SamplerKey}, Names(InInferBlock)...)
		msg := fmt.Sprintf("%q is neither a run setting (%s) nor a setting of sampler %s", se.Key, strings.Join(runKeys, ", "), sampler)
		if near := lang.Suggest(se.Key, append(runKeys, infer.SettingNames()...)); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		errs.Add(at, "%s", msg)
	} else {
		errs.Add(at, "%v", se)
	}
	return errs
}

// Format writes sampler settings as (key=value, ...) in key order.
func Format(o map[string]string) string {
	if len(o) == 0 {
		return ""
	}
	var parts []string
	for k, v := range o {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return "(" + strings.Join(parts, ", ") + ")"
}

// autoDoc is auto's line in the lists of samplers.
const autoDoc = "the default: NUTS where a full-data gradient makes it take under a minute, else SGHMC on minibatches; a run that fails its judgement escalates (docs/defaults.md, \"What the defaults do\"); settings choose for it: lr or friction run sghmc, adapt_delta nuts"

// SamplerNames are the samplers a run can name: auto, then infer's
// presets.
func SamplerNames() []string { return append([]string{Auto}, infer.SamplerNames()...) }

// SamplerDoc is a sampler's one-line description (infer.SamplerDoc, and
// auto's).
func SamplerDoc(name string) string {
	if name == Auto {
		return autoDoc
	}
	return infer.SamplerDoc(name)
}
