package plots

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/temper-ppl/temper/infer"
)

type table map[string][][]float64

func (t table) ByChain(c string) [][]float64 { return t[c] }

// TestAutocorrelation: an alternating series has autocorrelation (n-k)/n
// in magnitude at lag k, with the sign of (-1)^k.
func TestAutocorrelation(t *testing.T) {
	d := []float64{1, -1, 1, -1, 1, -1, 1, -1}
	xy := autocorrelation(d, 3)
	for k, p := range xy {
		want := math.Pow(-1, float64(k)) * float64(len(d)-k) / float64(len(d))
		if math.Abs(p.Y-want) > 1e-12 {
			t.Errorf("lag %d: %v, want %v", k, p.Y, want)
		}
	}
}

// TestHistogramLine: counts per bin, or a density that integrates to one.
func TestHistogramLine(t *testing.T) {
	xy := histogramLine([]float64{0, 0.1, 0.6, 1}, 0, 1, 2, false)
	if xy[0].Y != 2 || xy[1].Y != 2 || xy[0].X != 0.25 {
		t.Errorf("counts %v", xy)
	}
	xy = histogramLine([]float64{0, 0.1, 0.6, 1}, 0, 1, 2, true)
	if area := (xy[0].Y + xy[1].Y) * 0.5; math.Abs(area-1) > 1e-12 {
		t.Errorf("the density integrates to %v", area)
	}
}

// TestWrite draws every kind to SVG with its title, and refuses what it
// cannot draw.
func TestWrite(t *testing.T) {
	src := table{"a": {{1, 2, 3, 2, 1}, {2, 3, 1, 1, 2}}, "b": {{0, 1, 0, 1, 0}, {1, 0, 1, 1, 0}}}
	titles := map[string]string{"trace": "trace of a", "density": "density of a per chain", "rank": "rank plot of a", "acf": "autocorrelation of a", "pair": ">a<"}
	dir := t.TempDir()
	for _, kind := range Kinds {
		path := filepath.Join(dir, kind+".svg")
		if err := Write(path, kind, src, []string{"a", "b"}, nil); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		raw, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(raw), titles[kind]) {
			t.Errorf("%s: %v; the file lacks %q", kind, err, titles[kind])
		}
	}
	for _, c := range []struct {
		kind, path string
		cols       []string
		want       string
	}{
		{"pair", "p.svg", []string{"a"}, "2 to 6 columns"},
		{"violin", "v.svg", []string{"a"}, `no kind "violin"`},
		{"trace", "t.gif", []string{"a"}, "by the file's extension"},
		{"trace", "t.svg", []string{"c"}, "no draws of c"},
	} {
		err := Write(filepath.Join(dir, c.path), c.kind, src, c.cols, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s of %v to %s: %v, want an error saying %q", c.kind, c.cols, c.path, err, c.want)
		}
	}
}

// TestPairDivergences: a pair plot of an exact sampler's draws marks its
// divergent transitions (the divergent__ column) and says how many; one
// without them says nothing of divergences.
func TestPairDivergences(t *testing.T) {
	checkDivergences(t, "pair", nil, "")
	checkDivergences(t, "pair", [][]float64{{0, 1, 0, 0, 0}, {0, 0, 0, 1, 1}}, "3 divergent transitions (red)")
}

