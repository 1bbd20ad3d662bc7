package temper

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/godata"
	"github.com/temper-ppl/temper/lang"
)

// Model is a compiled model bound to its data. It is safe for concurrent
// use.
type Model struct {
	file *lang.File // nil for a model made by newModel
	cm   *compile.Model

	// constrainMu serialises compile.Model.Constrain, which replays one
	// shared program; everything else a run does is its own evaluator's.
	constrainMu sync.Mutex
	// exact keeps single-replica evaluators of the exact energy for
	// LogDensity, one per goroutine that needs one at a time.
	exact sync.Pool

	// nonCentred is the model with its centred hierarchies rewritten
	// (compile.Model.NonCentred), made once when an escalation asks.
	nonCentredOnce sync.Once
	nonCentred     *Model
	nonCentredDone []string
	nonCentredErr  error
}

// nonCentredModel is the model with its centred hierarchies sampled
// non-centred, and their names; none leaves m.
func (m *Model) nonCentredModel() (*Model, []string, error) {
	m.nonCentredOnce.Do(func() {
		cm, names, err := m.cm.NonCentred()
		m.nonCentred, m.nonCentredDone, m.nonCentredErr = m, names, err
		if err == nil && len(names) > 0 {
			m.nonCentred = newModel(cm)
			m.nonCentred.file = m.file
		}
	})
	return m.nonCentred, m.nonCentredDone, m.nonCentredErr
}

// Error is a problem in a model's source or in its data, found by the
// parser, the checker or the compiler. Its message renders every
// diagnostic as file:line:col, the message, the source line and a caret
// under the column; errors.As finds the lang.ErrorList it wraps.
type Error struct {
	// Errors are the diagnostics, sorted by position.
	Errors lang.ErrorList
	// Source is the text the positions refer to.
	Source []byte
}

func (e *Error) Error() string { return strings.TrimRight(lang.Format(e.Errors, e.Source), "\n") }

// Unwrap returns the lang.ErrorList.
func (e *Error) Unwrap() error { return e.Errors }

// sourceError wraps a lang.ErrorList found in err with its source; other
// errors are returned as they are.
func sourceError(err error, src []byte) error {
	var list lang.ErrorList
	if errors.As(err, &list) {
		return &Error{Errors: list, Source: src}
	}
	return err
}

// Compile parses and checks the model source src, named name in
// diagnostics, and compiles it with data: the data block's fields as Go
// values (see the package documentation). The infer block's data files are
// not read; CompileFile reads them.
func Compile(name, src string, data map[string]any) (*Model, error) {
	d, err := godata.Convert(data)
	if err != nil {
		return nil, err
	}
	return compileSource(name, []byte(src), d)
}

// CompileFile reads the model at path and compiles it with the data files
// that its infer block names (data = "file.csv", relative to the model)
// and the Go values in data, which may not repeat a field of the files.
func CompileFile(path string, data map[string]any) (*Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseCheck(path, src)
	if err != nil {
		return nil, err
	}
	files, err := readInferData(f, path)
	if err != nil {
		return nil, err
	}
	d, err := godata.Convert(data)
	if err != nil {
		return nil, err
	}
	all, err := compile.Merge(files, d)
	if err != nil {
		return nil, err
	}
	return compileFile(f, src, all)
}

func compileSource(name string, src []byte, data compile.Data) (*Model, error) {
	f, err := parseCheck(name, src)
	if err != nil {
		return nil, err
	}
	return compileFile(f, src, data)
}

func parseCheck(name string, src []byte) (*lang.File, error) {
	f, err := lang.Parse(name, src)
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		return nil, sourceError(err, src)
	}
	return f, nil
}

func compileFile(f *lang.File, src []byte, data compile.Data) (*Model, error) {
	cm, err := compile.Compile(f, data)
	if err != nil {
		return nil, sourceError(err, src)
	}
	m := newModel(cm)
	m.file = f
	return m, nil
}

// readInferData reads the data files named by the infer block of f, whose
// paths are relative to the model file at path.
func readInferData(f *lang.File, path string) (compile.Data, error) {
	if f.Infer == nil {
		return compile.Data{}, nil
	}
	var paths []string
	for _, s := range f.Infer.Settings {
		if str, ok := s.Value.(*lang.String); ok && s.Key == "data" {
			p := str.Value
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			paths = append(paths, p)
		}
	}
	return compile.ReadAll(paths, compile.DataDecls(f))
}

