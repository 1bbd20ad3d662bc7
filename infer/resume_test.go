package infer_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// regression is a linear regression y_n = a + b x_n + N(0, 1) on 200 rows
// with N(0, 10²) priors, minibatched: a target whose runs deal minibatches,
// so that resuming must continue the dealers' permutations too.
type regression struct{ x, y []float64 }

func newRegression() regression {
	var r regression
	for n := range 200 {
		x := float64(n%17)/8 - 1
		r.x = append(r.x, x)
		r.y = append(r.y, 1+2*x+math.Sin(float64(n)))
	}
	return r
}

// posterior is the exact Gaussian posterior of the energy below: precision
// XᵀX + I/100, mean its inverse times Xᵀy.
func (g regression) posterior() (mean [2]float64, cov [2][2]float64) {
	var sxx, sx, n, sxy, sy float64
	for i, x := range g.x {
		sxx, sx, n, sxy, sy = sxx+x*x, sx+x, n+1, sxy+x*g.y[i], sy+g.y[i]
	}
	p := [2][2]float64{{n + 0.01, sx}, {sx, sxx + 0.01}}
	det := p[0][0]*p[1][1] - p[0][1]*p[1][0]
	cov = [2][2]float64{{p[1][1] / det, -p[0][1] / det}, {-p[1][0] / det, p[0][0] / det}}
	mean = [2]float64{cov[0][0]*sy + cov[0][1]*sxy, cov[1][0]*sy + cov[1][1]*sxy}
	return mean, cov
}

func (g regression) Dim() int                       { return 2 }
func (g regression) NumData() int                   { return len(g.y) }
func (g regression) OutputNames() []string          { return []string{"a", "b"} }
func (g regression) Constrain(dst, theta []float64) { copy(dst, theta) }
func (g regression) Evaluator(_, batch int) (infer.Evaluator, error) {
	return regressionEvaluator{g, batch}, nil
}

type regressionEvaluator struct {
	regression
	batch int
}

func (e regressionEvaluator) BatchSize() int { return e.batch }

// Evaluate is the energy (N/B) Σ_batch (y - a - b x)²/2 + (a² + b²)/200 with
// the variance of the scaled sum over minibatches, from the batch's spread.
func (e regressionEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	n := len(e.y)
	for p := range energy {
		a, b := theta[2*p], theta[2*p+1]
		batch := rows
		if e.batch > 0 {
			batch = rows[p*e.batch : (p+1)*e.batch]
		} else {
			batch = nil
		}
		m := len(batch)
		if batch == nil {
			m = n
		}
		scale := float64(n) / float64(m)
		var sum, sum2, ga, gb float64
		for i := range m {
			j := i
			if batch != nil {
				j = batch[i]
			}
			r := e.y[j] - a - b*e.x[j]
			sum += r * r / 2
			sum2 += r * r * r * r / 4
			ga -= r
			gb -= r * e.x[j]
		}
		energy[p] = scale*sum + (a*a+b*b)/200
		grad[2*p], grad[2*p+1] = scale*ga+a/100, scale*gb+b/100
		variance[p] = 0
		if batch != nil {
			mean := sum / float64(m)
			variance[p] = scale * scale * float64(m) * max(0, sum2/float64(m)-mean*mean)
		}
	}
	return nil
}

// samplerCase is a sampler with settings and a burn-in.
type samplerCase struct {
	name     string
	settings map[string]string
	burn     int
}

// samplerCases cover every part of the State: momenta (sghmc), a cyclical
// schedule (whose K is given by hand, since a resumed run keeps the K it
// started with), an adaptive ladder and buffer (deo_sgd, adapting across
// a checkpoint at iteration 150), the second estimator of m-reSGLD, RENHD's
// thermostats, restarts and growing Barker exchange minibatch, and a tuned
// run (metric, step) whose control variate's centres are refreshed.
var samplerCases = []samplerCase{
	{"sgld", map[string]string{"lr": "1e-3"}, 20},
	{"sghmc", map[string]string{"lr": "1e-4"}, 20},
	{"cyclical_sgld", map[string]string{"lr": "2e-3", "schedule_iterations": "300", "cycles": "3"}, 0},
	{"deo_sgd", map[string]string{"lr_min": "1e-4", "lr_max": "5e-3", "replicas": "4"}, 200},
	{"deo_sgd", map[string]string{"lr_min": "1e-4", "lr_max": "5e-3", "replicas": "4", "adapt": "always"}, 20},
	{"m_resgld", map[string]string{"lr": "1e-3", "t_max": "3"}, 20},
	{"renhd", map[string]string{"lr": "1e-4", "tau": "1.2", "replicas": "3", "every": "3", "exchange_batch": "40"}, 20},
	{"sghmc", map[string]string{"gradient": "control_variate", "cv_refresh": "40"}, 20},
}