// checkDivergences draws a plot of kind of two columns with the
// divergent__ column given (none where nil) and checks that it speaks of
// divergences, in the words want, or not at all where want is "".
func checkDivergences(t *testing.T, kind string, divergent [][]float64, want string) {
	t.Helper()
	src := table{"a": {{1, 2, 3, 2, 1}, {2, 3, 1, 1, 2}}, "b": {{0, 1, 0, 1, 0}, {1, 0, 1, 1, 0}}}
	if divergent != nil {
		src["divergent__"] = divergent
	}
	path := filepath.Join(t.TempDir(), kind+".svg")
	if err := Write(path, kind, src, []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Contains(string(raw), "divergent"); got != (want != "") || want != "" && !strings.Contains(string(raw), want) {
		t.Errorf("%s, divergent %v: the plot says divergent: %t, want %q", kind, divergent, got, want)
	}
}

// TestWriteModes: draws around one of two centres cover that mode alone.
func TestWriteModes(t *testing.T) {
	var xs, ys []float64
	for i := range 300 {
		xs = append(xs, 1+0.01*math.Sin(float64(i)))
		ys = append(ys, 1+0.01*math.Cos(float64(i)))
	}
	path := filepath.Join(t.TempDir(), "modes.svg")
	err := WriteModes(path, table{"x": {xs}, "y": {ys}}, "x", "y", Modes{
		LogDensity: func(x, y float64) float64 {
			return math.Log(math.Exp(-((x-1)*(x-1)+(y-1)*(y-1))*8) + math.Exp(-((x+1)*(x+1)+(y+1)*(y+1))*8))
		},
		Centres: [][2]float64{{1, 1}, {-1, -1}}, Radius: 0.25, MinDraws: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), "1 of 2 modes covered") {
		t.Errorf("%v; the plot's title lacks the coverage", err)
	}
	// The key says what the contours and the marks are.
	for _, want := range []string{"target&#39;s density:", "0.5 × its peak", "0.001 × its peak", ">draws<", "mode, covered", "mode, not covered"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the modes plot's key lacks %q", want)
		}
	}
}

// TestWriteExchange draws the three ladder plots and finds the replica
// that makes a round trip.
func TestWriteExchange(t *testing.T) {
	ex := Exchange{Every: 1, Index: [][]int{{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {1, 0, 2}, {0, 1, 2}},
		Ladder: [][]float64{{1, 2, 4}, {1, 2.5, 4}, {1, 2.2, 4}, {1, 2, 4}, {1, 2, 4}}, LadderName: "temperature",
		SwapRates: []float64{0.4, 0.3}, Attempts: []int{10, 12}}
	dir := t.TempDir()
	for kind, want := range map[string]string{"index": "replica 1, the first to make a round trip", "ladder": ">level<", "swaps": "swap rate of each adjacent pair"} {
		path := filepath.Join(dir, kind+".svg")
		if err := WriteExchange(path, kind, ex); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		raw, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(raw), want) {
			t.Errorf("%s: %v; the plot lacks %q", kind, err, want)
		}
	}
	if err := WriteExchange(filepath.Join(dir, "x.svg"), "index", Exchange{}); err == nil || !strings.Contains(err.Error(), "no replica index process") {
		t.Errorf("an empty index process: %v", err)
	}
}

// TestWriteSchedule draws a short cyclical schedule with its kept draws.
func TestWriteSchedule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schedule.svg")
	c := infer.Cyclical{Initial: 0.1, Cycles: 4, Iterations: 400, Explore: 0.25, Samples: 3}
	if err := WriteSchedule(path, c, 0, 1); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), "4 cycles of 100 iterations") || !strings.Contains(string(raw), "the 12 kept draws marked") {
		t.Errorf("%v; the schedule's title is not the expected one", err)
	}
	// Every sampling-stage iteration collected, but the first cycle burnt
	// and a draw kept every 10 iterations: 30, 40, ..., 90 of cycles 2-4.
	c.Samples = 0
	if err := WriteSchedule(path, c, 100, 10); err != nil {
		t.Fatal(err)
	}
	if raw, err = os.ReadFile(path); err != nil || !strings.Contains(string(raw), "the 21 kept draws marked") {
		t.Errorf("%v; burn-in and thinning are not in the marks", err)
	}
	if err := WriteSchedule(path, infer.Cyclical{Initial: 0.1, Cycles: 4}, 0, 1); err == nil {
		t.Error("a schedule without its iterations was drawn")
	}
}

