package compile_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

func compileGenerator(src string, data map[string]any) (*compile.Generator, error) {
	f, d, err := parseWithData("gen.ppl", src, data)
	if err != nil {
		return nil, err
	}
	return compile.CompileGenerator(f, d)
}

// A generator draws a parameter from its prior and a plate of data given
// it; the same seed gives the same draw, and the draws have the prior's
// moments.
func TestGenerator(t *testing.T) {
	const src = `
data { N: int }
transformed data { half = N / 2 }
generated {
  mu = normal_rng(0, 1)
  for n in plate(N) { y = normal_rng(mu, 1) }
  m = half
}
`
	g, err := compileGenerator(src, map[string]any{"N": 4})
	if err != nil {
		t.Fatal(err)
	}
	if cols := g.Columns(); !slices.Equal(cols, []string{"mu", "y.1", "y.2", "y.3", "y.4", "m"}) {
		t.Fatalf("columns %v", cols)
	}
	if v := g.Data()["N"]; v == nil || v.At(0) != 4 {
		t.Errorf("data N = %v, want 4", v)
	}
	a, b := make([]float64, 6), make([]float64, 6)
	g.Draw(a, 7)
	g.Draw(b, 7)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 drew %v, then %v", a, b)
	}
	if a[5] != 2 {
		t.Errorf("m = %v, want the transformed data's N/2 = 2", a[5])
	}
	// mu ~ N(0, 1), y.1 - mu ~ N(0, 1), and the rows are drawn apart
	// (y = normal_rng(mu, 1) in the plate is one draw per row, though its
	// arguments are the same in every row): y.1 - y.2 ~ N(0, 2). Over
	// 4,000 seeds a mean has sd √(v/4000) ≤ 0.022, so 0.09 is 4 sd; a
	// variance v has sd v·√(2/4000) ≤ 0.045, so 0.2·v is over 4 sd.
	const n = 4000
	quantities := []struct {
		name      string
		of        func([]float64) float64
		variance  float64
		sum, sum2 float64
	}{
		{name: "mu", of: func(a []float64) float64 { return a[0] }, variance: 1},
		{name: "y.1 - mu", of: func(a []float64) float64 { return a[1] - a[0] }, variance: 1},
		{name: "y.1 - y.2", of: func(a []float64) float64 { return a[1] - a[2] }, variance: 2},
	}
	for s := range uint64(n) {
		g.Draw(a, s)
		for i := range quantities {
			q := &quantities[i]
			x := q.of(a)
			q.sum, q.sum2 = q.sum+x, q.sum2+x*x
		}
	}
	for _, q := range quantities {
		mean := q.sum / n
		if v := q.sum2/n - mean*mean; math.Abs(mean) > 0.09 || math.Abs(v-q.variance) > 0.2*q.variance {
			t.Errorf("%s: mean %.3f, variance %.3f over %d draws, want 0 and %g", q.name, mean, v, n, q.variance)
		}
	}
}

// A generator is a program without parameters: the blocks that score them
// are refused, each at its position.
func TestGeneratorRefusesScoringBlocks(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param { mu: real }\nmodel { mu ~ normal(0, 1) }\ngenerated { x = normal_rng(mu, 1) }",
			"gen.ppl:1:1: a generator has no param block"},
		{"data { N: int }\ntransformed data { h = N / 2 }",
			"a generator needs a generated block"},
	} {
		_, err := compileGenerator(c.src, map[string]any{"N": 3})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}
