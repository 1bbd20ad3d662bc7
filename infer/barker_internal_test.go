package infer

import (
	"math"
	"testing"
)

// rowsTarget is a target with data: Ũ(θ) = (N/B) Σ_{i ∈ batch} (θ - y_i)²/2
// with the finite-population variance estimate a compiled model reports,
// N²(1 - B/N) s²/B for the batch's sample variance s² of the row terms.
type rowsTarget struct{ y []float64 }

func (t rowsTarget) Dim() int                       { return 1 }
func (t rowsTarget) NumData() int                   { return len(t.y) }
func (t rowsTarget) OutputNames() []string          { return []string{"theta"} }
func (t rowsTarget) Constrain(dst, theta []float64) { copy(dst, theta) }
func (t rowsTarget) Evaluator(_, batch int) (Evaluator, error) {
	return rowsEvaluator{t, batch}, nil
}

type rowsEvaluator struct {
	rowsTarget
	batch int
}

func (e rowsEvaluator) BatchSize() int { return e.batch }

func (e rowsEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	n := float64(len(e.y))
	for r, x := range theta {
		idx := rows
		if rows != nil {
			idx = rows[r*e.batch : (r+1)*e.batch]
		} else {
			idx = make([]int, len(e.y))
			for i := range idx {
				idx[i] = i
			}
		}
		b := float64(len(idx))
		var sum, sum2, g float64
		for _, i := range idx {
			l := (x - e.y[i]) * (x - e.y[i]) / 2
			sum += l
			sum2 += l * l
			g += x - e.y[i]
		}
		energy[r], grad[r] = n/b*sum, n/b*g
		variance[r] = 0
		if rows != nil {
			s2 := (sum2 - sum*sum/b) / (b - 1)
			variance[r] = n * n * (1 - b/n) * s2 / b
		}
	}
	return nil
}

// TestExchangeBatchGrows checks the growing exchange minibatch of the
// Barker test on data: m chunks of B rows are a sample of mB distinct rows,
// so the estimate is exact, with variance 0, once they cover the data; and
// for m < N/B the reported variance, the chunks' mean estimate rescaled by
// the finite-population correction, matches the estimate's spread over
// rounds.
func TestExchangeBatchGrows(t *testing.T) {
	const n, batch = 120, 10
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Sin(float64(i)) * float64(i%7)
	}
	target := rowsTarget{y}
	theta := []float64{0.3, -1.2}
	exact := make([]float64, 2)
	ev, _ := target.Evaluator(2, 0)
	ev.Evaluate(theta, nil, exact, make([]float64, 2), make([]float64, 2))

	var ss *SideState
	se, err := newSideEstimator(target, Options{Seed: 1}, 2, batch, 1<<42, &ss)
	if err != nil {
		t.Fatal(err)
	}
	if se.maxChunks() != n/batch {
		t.Fatalf("maxChunks %d, want %d", se.maxChunks(), n/batch)
	}
	exactAfterAll(t, target, theta, exact, batch+3)
	se.start()
	for range n / batch {
		if err := se.grow(theta); err != nil {
			t.Fatal(err)
		}
	}
	for r := range theta {
		if math.Abs(se.Energy[r]-exact[r]) > 1e-9*math.Abs(exact[r]) || se.Variance[r] != 0 {
			t.Errorf("replica %d after every row: energy %v variance %v, want %v and 0", r, se.Energy[r], se.Variance[r], exact[r])
		}
	}

	// Three chunks, 20,000 rounds: the spread of the estimate against the
	// mean reported variance. A sample variance of 20,000 normal draws has
	// a relative standard error of √(2/20000) = 1 %, and the row terms here
	// are skewed, so 4 % is a wide margin; leaving out the finite-population
	// correction (1 - 3B/N)/(1 - B/N) would be 18 % off.
	const rounds, m = 20000, 3
	mean, spread, reported, err := spreadOverRounds(se, theta, m, rounds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact %.4f, mean %.4f; variance over rounds %.4f, reported %.4f", exact[0], mean, spread, reported)
	if math.Abs(spread/reported-1) > 0.04 {
		t.Errorf("variance over rounds %.4f, mean reported %.4f", spread, reported)
	}
	if math.Abs(mean-exact[0]) > 4*math.Sqrt(spread/rounds) {
		t.Errorf("mean estimate %.4f, exact %.4f: biased", mean, exact[0])
	}
}

// exactAfterAll checks a round whose chunks of batch rows do not divide the
// data: its last chunk is the exact energy, variance 0.
func exactAfterAll(t *testing.T, target Target, theta, exact []float64, batch int) {
	t.Helper()
	var ss *SideState
	se, err := newSideEstimator(target, Options{Seed: 2}, len(exact), batch, 1<<43, &ss)
	if err != nil {
		t.Fatal(err)
	}
	want := (target.NumData() + batch - 1) / batch
	if se.maxChunks() != want {
		t.Fatalf("batch %d: maxChunks %d, want %d", batch, se.maxChunks(), want)
	}
	se.start()
	for range want {
		if err := se.grow(theta); err != nil {
			t.Fatal(err)
		}
	}
	for r := range exact {
		if math.Abs(se.Energy[r]-exact[r]) > 1e-9*math.Abs(exact[r]) || se.Variance[r] != 0 {
			t.Errorf("batch %d, replica %d after every chunk: energy %v variance %v, want %v and 0", batch, r, se.Energy[r], se.Variance[r], exact[r])
		}
	}
}