// The band of a rank histogram: Binomial(100, 0.05) has P(X ≤ 0) =
// 0.0059 and P(X ≤ 10) = 0.9885 < 0.995 ≤ P(X ≤ 11) = 0.9957;
// Binomial(1000, 0.05) has P(X ≤ 32) = 0.0037 < 0.005 ≤ P(X ≤ 33) and
// P(X ≤ 68) = 0.9949 < 0.995 ≤ P(X ≤ 69) (exact sums of the binomial
// terms).
func TestBinomialInterval(t *testing.T) {
	for _, c := range []struct {
		n        int
		lo, high float64
	}{{100, 0, 11}, {1000, 33, 69}} {
		if lo, hi := binomialInterval(c.n, 0.05, 0.99); lo != c.lo || hi != c.high {
			t.Errorf("n = %d: [%v, %v], want [%v, %v]", c.n, lo, hi, c.lo, c.high)
		}
	}
}

// TestWriteRankHistograms draws a panel per parameter, titled, and refuses
// counts that do not match their bins.
func TestWriteRankHistograms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ranks.svg")
	h := RankHistogram{Name: "mu", Edges: []int{0, 2, 5}, Counts: []int{4, 6}, Expected: []float64{4, 6}}
	tau := h
	tau.Name = "tau"
	if err := WriteRankHistograms(path, []RankHistogram{h, tau}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), "ranks of mu") || !strings.Contains(string(raw), "ranks of tau") {
		t.Errorf("%v; the file lacks a panel's title", err)
	}
	h.Edges = []int{0, 5}
	if err := WriteRankHistograms(path, []RankHistogram{h}); err == nil {
		t.Error("2 counts in 1 bin: no error")
	}
}

// tickLabels are the labels of ticker's major ticks on [lo, hi], joined
// by spaces, and their values.
func tickLabels(ticker plot.Ticker, lo, hi float64) (string, []float64) {
	var labels []string
	var values []float64
	for _, tick := range ticker.Ticks(lo, hi) {
		if tick.Label != "" {
			labels, values = append(labels, tick.Label), append(values, tick.Value)
		}
	}
	return strings.Join(labels, " "), values
}

// TestNiceTicks: the ticks of ranges from the screenshots and of
// counts, at round numbers and at 0.
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{NiceTicks{}, 0, 28, "0 5 10 15 20 25"}, // tau, once snapped to 0 (not 5 20 35)
		{NiceTicks{}, -7.3, 15.8, "-5 0 5 10 15"},
		{NiceTicks{}, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{NiceTicks{}, -0.1, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{NiceTicks{}, 0, 0.143, "0.00 0.02 0.04 0.06 0.08 0.10 0.12 0.14"},
		{NiceTicks{}, 0.1, 0.4, "0.1 0.2 0.3 0.4"},
		{NiceTicks{}, 0.5, 18.5, "5 10 15"}, // a step of 2 would leave 9
		{NiceTicks{}, 1, 20000, "5000 10000 15000 20000"},
		{NiceTicks{}, 3.2e-7, 9.9e-7, "4e-07 5e-07 6e-07 7e-07 8e-07 9e-07"},
		{NiceTicks{Whole: true}, 1, 23, "5 10 15 20"}, // not 2.5, 12.5, 22.5
		{NiceTicks{Whole: true}, 1, 4, "1 2 3 4"},
		{NiceTicks{Whole: true}, 1, 2, "1 2"},
		{NiceLogTicks{}, 0.003, 0.6, "0.005 0.01 0.02 0.05 0.1 0.2 0.5"},
		{NiceLogTicks{}, 1, 100, "1 2 5 10 20 50 100"},
		{NiceLogTicks{}, 1e-6, 1, "0.000001 0.00001 0.0001 0.001 0.01 0.1 1"},
	} {
		if got, _ := tickLabels(c.ticker, c.lo, c.hi); got != c.want {
			t.Errorf("%T ticks of [%g, %g]: %q, want %q", c.ticker, c.lo, c.hi, got, c.want)
		}
	}
}

