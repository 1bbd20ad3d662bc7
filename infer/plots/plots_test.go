package plots

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	src := table{"a": {{1, 2, 3, 2, 1}, {2, 3, 1, 1, 2}}, "b": {{0, 1, 0, 1, 0}, {1, 0, 1, 1, 0}}}
	dir := t.TempDir()
	for _, c := range []struct {
		divergent [][]float64
		want      string
	}{{nil, ""}, {[][]float64{{0, 1, 0, 0, 0}, {0, 0, 0, 1, 1}}, "3 divergent transitions (red)"}} {
		if c.divergent != nil {
			src["divergent__"] = c.divergent
		}
		path := filepath.Join(dir, "pair.svg")
		if err := Write(path, "pair", src, []string{"a", "b"}, nil); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(raw), "divergent"); got != (c.want != "") || c.want != "" && !strings.Contains(string(raw), c.want) {
			t.Errorf("divergent %v: the plot says divergent: %t, want %q", c.divergent, got, c.want)
		}
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
}

// TestWriteExchange draws the three ladder plots and finds the replica
// that makes a round trip.
func TestWriteExchange(t *testing.T) {
	ex := Exchange{Every: 1, Index: [][]int{{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {1, 0, 2}, {0, 1, 2}},
		Ladder: [][]float64{{1, 2, 4}, {1, 2.5, 4}, {1, 2.2, 4}, {1, 2, 4}, {1, 2, 4}}, LadderName: "temperature",
		SwapRates: []float64{0.4, 0.3}, Attempts: []int{10, 12}}
	dir := t.TempDir()
	for kind, want := range map[string]string{"index": "replica 1, the first to make a round trip", "ladder": "the ladder over the run", "swaps": "swap rate of each adjacent pair"} {
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

// TestCountTicks: an axis of counts is labelled with whole numbers only,
// where gonum's ticks would mark a run of 23 draws at 2.5, 12.5 and 22.5.
func TestCountTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tick := range (CountTicks{}).Ticks(lo, hi) {
			if tick.Label != "" {
				out = append(out, tick.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{1, 23, "10 20"},
		{1, 4, "1 2 3 4"},
		{1, 20000, "4000 12000 20000"}, // gonum's own, whole already
	} {
		if got := strings.Join(labels(c.lo, c.hi), " "); got != c.want {
			t.Errorf("ticks of [%g, %g]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
