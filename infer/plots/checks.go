package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The model checks' plots: the Pareto k̂ of PSIS-LOO, the posterior (or
// prior) predictive against the data, a test statistic of the replicated
// data against its value in the data, and LOO-PIT.

var (
	dataColour  = color.NRGBA{R: 20, G: 20, B: 20, A: 255}
	drawColour  = color.NRGBA{R: 0, G: 114, B: 178, A: 60}
	alarmColour = color.NRGBA{R: 213, G: 94, B: 0, A: 255}
)

// WriteKhat draws each observation's Pareto k̂ with the threshold above
// which its leave-one-out estimate is unreliable, the observations above
// it in the alarm colour.
func WriteKhat(path string, k []float64, threshold float64) error {
	var good, bad plotter.XYs
	for i, v := range k {
		pt := plotter.XY{X: float64(i + 1), Y: math.Min(v, 10)}
		if v > threshold {
			bad = append(bad, pt)
		} else {
			good = append(good, pt)
		}
	}
	// "Pareto shape k", as R's loo labels it: a combining hat (k̂) is drawn
	// beside its k in a PNG.
	p := newPlot(fmt.Sprintf("Pareto shape k of each observation's PSIS-LOO weights: %d of %d above %.2f", len(bad), len(k), threshold), "observation", "Pareto shape k")
	p.X.Tick.Marker = NiceTicks{Whole: true}
	for _, set := range []struct {
		pts    plotter.XYs
		colour color.Color
	}{{good, drawColour}, {bad, alarmColour}} {
		if len(set.pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(set.pts)
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		c := set.colour
		if set.colour == drawColour {
			c = color.NRGBA{R: 0, G: 114, B: 178, A: 255}
		}
		s.GlyphStyle.Radius, s.GlyphStyle.Color = vg.Points(2), c
		p.Add(s)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: 0.5, Y: threshold}, {X: float64(len(k)) + 0.5, Y: threshold}})
	if err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	line.LineStyle.Color, line.LineStyle.Dashes = alarmColour, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(line)
	p.Y.Min, p.Y.Max = math.Min(p.Y.Min, 0), math.Max(p.Y.Max, 1.15*threshold)
	return save(path, 7*vg.Inch, 4*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}

