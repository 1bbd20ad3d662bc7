package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RankHistogram is one parameter's ranks in simulation-based calibration,
// binned: bin b holds the ranks Edges[b] to Edges[b+1] − 1 of the values
// 0 to Edges[len(Edges)-1] − 1, Counts[b] of them where Expected[b] are
// expected under uniform ranks.
type RankHistogram struct {
	Name     string
	Edges    []int
	Counts   []int
	Expected []float64
}

// maxRankPanels bounds the histograms one figure draws.
const maxRankPanels = 30

// WriteRankHistograms draws each parameter's rank histogram over the band
// that holds 99% of a bin's count when the ranks are uniform (each count
// is binomial), as Talts et al. (2018) draw theirs, with the expected
// count dashed: a bar
// outside the band is a departure to look at, though one bar in a hundred
// falls outside by chance. At most 30 parameters are drawn, three to a
// row.
func WriteRankHistograms(path string, hists []RankHistogram) error {
	if len(hists) == 0 {
		return fmt.Errorf("plot: no rank histograms to draw")
	}
	hists = hists[:min(len(hists), maxRankPanels)]
	cols := min(3, len(hists))
	rows := (len(hists) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for k, h := range hists {
		p, err := rankHistogram(h)
		if err != nil {
			return err
		}
		grid[k/cols][k%cols] = p
	}
	return save(path, vg.Length(cols)*3.4*vg.Inch, vg.Length(rows)*2.6*vg.Inch, func(dc draw.Canvas) error {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 5 * vg.Millimeter, PadY: 5 * vg.Millimeter}
		canvases := plot.Align(grid, tiles, dc)
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
		return nil
	})
}

// rankHistogram is one panel: the band, then the counts as bars.
func rankHistogram(h RankHistogram) (*plot.Plot, error) {
	bins := len(h.Counts)
	if bins == 0 || len(h.Edges) != bins+1 || len(h.Expected) != bins {
		return nil, fmt.Errorf("plot: rank histogram of %s: %d counts, %d edges and %d expected counts", h.Name, bins, len(h.Edges), len(h.Expected))
	}
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	p := newPlot("ranks of "+h.Name, "rank", "replications")
	p.X.Tick.Marker = NiceTicks{Whole: true}
	top := 0.0
	for b := range bins {
		x0, x1 := float64(h.Edges[b]), float64(h.Edges[b+1])
		lo, hi := binomialInterval(n, h.Expected[b]/float64(n), 0.99)
		band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: lo}, {X: x1, Y: lo}, {X: x1, Y: hi}, {X: x0, Y: hi}})
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = color.Gray{Y: 215}, 0
		p.Add(band)
		top = max(top, hi)
	}
	for b := range bins {
		x0, x1, y := float64(h.Edges[b]), float64(h.Edges[b+1]), float64(h.Counts[b])
		bar, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: y}, {X: x0, Y: y}})
		if err != nil {
			return nil, err
		}
		bar.Color = color.NRGBA{R: 0, G: 114, B: 178, A: 150}
		bar.LineStyle.Color, bar.LineStyle.Width = color.White, vg.Points(0.5)
		p.Add(bar)
		top = max(top, y)
	}
	var expected plotter.XYs // a step at each bin's expected count
	for b := range bins {
		expected = append(expected, plotter.XY{X: float64(h.Edges[b]), Y: h.Expected[b]}, plotter.XY{X: float64(h.Edges[b+1]), Y: h.Expected[b]})
	}
	line, err := plotter.NewLine(expected)
	if err != nil {
		return nil, err
	}
	line.Dashes, line.Color = []vg.Length{vg.Points(3), vg.Points(3)}, color.Gray{Y: 90}
	p.Add(line)
	p.X.Min, p.X.Max = 0, float64(h.Edges[bins])
	p.Y.Min, p.Y.Max = 0, top*1.05
	return p, nil
}

// binomialInterval is the central interval of Binomial(n, prob) holding at
// least level of its mass: its (1−level)/2 and (1+level)/2 quantiles.
func binomialInterval(n int, prob, level float64) (lo, hi float64) {
	d := distuv.Binomial{N: float64(n), P: prob}
	quantile := func(q float64) float64 {
		for k := 0; k < n; k++ {
			if d.CDF(float64(k)) >= q {
				return float64(k)
			}
		}
		return float64(n)
	}
	if n == 0 || !(prob > 0 && prob < 1) {
		return 0, 0
	}
	return quantile((1 - level) / 2), quantile((1 + level) / 2)
}
