package repl

import (
	"bufio"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// docInput is one input of a documented session and the output lines
// the page shows under it.
type docInput struct {
	text string
	want []string
}

// docSession reads the REPL session of a Markdown page: the first fenced
// block whose first line starts with the prompt. A line after "temper> "
// begins an input, one after "...> " continues it, and any other line is
// output of the input before it.
func docSession(t *testing.T, path string) []docInput {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var inputs []docInput
	in, started := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if started {
				return inputs
			}
			in = !in
		case !in:
		case strings.HasPrefix(line, "temper> "):
			started = true
			inputs = append(inputs, docInput{text: strings.TrimPrefix(line, "temper> ")})
		case !started:
			in = false // another block: the session's comes later
		case strings.HasPrefix(strings.TrimLeft(line, " "), "...> "):
			inputs[len(inputs)-1].text += "\n" + strings.TrimPrefix(strings.TrimLeft(line, " "), "...> ")
		case strings.TrimSpace(line) != "":
			inputs[len(inputs)-1].want = append(inputs[len(inputs)-1].want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s has no REPL session (a fenced block of temper> lines)", path)
	return nil
}

// TestDocsREPLExample types the REPL session of docs/repl.md as it is
// written there, from the repository's root, trailing # comments
// included, and checks that each input prints the lines the page shows
// under it (a line ending in … by its beginning). The session's :run has
// the defaults (no sampler, no lr: sampler auto, NUTS on data this small)
// on examples/normal/y.json, which must hold 200 draws of N(3, 2.2²) from
// PCG(7, 7) (made again here): the posterior mean of sigma must come
// within 0.1 of the exact one (by quadrature over (mu, sigma)), where the
// first wave's hand-set step gave σ = 432.8. The posterior sd of sigma is
// about 0.11 and its mean's Monte Carlo error at ESS ≥ 1,000 under 0.004,
// so 0.1 is far outside chance.
func TestDocsREPLExample(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	y := make([]float64, 200)
	for i := range y {
		y[i] = 3 + 2.2*rng.NormFloat64()
	}
	raw, err := os.ReadFile(filepath.Join("..", "examples", "normal", "y.json"))
	if err != nil {
		t.Fatal(err)
	}
	var shipped struct {
		N int       `json:"N"`
		Y []float64 `json:"y"`
	}
	if err := json.Unmarshal(raw, &shipped); err != nil || shipped.N != len(y) || !slices.Equal(shipped.Y, y) {
		t.Fatalf("examples/normal/y.json is not N = 200 and the 200 draws of N(3, 2.2²) from PCG(7, 7) (%v)", err)
	}
	inputs := docSession(t, filepath.Join("..", "docs", "repl.md"))
	t.Chdir("..")
	s := newTestSession(t)
	for _, in := range inputs {
		out := s.eval(in.text)
		lines := strings.Split(out, "\n")
		for _, w := range in.want {
			prefix, elided := strings.CutSuffix(w, "…")
			if !slices.ContainsFunc(lines, func(l string) bool { return l == w || elided && strings.HasPrefix(l, prefix) }) {
				t.Errorf("docs/repl.md: %s\n  printed:\n%s\n  lacks the line %q", in.text, out, w)
			}
		}
	}
	if s.result == nil {
		t.Fatal("the session has no :run")
	}
	if got := s.result.Result.Sampler; got != "nuts" {
		t.Errorf("the defaults ran %s; on 200 rows sampler auto runs nuts", got)
	}

	// The exact posterior mean of sigma, flat prior on sigma > 0.
	top, w, m := math.Inf(-1), 0.0, 0.0
	type point struct{ lp, sigma float64 }
	var grid []point
	for i := range 400 {
		mu := 2.2 + 1.6*(float64(i)+0.5)/400
		for j := range 400 {
			sigma := 1.6 + 1.3*(float64(j)+0.5)/400
			lp := -mu * mu / 200
			for _, v := range y {
				lp += -math.Log(sigma) - (v-mu)*(v-mu)/(2*sigma*sigma)
			}
			grid = append(grid, point{lp, sigma})
			top = max(top, lp)
		}
	}
	for _, p := range grid {
		e := math.Exp(p.lp - top)
		w += e
		m += e * p.sigma
	}
	exact := m / w
	sum, n := 0.0, 0
	for _, chain := range s.column("sigma") {
		for _, v := range chain {
			sum += v
			n++
		}
	}
	if got := sum / float64(n); math.Abs(got-exact) > 0.1 {
		t.Errorf("sigma's posterior mean %.4f, exact %.4f", got, exact)
	}
}