// newModel makes a Model of a model compiled with package compile. Its
// InferOptions are the defaults: the compiled model does not keep its
// infer block.
func newModel(cm *compile.Model) *Model {
	return &Model{cm: cm}
}

// Compiled is the underlying compiled model.
func (m *Model) Compiled() *compile.Model { return m.cm }

// Dim is the number of unconstrained parameters, the length of the points
// LogDensity takes.
func (m *Model) Dim() int { return m.cm.Dim() }

// NumData is the number of observations (rows of the plate); 0 for a model
// without one.
func (m *Model) NumData() int { return m.cm.NumData() }

// Params describes the declared parameters: name, shape, and place in the
// unconstrained vector.
func (m *Model) Params() []compile.ParamInfo { return m.cm.Params() }

// ParamColumns are the columns of the parameters, on their constrained
// scale, flattened row-major (beta.1, beta.2, ...): those of
// ConstrainParams.
func (m *Model) ParamColumns() []string { return m.cm.ParamNames() }

// Columns are the columns of every draw: lp__, the parameters (as
// ParamColumns), then the transformed parameters and the generated
// quantities, in Stan's order.
func (m *Model) Columns() []string {
	return append([]string{"lp__"}, m.cm.OutputNames()...)
}

// ConstrainParams maps an unconstrained point (length Dim) to the
// constrained parameters alone, the first columns of Constrain's: without
// the transformed parameters and generated quantities, it is cheaper and
// draws no random numbers.
func (m *Model) ConstrainParams(theta []float64) ([]float64, error) {
	if len(theta) != m.cm.Dim() {
		return nil, fmt.Errorf("temper: a point of %d values for a model of %d unconstrained parameters", len(theta), m.cm.Dim())
	}
	out := make([]float64, len(m.cm.ParamNames()))
	m.constrainMu.Lock()
	m.cm.ConstrainParams(out, theta)
	m.constrainMu.Unlock()
	return out, nil
}

// Constrain maps an unconstrained point (length Dim) to the columns of a
// draw, in the order of Columns without lp__: the constrained parameters,
// then the transformed parameters and the generated quantities (whose
// random numbers come from a stream seeded by theta's bits).
func (m *Model) Constrain(theta []float64) ([]float64, error) {
	if len(theta) != m.cm.Dim() {
		return nil, fmt.Errorf("temper: a point of %d values for a model of %d unconstrained parameters", len(theta), m.cm.Dim())
	}
	out := make([]float64, len(m.cm.OutputNames()))
	m.constrain(out, theta)
	return out, nil
}

func (m *Model) constrain(dst, theta []float64) {
	m.constrainMu.Lock()
	m.cm.Constrain(dst, theta)
	m.constrainMu.Unlock()
}

// LogDensity is the log density log p(θ | data) up to a constant at the
// unconstrained point theta (length Dim), on every row of the data (the
// exact density, not a minibatch estimate), log-Jacobians of the
// constraint transforms included. If grad is not nil it receives the
// gradient ∇ log p(θ | data) (length Dim). Goroutines may call it at once.
func (m *Model) LogDensity(theta, grad []float64) (float64, error) {
	d := m.cm.Dim()
	if len(theta) != d || grad != nil && len(grad) != d {
		return 0, fmt.Errorf("temper: LogDensity needs theta and grad of length %d, got %d and %d", d, len(theta), len(grad))
	}
	ev, _ := m.exact.Get().(infer.Evaluator)
	if ev == nil {
		var err error
		if ev, err = m.cm.Evaluator(1, 0); err != nil {
			return 0, err
		}
	}
	defer m.exact.Put(ev)
	g := grad
	if g == nil {
		g = make([]float64, d)
	}
	var energy, variance [1]float64
	if err := ev.Evaluate(theta, nil, energy[:], g, variance[:]); err != nil {
		return 0, err
	}
	for i := range g {
		g[i] = -g[i]
	}
	return -energy[0], nil
}

// InferOptions are the run settings of the model's infer block (sampler,
// its settings, chains, iters, burn, thin, batch, seed, keep and the noise
// scales), over the zero Options; a Model made by newModel has none.
func (m *Model) InferOptions() (Options, error) {
	var o Options
	if m.file == nil {
		return o, nil
	}
	err := o.readInferBlock(m.file)
	return o, err
}

// target is the model as infer sees it, with Constrain made safe for
// concurrent runs.
type target struct {
	m    *Model
	eval compile.EvalOptions
}