// TestNiceTicksProperties: on ranges of every width and place, the major
// ticks are the multiples of a step of 1, 2 or 5 × 10^k in the range, 0
// among them when the range holds it, four to eight of them (three where
// no such step leaves four to eight), and none is -0.
func TestNiceTicksProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	steps := func(w float64) []float64 { // the 1, 2, 5 steps near a width
		var out []float64
		for e := math.Floor(math.Log10(w)) - 2; e <= math.Floor(math.Log10(w))+1; e++ {
			for _, m := range []float64{1, 2, 5} {
				out = append(out, m*math.Pow(10, e))
			}
		}
		return out
	}
	count := func(lo, hi, step float64) int {
		return int(math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1)
	}
	for range 5000 {
		w := math.Pow(10, rng.Float64()*12-6)
		lo := (rng.Float64()*4 - 2) * w
		hi := lo + w
		labels, values := tickLabels(NiceTicks{}, lo, hi)
		n := len(values)
		if n < 2 {
			t.Fatalf("[%g, %g]: ticks %q", lo, hi, labels)
		}
		step := values[1] - values[0]
		mantissa := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if !slices.ContainsFunc([]float64{1, 2, 5}, func(m float64) bool { return math.Abs(m-mantissa) < 1e-6 }) {
			t.Errorf("[%g, %g]: ticks %q, a step of %g", lo, hi, labels, step)
		}
		for i, v := range values {
			if math.Abs(v-values[0]-float64(i)*step) > 1e-9*step || math.Abs(v/step-math.Round(v/step)) > 1e-6 {
				t.Errorf("[%g, %g]: ticks %q are not the multiples of %g", lo, hi, labels, step)
				break
			}
			if v < lo-1e-9*w || v > hi+1e-9*w {
				t.Errorf("[%g, %g]: tick %g outside the range", lo, hi, v)
			}
		}
		if values[0]-step >= lo+1e-9*w || values[n-1]+step <= hi-1e-9*w {
			t.Errorf("[%g, %g]: ticks %q miss a multiple of %g in the range", lo, hi, labels, step)
		}
		if lo <= 0 && hi >= 0 && !slices.Contains(values, 0) {
			t.Errorf("[%g, %g]: ticks %q skip 0", lo, hi, labels)
		}
		if strings.Contains(" "+labels, " -0 ") || strings.HasPrefix(labels, "-0 ") {
			t.Errorf("[%g, %g]: ticks %q have a -0", lo, hi, labels)
		}
		possible := slices.ContainsFunc(steps(w), func(s float64) bool { c := count(lo, hi, s); return c >= 4 && c <= 8 })
		if possible && (n < 4 || n > 8) || !possible && n != 3 {
			t.Errorf("[%g, %g]: %d ticks %q (a step leaving 4 to 8: %t)", lo, hi, n, labels, possible)
		}
	}
}

