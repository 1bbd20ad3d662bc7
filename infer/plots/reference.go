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

// Reference is a reference posterior of one parameter: its draws, or, when
// there are none, its mean and sd, drawn as the normal density they give
// (a gold-standard run's summary, as posteriordb's references are).
type Reference struct {
	Mean, SD float64
	Draws    []float64
}

// referenceColour is the reference's curve, set apart from the run's
// (ChainColors[0]) by hue and by its dashes.
var referenceColour = color.NRGBA{R: 213, G: 94, B: 0, A: 255}

// WriteReference draws, for each column, the density of src's draws (all
// chains pooled) over the reference posterior's, a panel per column, two
// to a row from four columns on, the key (the run, and refName for the
// reference) in the first. Each panel's title gives both means and
// sds and the difference of the means in reference sds, the measure
// posteriordb's comparisons use (|Δmean|/sd below about 0.25).
func WriteReference(path string, src Source, columns []string, refs []Reference, refName string) error {
	if len(columns) == 0 || len(columns) != len(refs) {
		return fmt.Errorf("plot: %d columns and %d references", len(columns), len(refs))
	}
	cols := 1
	if len(columns) >= 4 {
		cols = 2
	}
	rows := (len(columns) + cols - 1) / cols
	width := 7 * vg.Inch
	if cols == 2 {
		width = 11 * vg.Inch
	}
	panels := make([]func(draw.Canvas) error, len(columns))
	for i, name := range columns {
		var x []float64
		for _, d := range src.ByChain(name) {
			x = append(x, d...)
		}
		x = slices.DeleteFunc(x, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
		if len(x) < 2 {
			return fmt.Errorf("plot: no draws of %s", name)
		}
		ref := refs[i]
		refMean, refSD := ref.Mean, ref.SD
		if len(ref.Draws) > 1 {
			refMean, refSD = stat.MeanStdDev(ref.Draws, nil)
		}
		if !(refSD > 0) {
			return fmt.Errorf("plot: the reference of %s has no spread (sd %g)", name, refSD)
		}
		m, s := stat.MeanStdDev(x, nil)
		// The range: both posteriors' central parts, four sds either side
		// of each mean, clipped to the draws' and reference draws' extent
		// where that is narrower (a bounded parameter's density stops at
		// its bound).
		lo, hi := math.Min(m-4*s, refMean-4*refSD), math.Max(m+4*s, refMean+4*refSD)
		dlo, dhi := extent([][]float64{x, ref.Draws})
		if len(ref.Draws) > 1 || ref.Mean-4*ref.SD >= dlo {
			lo = math.Max(lo, dlo)
		}
		if len(ref.Draws) > 1 || ref.Mean+4*ref.SD <= dhi {
			hi = math.Min(hi, dhi)
		}
		runCurve := density(x, lo, hi)
		var refCurve plotter.XYs
		if len(ref.Draws) > 1 {
			refCurve = density(ref.Draws, lo, hi)
		} else {
			refCurve = normalCurve(refMean, refSD, lo, hi)
		}
		p := newPlot(fmt.Sprintf("%s: mean %.3g (sd %.3g) against %.3g (%.3g), Δmean/sd = %.2f", name, m, s, refMean, refSD, math.Round(100*(m-refMean)/refSD)/100+0), name, "density")
		for _, set := range []struct {
			pts    plotter.XYs
			colour color.Color
			dashes []vg.Length
			label  string
		}{{runCurve, ChainColors[0], nil, "this run"}, {refCurve, referenceColour, []vg.Length{vg.Points(5), vg.Points(3)}, refName}} {
			l, err := plotter.NewLine(set.pts)
			if err != nil {
				return fmt.Errorf("plot: %s: %v", name, err)
			}
			l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = set.colour, vg.Points(1.5), set.dashes
			p.Add(l)
			if i == 0 { // the key, once, in the first panel
				p.Legend.Add(set.label, l)
			}
		}
		p.Legend.Top = true
		p.X.Min, p.X.Max = lo, hi
		// Headroom above the curves, for the key in the first panel and
		// alike in every panel.
		top := 0.0
		for _, pt := range append(slices.Clip(runCurve), refCurve...) {
			top = math.Max(top, pt.Y)
		}
		p.Y.Min, p.Y.Max = 0, 1.4*top
		panels[i] = func(dc draw.Canvas) error { finish(p).Draw(dc); return nil }
	}
	return save(path, width, vg.Length(rows)*2.6*vg.Inch, func(body draw.Canvas) error {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 6 * vg.Millimeter, PadY: 4 * vg.Millimeter}
		for i, panel := range panels {
			if err := panel(tiles.At(body, i%cols, i/cols)); err != nil {
				return err
			}
		}
		return nil
	})
}

// normalCurve is the N(mean, sd²) density on 200 points from lo to hi.
func normalCurve(mean, sd, lo, hi float64) plotter.XYs {
	const n = 200
	pts := make(plotter.XYs, n)
	for i := range pts {
		x := lo + (hi-lo)*float64(i)/(n-1)
		z := (x - mean) / sd
		pts[i] = plotter.XY{X: x, Y: math.Exp(-0.5*z*z) / (sd * math.Sqrt(2*math.Pi))}
	}
	return pts
}
