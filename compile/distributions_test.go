package compile_test

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang"
)

// TestEnvGivesGoldenErrors checks lang's golden errors for the newer
// distributions against the checker with compile.Env, the table the
// language really uses (lang's own tests use a hand-written copy of the
// signatures): every message expected there is produced, and no other.
func TestEnvGivesGoldenErrors(t *testing.T) {
	const name = "../lang/testdata/errors/new_distributions.ppl"
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var want []*regexp.Regexp
	for _, m := range regexp.MustCompile(`/\* ERROR ("(?:[^"\\]|\\.)*") \*/`).FindAllSubmatch(src, -1) {
		text, err := strconv.Unquote(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, regexp.MustCompile(text))
	}
	f, err := lang.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lang.Check(f, compile.Env())
	list, _ := err.(lang.ErrorList)
	for _, e := range list {
		found := false
		for i, rx := range want {
			if rx.MatchString(e.Msg) {
				want = append(want[:i], want[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			t.Errorf("unexpected error: %v", e)
		}
	}
	for _, rx := range want {
		t.Errorf("missing error matching %q", rx)
	}
}

// TestNewDistributionSupport: the checker rejects a constant outside
// von_mises's and normal_id_glm's supports at its position.
func TestNewDistributionSupport(t *testing.T) {
	src := `
data { N: int  X: real[N, 2]  y: real[N] }
param { mu: real  beta: real[2] }
model {
  mu ~ von_mises(0, 0)
  for n in plate(N) { y[n] ~ normal_id_glm(X[n], mu, beta, -1) }
}`
	_, err := tryCompile(src, map[string]any{"X": [][]float64{{1, 2}}, "y": []float64{1}})
	list, _ := err.(lang.ErrorList)
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	for _, want := range []string{"5:21: von_mises's concentration must be positive, got 0", "6:60: normal_id_glm's scale must be positive, got -1"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("errors %q, want %q", got, want)
		}
	}
}

// vectorModel uses each newer vector density in a model: per-row
// ordered_logistic and multi_normal in a plate, dirichlet and
// lkj_corr_cholesky on values built from parameters, von_mises on a
// parameter.
const vectorModel = `
data { N: int  k: int[N]  Y: real[N, 2]  alpha: real[3]  S: real[2, 2]  L: real[2, 2] }
param { eta: real  c: real[2]  mu: real[2]  z: real[3]  nu: real<lower=0> }
model {
  for n in plate(N) {
    k[n] ~ ordered_logistic(eta, [c[1], c[1] + exp(c[2])])
    Y[n] ~ multi_normal(mu, S)
  }
  softmax(z) ~ dirichlet(alpha)
  L ~ lkj_corr_cholesky(nu)
  eta ~ von_mises(0.5, 2)
}`

// TestVectorDensitiesCompile compiles vectorModel and checks that its
// energy is finite and its gradient agrees with central differences of
// the energy (h = 1e-5: error about 1e-9 on energies of order 10, hence
// 1e-6 relative with a 1e-6 floor), on every row and on a minibatch.
func TestVectorDensitiesCompile(t *testing.T) {
	data := map[string]any{
		"k":     []int{1, 3, 2, 2, 3},
		"Y":     [][]float64{{0.1, 0.2}, {-1, 0.5}, {0.3, 0.3}, {2, -1}, {0, 0}},
		"alpha": []float64{1.5, 2, 0.7},
		"S":     [][]float64{{1, 0.3}, {0.3, 2}},
		"L":     [][]float64{{1, 0}, {0.6, 0.8}},
	}
	m := compileSrc(t, vectorModel, data)
	theta := []float64{0.2, -0.4, 0.1, 0.3, -0.2, 0.5, -1, 0.2, math.Log(1.5)}
	if m.Dim() != len(theta) {
		t.Fatalf("dim %d, want %d", m.Dim(), len(theta))
	}
	for _, batch := range []int{0, 3} {
		e, g := evaluateAt(t, m, theta, batch)
		if math.IsNaN(e) || math.IsInf(e, 0) {
			t.Fatalf("batch %d: energy %v", batch, e)
		}
		for i := range theta {
			const h = 1e-5
			up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
			up[i] += h
			down[i] -= h
			eu, _ := evaluateAt(t, m, up, batch)
			ed, _ := evaluateAt(t, m, down, batch)
			if fd := (eu - ed) / (2 * h); math.Abs(g[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("batch %d: ∂U/∂θ%d = %.10g, finite difference %.10g", batch, i, g[i], fd)
			}
		}
	}
}