// TestSnapRange: a range that stops just short of 0 is drawn from it; one
// that stops far from it is not.
func TestSnapRange(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{0.03, 28, 0, 28}, {-28, -0.03, -28, 0}, {5, 28, 5, 28}, {-3, 4, -3, 4},
	} {
		if lo, hi := snapRange(c.lo, c.hi); lo != c.wantLo || hi != c.wantHi {
			t.Errorf("snapRange(%g, %g) = %g, %g, want %g, %g", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// TestLevelColors: a ladder of 16 or 32 levels has as many colours, each
// its own, from cold (blue, the target) to hot (red and orange).
func TestLevelColors(t *testing.T) {
	for _, p := range []int{2, 8, 16, 32} {
		cs := LevelColors(p)
		if len(cs) != p {
			t.Fatalf("%d levels: %d colours", p, len(cs))
		}
		seen := map[[3]uint32]int{}
		for l, c := range cs {
			r, g, b, _ := c.RGBA()
			if k, ok := seen[[3]uint32{r, g, b}]; ok {
				t.Errorf("%d levels: levels %d and %d share a colour", p, k+1, l+1)
			}
			seen[[3]uint32{r, g, b}] = l
		}
		r0, _, b0, _ := cs[0].RGBA()
		r1, _, b1, _ := cs[p-1].RGBA()
		if !(b0 > r0 && r1 > b1) {
			t.Errorf("%d levels: level 1 is %v, level %d %v: want cold to hot", p, cs[0], p, cs[p-1])
		}
	}
}

// TestKeyLevels: a ladder's key labels its ends and round levels between.
func TestKeyLevels(t *testing.T) {
	for n, want := range map[int][]int{1: {1}, 4: {1, 2, 3, 4}, 16: {1, 2, 4, 6, 8, 10, 12, 14, 16}, 32: {1, 5, 10, 15, 20, 25, 32}} {
		if got := keyLevels(n); !slices.Equal(got, want) {
			t.Errorf("keyLevels(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestLegendOnce: a trace, density, rank or acf figure of three rows
// names the chains once, beside its first row.
func TestLegendOnce(t *testing.T) {
	src := table{"a": {{1, 2, 3, 2, 1}, {2, 3, 1, 1, 2}}, "b": {{0, 1, 0, 1, 0}, {1, 0, 1, 1, 0}}, "c": {{3, 1, 2, 2, 1}, {1, 2, 3, 1, 2}}}
	dir := t.TempDir()
	for _, kind := range []string{"trace", "density", "rank", "acf"} {
		path := filepath.Join(dir, kind+".svg")
		if err := Write(path, kind, src, []string{"a", "b", "c"}, nil); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(raw), ">chain 1<"); n != 1 {
			t.Errorf("%s: the legend is drawn %d times, want once", kind, n)
		}
	}
}

// TestTraceDivergences: a trace of an exact sampler's draws marks the
// iterations whose transitions diverged and names them in the legend; one
// whose divergent__ column has none, or that has no such column, does
// not.
func TestTraceDivergences(t *testing.T) {
	checkDivergences(t, "trace", nil, "")
	checkDivergences(t, "trace", [][]float64{{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}, "")
	checkDivergences(t, "trace", [][]float64{{0, 1, 0, 0, 0}, {0, 0, 0, 1, 1}}, "divergent (3)")
	// The marks are at the draws' numbers, or their iterations'.
	div := [][]float64{{0, 1, 0, 0, 0}, {0, 0, 0, 1, 1}}
	if got := divergentAt(div, nil); !slices.Equal(got, []float64{2, 4, 5}) {
		t.Errorf("divergent draws at %v, want 2, 4, 5", got)
	}
	if got := divergentAt(div, []int{0, 10, 20, 30, 40}); !slices.Equal(got, []float64{11, 31, 41}) {
		t.Errorf("divergent iterations at %v, want 11, 31, 41", got)
	}
	// And the trace draws one mark per divergent transition.
	p := plot.New()
	marks := rugMarks{xs: divergentAt(div, nil), style: draw.LineStyle{Color: divergentColour, Width: 1}}
	p.Add(marks)
	p.X.Min, p.X.Max = 1, 5
	rec := &recorder.Canvas{}
	marks.Plot(draw.NewCanvas(rec, 100, 100), p)
	strokes := 0
	for _, a := range rec.Actions {
		if _, ok := a.(*recorder.Stroke); ok {
			strokes++
		}
	}
	if strokes != 3 {
		t.Errorf("%d marks for 3 divergent transitions", strokes)
	}
}

// TestPairRanges: each pair plot panel's x axis spans its column's draws,
// the diagonal's histogram's as its scatter plots', and its y axis its
// row's.
func TestPairRanges(t *testing.T) {
	draws := [][][]float64{
		{{-3, 0, 2, 7}, {1, 2, 3, 4}},
		{{0.5, 9, 3, 2}, {12, 4, 1, 2}},
		{{100, 101, 99, 98}, {97, 102, 100, 100}},
	}
	grid, err := pairGrid([]string{"a", "b", "c"}, draws, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{-3, 7}, {0, 12}, {97, 102}} // b snapped to 0
	for i := range grid {
		for j := 0; j <= i; j++ {
			p := grid[i][j]
			if p.X.Min != want[j][0] || p.X.Max != want[j][1] {
				t.Errorf("panel (%d, %d): x on [%g, %g], want column %d's [%g, %g]", i+1, j+1, p.X.Min, p.X.Max, j+1, want[j][0], want[j][1])
			}
			if i != j && (p.Y.Min != want[i][0] || p.Y.Max != want[i][1]) {
				t.Errorf("panel (%d, %d): y on [%g, %g], want row %d's [%g, %g]", i+1, j+1, p.Y.Min, p.Y.Max, i+1, want[i][0], want[i][1])
			}
		}
	}
}