func (t target) Dim() int     { return t.m.cm.Dim() }
func (t target) NumData() int { return t.m.cm.NumData() }
func (t target) Evaluator(p, batch int) (infer.Evaluator, error) {
	return t.m.cm.EvaluatorWith(p, batch, t.eval)
}
func (t target) EvaluatorThreads(p, batch, threads int) (infer.Evaluator, error) {
	o := t.eval
	o.Threads = threads
	return t.m.cm.EvaluatorWith(p, batch, o)
}
func (t target) Strata() ([]int32, int)         { return t.m.cm.Strata() }
func (t target) OutputNames() []string          { return t.m.cm.OutputNames() }
func (t target) Constrain(dst, theta []float64) { t.m.constrain(dst, theta) }
func (t target) ConstrainSeeded(dst, theta []float64, seed uint64) {
	t.m.constrainMu.Lock()
	t.m.cm.ConstrainSeeded(dst, theta, seed)
	t.m.constrainMu.Unlock()
}

// priorModel is m with its likelihood left out: its prior part, which
// PowerParts makes and checks (a prior that cannot be sampled, a flat one,
// is refused, as a term it cannot tell apart).
func (m *Model) priorModel() (*Model, error) {
	p, _, err := m.cm.PowerParts()
	if err != nil {
		return nil, fmt.Errorf("--prior samples the prior alone, which must be told apart from the likelihood and proper: %w", err)
	}
	return &Model{file: m.file, cm: p.(*compile.Model)}, nil
}

// runColumns are the columns of a run's draws with opts: Columns, then
// the pointwise log-likelihood's with Options.LogLik.
func (m *Model) runColumns(opts Options) []string {
	if opts.LogLik {
		return append(m.Columns(), compile.LogLikNames(m.NumData())...)
	}
	return m.Columns()
}

// logLikTarget is a target whose draws' columns end with the pointwise
// log-likelihood (Options.LogLik).
type logLikTarget struct {
	target
	mu    *sync.Mutex
	ll    *compile.LogLik
	names []string
}

// withLogLik is t with the pointwise log-likelihood's columns, or the
// model's reason for having none.
func (t target) withLogLik() (logLikTarget, error) {
	ll, err := t.m.cm.LogLik()
	if err != nil {
		return logLikTarget{}, err
	}
	return logLikTarget{target: t, mu: &sync.Mutex{}, ll: ll, names: compile.LogLikNames(ll.N())}, nil
}

func (t logLikTarget) OutputNames() []string {
	return append(t.target.OutputNames(), t.names...)
}
func (t logLikTarget) Constrain(dst, theta []float64) {
	k := len(dst) - len(t.names)
	t.target.Constrain(dst[:k], theta)
	t.logLik(dst[k:], theta)
}
func (t logLikTarget) ConstrainSeeded(dst, theta []float64, seed uint64) {
	k := len(dst) - len(t.names)
	t.target.ConstrainSeeded(dst[:k], theta, seed)
	t.logLik(dst[k:], theta)
}
func (t logLikTarget) logLik(dst, theta []float64) {
	t.mu.Lock()
	t.ll.Eval(dst, theta)
	t.mu.Unlock()
}

// PowerParts splits the model's energy for a ladder on the power path
// (infer.PowerTarget): the prior's and the likelihood's, evaluated with
// the run's precision, goroutines and device as the whole model is.
func (t target) PowerParts() (prior, likelihood infer.Target, err error) {
	p, l, err := t.m.cm.PowerParts()
	if err != nil {
		return nil, nil, err
	}
	return partTarget{p.(*compile.Model), t.eval}, partTarget{l.(*compile.Model), t.eval}, nil
}

// partTarget is one part of a power split, evaluated as target evaluates
// the whole model.
type partTarget struct {
	cm   *compile.Model
	eval compile.EvalOptions
}

func (t partTarget) Dim() int     { return t.cm.Dim() }
func (t partTarget) NumData() int { return t.cm.NumData() }
func (t partTarget) Evaluator(p, batch int) (infer.Evaluator, error) {
	return t.cm.EvaluatorWith(p, batch, t.eval)
}
func (t partTarget) EvaluatorThreads(p, batch, threads int) (infer.Evaluator, error) {
	o := t.eval
	o.Threads = threads
	return t.cm.EvaluatorWith(p, batch, o)
}
func (t partTarget) OutputNames() []string          { return t.cm.OutputNames() }
func (t partTarget) Constrain(dst, theta []float64) { t.cm.Constrain(dst, theta) }