// WritePPC draws the data's distribution over those of replicated data
// sets, one per draw (up to 50): densities for real values (a Gaussian
// kernel of Silverman's bandwidth), the share of each count for whole
// numbers. What makes the data unlike the replications is what the model
// misses.
func WritePPC(path, name string, y []float64, counts bool, reps [][]float64, what string) error {
	if len(y) == 0 || len(reps) == 0 {
		return fmt.Errorf("plot: no data or no replications of %s", name)
	}
	reps = reps[:min(len(reps), 50)]
	// The range of the data and the replications' central 98%: a
	// heavy-tailed replication's far draws would squeeze the rest flat.
	var pooled []float64
	for _, r := range reps {
		pooled = append(pooled, r...)
	}
	slices.Sort(pooled)
	lo := math.Min(slices.Min(y), stat.Quantile(0.01, stat.Empirical, pooled, nil))
	hi := math.Max(slices.Max(y), stat.Quantile(0.99, stat.Empirical, pooled, nil))
	if !(hi > lo) {
		lo, hi = lo-0.5, lo+0.5
	}
	counts = counts && hi-lo <= 60 // few counts: each one's share; many: a density
	p := newPlot(fmt.Sprintf("%s: %s (%d draws, light) and the data (dark)", name, what, len(reps)), name, "density")
	p.X.Min, p.X.Max = lo, hi
	// One bandwidth, the data's, for every curve: the curves then differ by
	// their values alone, and a replication whose quartiles coincide (many
	// zeros) is not drawn with a needle of a kernel.
	h := bandwidth(y, lo, hi)
	curve := func(x []float64) plotter.XYs {
		if counts {
			return countShares(x, lo, hi)
		}
		return densityWith(x, lo, hi, h)
	}
	if counts {
		p.Y.Label.Text = "share"
	}
	for _, r := range reps {
		if !counts { // the far draws outside the range are left out of its density
			r = slices.DeleteFunc(slices.Clone(r), func(v float64) bool { return v < lo || v > hi })
			if len(r) < 2 {
				continue
			}
		}
		l, err := plotter.NewLine(curve(r))
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		l.LineStyle.Color, l.LineStyle.Width = drawColour, vg.Points(1)
		p.Add(l)
	}
	l, err := plotter.NewLine(curve(y))
	if err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	l.LineStyle.Color, l.LineStyle.Width = dataColour, vg.Points(2)
	p.Add(l)
	return save(path, 7*vg.Inch, 4.5*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}

// countShares is the share of each whole number from lo to hi in x.
func countShares(x []float64, lo, hi float64) plotter.XYs {
	var pts plotter.XYs
	for v := math.Floor(lo); v <= math.Ceil(hi); v++ {
		n := 0
		for _, u := range x {
			if u == v {
				n++
			}
		}
		pts = append(pts, plotter.XY{X: v, Y: float64(n) / float64(len(x))})
	}
	return pts
}

// density is a Gaussian kernel density estimate of x on 200 points from
// lo to hi, with Silverman's bandwidth 0.9 min(sd, IQR/1.34) n^-1/5.
func density(x []float64, lo, hi float64) plotter.XYs {
	return densityWith(x, lo, hi, bandwidth(x, lo, hi))
}

// bandwidth is Silverman's bandwidth of x, 0.9 min(sd, IQR/1.34) n^-1/5,
// or a tenth of its spread where that is zero.
func bandwidth(x []float64, lo, hi float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	sd := stat.StdDev(s, nil)
	iqr := stat.Quantile(0.75, stat.Empirical, s, nil) - stat.Quantile(0.25, stat.Empirical, s, nil)
	h := 0.9 * math.Min(sd, iqr/1.34) * math.Pow(float64(len(s)), -0.2)
	if !(h > 0) {
		h = math.Max(sd, 1e-3*(hi-lo)) * 0.1
	}
	return h
}

// densityWith is the Gaussian kernel density estimate of x with
// bandwidth h on 200 points from lo to hi.
func densityWith(s []float64, lo, hi, h float64) plotter.XYs {
	const n = 200
	pts := make(plotter.XYs, n)
	for i := range pts {
		at := lo + (hi-lo)*float64(i)/(n-1)
		d := 0.0
		for _, v := range s {
			z := (at - v) / h
			d += math.Exp(-0.5 * z * z)
		}
		pts[i] = plotter.XY{X: at, Y: d / (float64(len(s)) * h * math.Sqrt(2*math.Pi))}
	}
	return pts
}

// WritePPCStat draws the distribution of a statistic T over the replicated
// data sets, with T of the data and the share of replications at or above
// it (the posterior predictive p-value) in the title.
func WritePPCStat(path, name, statistic string, observed float64, reps []float64) error {
	above := 0
	for _, v := range reps {
		if v >= observed {
			above++
		}
	}
	// The histogram spans the replications' central 98% and the data's
	// value: a heavy tail's far draws would put every bar in one.
	sorted := slices.Clone(reps)
	slices.Sort(sorted)
	lo := math.Min(observed, stat.Quantile(0.01, stat.Empirical, sorted, nil))
	hi := math.Max(observed, stat.Quantile(0.99, stat.Empirical, sorted, nil))
	shown := slices.DeleteFunc(slices.Clone(reps), func(v float64) bool { return v < lo || v > hi })
	beyond := ""
	if k := len(reps) - len(shown); k > 0 {
		beyond = fmt.Sprintf(", %d beyond the range drawn", k)
	}
	h, err := plotter.NewHist(plotter.Values(shown), 30)
	if err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	h.FillColor, h.LineStyle.Width = color.NRGBA{R: 0, G: 114, B: 178, A: 120}, 0
	p := newPlot(fmt.Sprintf("%s(%s) of %d replications%s; the data's %.4g (p = %.3f)", statistic, name, len(reps), beyond, observed, float64(above)/float64(len(reps))), fmt.Sprintf("%s(%s)", statistic, name), "replications")
	p.Add(h)
	top := 0.0
	for _, b := range h.Bins {
		top = math.Max(top, b.Weight)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: observed, Y: 0}, {X: observed, Y: top * 1.05}})
	if err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	line.LineStyle.Color, line.LineStyle.Width = dataColour, vg.Points(2)
	p.Add(line)
	p.X.Min, p.X.Max = math.Min(p.X.Min, observed), math.Max(p.X.Max, observed)
	return save(path, 7*vg.Inch, 4.5*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}

// WriteLooPIT draws the empirical distribution function of the LOO
// probability integral transforms, which is uniform's diagonal when the
// model's leave-one-out predictive distributions are calibrated (a
// U-shape: too narrow; a hump: too wide; a slope off the diagonal: a
// shift), with the pointwise 95% band of n uniform draws' ECDF.
func WriteLooPIT(path, name string, pit []float64) error {
	s := slices.Clone(pit)
	slices.Sort(s)
	n := float64(len(s))
	var ecdf, upper, lower, diag plotter.XYs
	for i, v := range s {
		ecdf = append(ecdf, plotter.XY{X: v, Y: float64(i) / n}, plotter.XY{X: v, Y: float64(i+1) / n})
	}
	for i := 0; i <= 100; i++ {
		u := float64(i) / 100
		half := 1.96 * math.Sqrt(u*(1-u)/n)
		upper, lower = append(upper, plotter.XY{X: u, Y: math.Min(1, u+half)}), append(lower, plotter.XY{X: u, Y: math.Max(0, u-half)})
		diag = append(diag, plotter.XY{X: u, Y: u})
	}
	p := newPlot(fmt.Sprintf("LOO-PIT of %s (%d): ECDF, uniform's 95%% band", name, len(s)), "LOO-PIT", "ECDF")
	for _, set := range []struct {
		pts    plotter.XYs
		colour color.Color
		width  float64
	}{{upper, drawColour, 1}, {lower, drawColour, 1}, {diag, color.NRGBA{A: 120}, 1}, {ecdf, dataColour, 2}} {
		l, err := plotter.NewLine(set.pts)
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		l.LineStyle.Color, l.LineStyle.Width = set.colour, vg.Points(set.width)
		p.Add(l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	return save(path, 5*vg.Inch, 5*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}