// TestResumeBitIdentical runs each sampler straight for 2K iterations, and
// again as a run of K stopped with a checkpoint (written and read back
// through WriteState and ReadState) and resumed for K more: the two must
// make the same draws, bit for bit, and end with the same ladders
// (samplerCases).
func TestResumeBitIdentical(t *testing.T) {
	const half = 150
	target := newRegression()
	for _, c := range samplerCases {
		s, err := infer.NewSampler(c.name, c.settings)
		if err != nil {
			t.Fatal(err)
		}
		o := infer.Options{Chains: 2, Burn: c.burn, Iters: 2*half - c.burn, Batch: 50, Seed: 11, KeepAll: true, Fingerprint: "regression"}
		straight, err := infer.Run(context.Background(), target, s, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The first part ends at iteration K: a complete run of K when its
		// burn-in fits, otherwise the straight run stopped there as Ctrl-C
		// stops it (the checkpoint is then written on the way out).
		var saved bytes.Buffer
		o.Checkpoint = func(st *infer.State) error { saved.Reset(); return infer.WriteState(&saved, st) }
		ctx, cancel := context.WithCancel(context.Background())
		if c.burn < half {
			o.Iters = half - c.burn
		} else {
			o.Progress = func(p infer.Progress) {
				if p.Done == half {
					cancel()
				}
			}
		}
		first, err := infer.Run(ctx, target, s, o)
		cancel()
		if err != nil && !(c.burn >= half && errors.Is(err, context.Canceled)) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if first.Iterations != half {
			t.Fatalf("%s: the first part ran %d iterations, want %d", c.name, first.Iterations, half)
		}
		st, err := infer.ReadState(&saved)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		o.Checkpoint, o.Progress, o.Burn, o.Iters, o.Resume = nil, nil, 0, half, st
		second, err := infer.Run(context.Background(), target, s, o)
		if err != nil {
			t.Fatalf("%s: resumed: %v", c.name, err)
		}
		if second.Iterations != 2*half {
			t.Errorf("%s: the resumed run ends at iteration %d, want %d", c.name, second.Iterations, 2*half)
		}
		for ch := range o.Chains {
			levels := max(1, s.Replicas)
			for l := range levels {
				want, got := straight.All[ch][l], append(slices.Clone(first.All[ch][l]), second.All[ch][l]...)
				if len(want) == 0 || !slices.EqualFunc(want, got, slices.Equal[[]float64]) {
					t.Errorf("%s: chain %d level %d: %d draws straight, %d + %d resumed, not the same", c.name, ch+1, l+1, len(want), len(first.All[ch][l]), len(second.All[ch][l]))
				}
				if !slices.Equal(straight.AllLevels[ch][l], append(slices.Clone(first.AllLevels[ch][l]), second.AllLevels[ch][l]...)) {
					t.Errorf("%s: chain %d level %d: the levels' step sizes and temperatures differ", c.name, ch+1, l+1)
				}
			}
			if straight.Exchange != nil {
				a, b := straight.Exchange[ch], second.Exchange[ch]
				if !slices.Equal(a.Ladder, b.Ladder) || a.Buffer != b.Buffer || !slices.Equal(a.Accepts, b.Accepts) || a.RoundTrips != b.RoundTrips {
					t.Errorf("%s: chain %d ends with ladder %v, buffer %g, accepts %v, %d round trips straight; %v, %g, %v, %d resumed",
						c.name, ch+1, a.Ladder, a.Buffer, a.Accepts, a.RoundTrips, b.Ladder, b.Buffer, b.Accepts, b.RoundTrips)
				}
			}
		}
	}
}

// TestResumeRefused: a checkpoint is continued only by the run that wrote
// it, and a damaged file is refused.
func TestResumeRefused(t *testing.T) {
	target := newRegression()
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "1e-3"})
	if err != nil {
		t.Fatal(err)
	}
	var saved bytes.Buffer
	o := infer.Options{Chains: 2, Iters: 20, Batch: 50, Seed: 3, Fingerprint: "model A",
		Checkpoint: func(st *infer.State) error { saved.Reset(); return infer.WriteState(&saved, st) }}
	if _, err := infer.Run(context.Background(), target, s, o); err != nil {
		t.Fatal(err)
	}
	raw := saved.Bytes()
	for _, c := range []struct {
		name   string
		file   []byte
		change func(*infer.Options)
		want   string
	}{
		{"another model", raw, func(o *infer.Options) { o.Fingerprint = "model B" }, "another model, data or sampler"},
		{"another seed", raw, func(o *infer.Options) { o.Seed = 4 }, "seed 3"},
		{"more chains", raw, func(o *infer.Options) { o.Chains = 3 }, "it has 2 chains, this run asks for 3"},
		{"full batch", raw, func(o *infer.Options) { o.Batch = 0 }, "minibatches do not match"},
		{"a burn-in", raw, func(o *infer.Options) { o.Burn = 5 }, "burn is fixed by the run being resumed"},
		{"truncated", raw[:len(raw)-10], nil, "checksum does not match"},
		{"changed", append(slices.Clone(raw[:len(raw)/2]), append([]byte{raw[len(raw)/2] ^ 1}, raw[len(raw)/2+1:]...)...), nil, "checksum does not match"},
		{"not a checkpoint", []byte("chain,iter,lp__\n1,1,0\n"), nil, "does not start with"},
	} {
		st, err := infer.ReadState(bytes.NewReader(c.file))
		if err == nil {
			ro := o
			ro.Checkpoint, ro.Resume = nil, st
			c.change(&ro)
			_, err = infer.Run(context.Background(), target, s, ro)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if c.name != "a burn-in" && !errors.Is(err, infer.ErrBadCheckpoint) {
			t.Errorf("%s: %v does not wrap ErrBadCheckpoint", c.name, err)
		}
	}
}
