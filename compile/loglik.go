package compile

import (
	"errors"
	"fmt"
)

// The pointwise log-likelihood log p(y_n | θ), one value per row n of the
// model's plate: the sum of the row's likelihood terms, which are the ~
// statements in the plate whose left side is data (PowerParts' rule: one
// whose left side depends on a parameter is a prior) and the target +=
// terms in the plate, which a model writes for likelihoods that no
// distribution names (a mixture's log_sum_exp). Every likelihood term of
// the model must be in the plate: the rows must account for all of it, as
// PSIS-LOO leaves out one row's terms at a time.

var errLogLikOutsidePlate = errors.New("the pointwise log-likelihood is per row of the plate, and this model's likelihood has terms outside it (a ~ statement of data, or a target += term, outside `for n in plate(N)`): move them into the plate, one term per row")

// LogLik evaluates the pointwise log-likelihood at unconstrained points.
// It is not safe for concurrent use.
type LogLik struct {
	e *evaluator[float64]
	n int
}

// LogLik prepares the model's pointwise log-likelihood, or says why the
// model has none.
func (m *Model) LogLik() (*LogLik, error) { return m.logLik(nil) }

// LogLikRows is LogLik of the given rows alone (from 0, in their order):
// subsampled LOO evaluates a few rows at every draw.
func (m *Model) LogLikRows(rows []int) (*LogLik, error) {
	for _, r := range rows {
		if r < 0 || r >= m.n {
			return nil, fmt.Errorf("row %d of %d", r+1, m.n)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows to evaluate")
	}
	return m.logLik(rows)
}

func (m *Model) logLik(rows []int) (*LogLik, error) {
	if m.n == 0 {
		return nil, fmt.Errorf("the pointwise log-likelihood needs the observations in a plate (for n in plate(N) { y[n] ~ ... }); %s has none", m.SourceName())
	}
	split, _ := m.powerSplit() // which ~ statements are priors; the prior's normalisation does not matter here
	l := *m
	l.part, l.power = logLikPart, split
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	b, err := l.build(1, n)
	if err != nil {
		return nil, err
	}
	if b.rowLL == nil {
		return nil, errLogLikOutsidePlate
	}
	prog, err := b.g.Compile(b.rowLL)
	if err != nil {
		return nil, fmt.Errorf("compiling the pointwise log-likelihood: %v", err)
	}
	e, err := newEvaluator(&l, b, prog, 1, 1)
	if err != nil {
		return nil, err
	}
	if rows != nil && !e.exact {
		if err := b.setRows(prog, rows, false); err != nil {
			return nil, err
		}
	}
	return &LogLik{e: e, n: n}, nil
}

// N is the number of rows, the length of Eval's output.
func (l *LogLik) N() int { return l.n }

// Eval writes log p(y_n | θ) of every row n into dst (length N) at the
// unconstrained point theta.
func (l *LogLik) Eval(dst, theta []float64) {
	l.e.setTheta(theta)
	l.e.prog.Forward()
	copy(dst, l.e.prog.Value(l.e.rowLL))
}

// LogLikNames are the pointwise log-likelihood's columns, log_lik.1 ...
// log_lik.N, as Stan's generated quantities name them.
func LogLikNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("log_lik.%d", i+1)
	}
	return names
}
