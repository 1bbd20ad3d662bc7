// Package plots draws a run's draws for people to look at, on gonum/plot:
// traces with their densities, rank plots (Vehtari et al. 2021, section
// 4.3), autocorrelations and pair plots. temper plot, the REPL's :plot and
// Go programs share it.
package plots

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgeps" // .eps
	_ "gonum.org/v1/plot/vg/vgimg" // .png, .jpg and .tif
	_ "gonum.org/v1/plot/vg/vgpdf" // .pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // .svg

	"github.com/temper-ppl/temper/infer/summary"
)

// Kinds are the plots Write draws:
//   - trace: each parameter's draws against the iteration, a colour per
//     chain, beside the histogram of all chains;
//   - density: a histogram per chain, overlaid;
//   - rank: per chain, the histogram of its draws' ranks among all
//     chains' (uniform when the chains agree);
//   - acf: per chain, the autocorrelation to lag 50;
//   - pair: the draws of two to six parameters against each other, their
//     histograms on the diagonal, and an exact sampler's divergent
//     transitions marked in red (where they cluster, the posterior has a
//     region the step size cannot follow).
var Kinds = []string{"trace", "density", "rank", "acf", "pair"}

// Source gives a column's draws split by chain (infer/draws.Table and
// temper.Result have it).
type Source interface {
	ByChain(column string) [][]float64
}

// ChainColors are the chains' colours, Okabe and Ito's palette for
// colour-blind readers.
var ChainColors = []color.Color{
	color.NRGBA{R: 0, G: 114, B: 178, A: 255},
	color.NRGBA{R: 213, G: 94, B: 0, A: 255},
	color.NRGBA{R: 0, G: 158, B: 115, A: 255},
	color.NRGBA{R: 204, G: 121, B: 167, A: 255},
	color.NRGBA{R: 230, G: 159, B: 0, A: 255},
	color.NRGBA{R: 86, G: 180, B: 233, A: 255},
	color.NRGBA{R: 0, G: 0, B: 0, A: 255},
	color.NRGBA{R: 240, G: 228, B: 66, A: 255},
}

func chainColor(c int) color.Color { return ChainColors[c%len(ChainColors)] }

// Write draws the plot of kind for the named columns of src into path, in
// the format its extension names (.svg, .png, .jpg, .pdf, .eps, .tif).
// iters, if not nil, are the draws' iterations for the trace's x axis.
func Write(path, kind string, src Source, columns []string, iters []int) error {
	if len(columns) == 0 {
		return fmt.Errorf("plot: no columns to plot")
	}
	draws := make([][][]float64, len(columns))
	for i, c := range columns {
		if draws[i] = src.ByChain(c); len(draws[i]) == 0 || len(draws[i][0]) == 0 {
			return fmt.Errorf("plot: no draws of %s", c)
		}
	}
	var (
		width, height vg.Length
		drawOn        func(draw.Canvas) error
	)
	rows := vg.Length(len(columns))
	switch kind {
	case "trace":
		width, height = 10*vg.Inch, vg.Length(max(3.5, 2.6*float64(len(columns))))*vg.Inch
		divergent := src.ByChain("divergent__") // an exact sampler's, when the source has them
		drawOn = func(dc draw.Canvas) error { return traces(dc, columns, draws, iters, divergent) }
	case "density", "rank", "acf":
		width, height = 7*vg.Inch, rows*2.6*vg.Inch
		drawOn = func(dc draw.Canvas) error { return perChain(dc, kind, columns, draws) }
	case "pair":
		if len(columns) < 2 || len(columns) > 6 {
			return fmt.Errorf("plot: a pair plot takes 2 to 6 columns, got %d", len(columns))
		}
		width, height = rows*2.4*vg.Inch, rows*2.4*vg.Inch
		divergent := src.ByChain("divergent__") // an exact sampler's, when the source has them
		drawOn = func(dc draw.Canvas) error { return pairs(dc, columns, draws, divergent) }
	default:
		return fmt.Errorf("plot: no kind %q; the kinds are %s", kind, strings.Join(Kinds, ", "))
	}
	return save(path, width, height, drawOn)
}

// save draws a figure of the given size with drawOn, inside a small
// margin, and writes it to path in the format of its extension.
func save(path string, width, height vg.Length, drawOn func(draw.Canvas) error) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	img, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return fmt.Errorf("%s: a plot is written as .svg, .png, .jpg, .pdf, .eps or .tif, by the file's extension", path)
	}
	if err := drawOn(draw.Crop(draw.New(img), 2*vg.Millimeter, -2*vg.Millimeter, 2*vg.Millimeter, -2*vg.Millimeter)); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rowsOf splits dc into n rows, top first, a little apart.
func rowsOf(dc draw.Canvas, n int) []draw.Canvas {
	h := (dc.Max.Y - dc.Min.Y) / vg.Length(n)
	out := make([]draw.Canvas, n)
	for i := range out {
		gap := vg.Length(0)
		if i > 0 {
			gap = 3 * vg.Millimeter // between a row's axis label and the next one's title
		}
		out[i] = draw.Crop(dc, 0, 0, vg.Length(n-1-i)*h, -vg.Length(i)*h-gap)
	}
	return out
}

// chainLegend is the chains' legend: a line of each chain's colour, and
// the extra entries after them. Where there are more chains than colours,
// it says how many, and each colour's line names the first chains that
// share it.
func chainLegend(chains int, extra ...legendEntry) plot.Legend {
	l := plot.NewLegend()
	if chains > len(ChainColors) {
		l.Add(fmt.Sprintf("%d chains:", chains))
	}
	for c := range min(chains, len(ChainColors)) {
		line, _ := plotter.NewLine(plotter.XYs{{}, {}})
		line.Color = chainColor(c)
		name := fmt.Sprintf("chain %d", c+1)
		if chains > len(ChainColors) {
			name = strconv.Itoa(c + 1)
			if c+len(ChainColors) < chains {
				name += fmt.Sprintf(", %d", c+1+len(ChainColors))
			}
			if c+2*len(ChainColors) < chains {
				name += ", …"
			}
		}
		l.Add(name, line)
	}
	for _, e := range extra {
		l.Add(e.name, e.thumb)
	}
	return l
}

// legendEntry is a legend's line beyond the chains'.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// legendBeside draws l at the top left of dc, in 11-point type.
func legendBeside(dc draw.Canvas, l plot.Legend) {
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(11)
	l.Draw(dc)
}

// traceLength and scatterPoints bound the points a trace draws per chain
// and a scatter in all.
const (
	traceLength   = 1500
	scatterPoints = 2000
)

// divergentColour marks an exact sampler's divergent transitions.
var divergentColour = color.NRGBA{R: 213, G: 0, B: 0, A: 220}

// rugMarks are short vertical marks under a plot's data area, in the
// padding above its x axis (rugPadding), one at each x: the iterations of
// a trace whose transitions diverged, clear of the trace's lines.
type rugMarks struct {
	xs    []float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (r rugMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range r.xs {
		if at := trX(x); c.ContainsX(at) {
			c.StrokeLine2(r.style, at, c.Min.Y-rugPadding+vg.Points(1.5), at, c.Min.Y-vg.Points(1.5))
		}
	}
}

// rugPadding is the padding between a plot's x axis and its data area
// that holds rugMarks.
const rugPadding = 9 * vg.Millimeter / 2

// Thumbnail implements plot.Thumbnailer.
func (r rugMarks) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(r.style, x, c.Min.Y, x, c.Max.Y)
}

// divergentAt is the trace's x of each draw whose divergent flag (by
// chain, as draws) is set, all chains', in order: the draw's number, or
// its iteration's where iters gives them.
func divergentAt(divergent [][]float64, iters []int) []float64 {
	var xs []float64
	for _, d := range divergent {
		for j, v := range d {
			if v != 0 && !math.IsNaN(v) {
				x := float64(j + 1)
				if j < len(iters) {
					x = float64(iters[j] + 1)
				}
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	return xs
}

// traces draws a row per column: the trace, with a red mark at the bottom
// at each divergent transition's iteration, then the histogram of all
// chains; the first row has the legend between them.
func traces(dc draw.Canvas, columns []string, draws [][][]float64, iters []int, divergent [][]float64) error {
	marks := rugMarks{xs: divergentAt(divergent, iters), style: draw.LineStyle{Color: divergentColour, Width: vg.Points(1)}}
	var extra []legendEntry
	if len(marks.xs) > 0 {
		extra = append(extra, legendEntry{fmt.Sprintf("divergent (%d)", len(marks.xs)), marks})
	}
	for i, row := range rowsOf(dc, len(columns)) {
		name, chains := columns[i], draws[i]
		axis := "iteration"
		if iters == nil {
			axis = "draw" // a thinned run's draws are not its iterations
		}
		trace := newPlot("trace of "+name, axis, name)
		trace.X.Tick.Marker = NiceTicks{Whole: true}
		var all plotter.Values
		for c, d := range chains {
			// At most traceLength points a chain: enough to see mixing, and
			// a figure of a long run stays small.
			step := max(1, len(d)/traceLength)
			xy := make(plotter.XYs, 0, len(d)/step+1)
			for j := 0; j < len(d); j += step {
				x := float64(j + 1)
				if j < len(iters) {
					x = float64(iters[j] + 1)
				}
				xy = append(xy, plotter.XY{X: x, Y: d[j]})
			}
			all = append(all, d...)
			line, err := plotter.NewLine(xy)
			if err != nil {
				return fmt.Errorf("plot: chain %d of %s: %v", c+1, name, err)
			}
			line.Color, line.Width = chainColor(c), vg.Points(0.6)
			trace.Add(line)
		}
		if len(marks.xs) > 0 {
			trace.Add(marks)
			trace.X.Padding = rugPadding
		}
		hist := newPlot("histogram of "+name, name, "draws")
		h, err := plotter.NewHist(all, max(10, min(60, len(all)/40)))
		if err != nil {
			return fmt.Errorf("plot: histogram of %s: %v", name, err)
		}
		h.FillColor = color.NRGBA{R: 0, G: 114, B: 178, A: 140}
		hist.Add(h)
		w := row.Max.X - row.Min.X
		finish(trace).Draw(draw.Crop(row, 0, -0.45*w, 0, 0))
		if i == 0 {
			legendBeside(draw.Crop(row, 0.56*w, -0.3*w, 0, -6*vg.Millimeter), chainLegend(len(chains), extra...))
		}
		finish(hist).Draw(draw.Crop(row, 0.7*w, 0, 0, 0))
	}
	return nil
}

// perChain draws a row per column of one curve per chain: its histogram
// (density), the histogram of its ranks (rank) or its autocorrelation
// (acf), the chains' legend beside the first row's plot.
func perChain(dc draw.Canvas, kind string, columns []string, draws [][][]float64) error {
	for i, row := range rowsOf(dc, len(columns)) {
		name, chains := columns[i], draws[i]
		var p *plot.Plot
		switch kind {
		case "density":
			p = newPlot("density of "+name+" per chain", name, "density")
		case "rank":
			p = newPlot("rank plot of "+name+" (uniform when the chains agree)", "rank among all chains' draws", "draws")
		default:
			p = newPlot("autocorrelation of "+name, "lag", "autocorrelation")
		}
		if kind != "density" { // ranks and lags are whole numbers
			p.X.Tick.Marker = NiceTicks{Whole: true}
		}
		ranks := summary.Ranks(chains)
		lo, hi := extent(chains)
		for c, d := range chains {
			var xy plotter.XYs
			switch kind {
			case "density":
				xy = histogramLine(d, lo, hi, max(10, min(50, len(d)/30)), true)
			case "rank":
				xy = histogramLine(ranks[c], 0, float64(totalLen(chains)), 20, false)
			default:
				xy = autocorrelation(d, min(50, len(d)-1))
			}
			line, err := plotter.NewLine(xy)
			if err != nil {
				return fmt.Errorf("plot: chain %d of %s: %v", c+1, name, err)
			}
			line.Color, line.Width = chainColor(c), vg.Points(1)
			p.Add(line)
		}
		if kind == "rank" { // the count each bin has when the ranks are uniform
			n := float64(totalLen(chains)) / float64(len(chains)) / 20
			ref, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: n}, {X: float64(totalLen(chains)), Y: n}})
			ref.Dashes, ref.Color = []vg.Length{vg.Points(3), vg.Points(3)}, color.Gray{Y: 90}
			p.Add(ref)
		}
		w := row.Max.X - row.Min.X
		finish(p).Draw(draw.Crop(row, 0, -0.18*w, 0, 0))
		if i == 0 {
			legendBeside(draw.Crop(row, 0.84*w, 0, 0, -6*vg.Millimeter), chainLegend(len(chains)))
		}
	}
	return nil
}

// pairs draws the lower triangle of scatter plots of every two columns and
// each column's histogram on the diagonal, all chains pooled; the draws
// whose divergent flag (by chain, nil for none) is set are drawn on top in
// red, every one of them.
func pairs(dc draw.Canvas, columns []string, draws [][][]float64, divergent [][]float64) error {
	grid, err := pairGrid(columns, draws, divergent)
	if err != nil {
		return err
	}
	n := len(columns)
	tiles := draw.Tiles{Rows: n, Cols: n, PadX: 4 * vg.Millimeter, PadY: 4 * vg.Millimeter}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := 0; j <= i; j++ {
			grid[i][j].Draw(canvases[i][j])
		}
	}
	return nil
}

// pairGrid is the pair plot's panels, grid[i][j] for j ≤ i: column j's
// draws on the x axis of every panel of grid column j, its histogram's
// included, over the same range, and column i's on the y axis of row i's
// scatter plots, so that a panel's axes line up with its row's and
// column's.
func pairGrid(columns []string, draws [][][]float64, divergent [][]float64) ([][]*plot.Plot, error) {
	n := len(columns)
	pooled := make([][]float64, n)
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range columns {
		for _, d := range draws[i] {
			pooled[i] = append(pooled[i], d...)
		}
		lo[i], hi[i] = snapRange(extent([][]float64{pooled[i]}))
	}
	var flagged []int // indices into the pooled draws
	k := 0
	for _, d := range divergent {
		for _, v := range d {
			if v != 0 {
				flagged = append(flagged, k)
			}
			k++
		}
	}
	grid := make([][]*plot.Plot, n)
	for i := range grid {
		grid[i] = make([]*plot.Plot, n)
		for j := 0; j <= i; j++ {
			if i == j {
				p := newPlot("", columns[j], "")
				h, err := plotter.NewHist(plotter.Values(pooled[i]), 30)
				if err != nil {
					return nil, fmt.Errorf("plot: histogram of %s: %v", columns[i], err)
				}
				h.FillColor = color.NRGBA{R: 0, G: 114, B: 178, A: 140}
				p.Add(h)
				p.X.Min, p.X.Max = lo[j], hi[j]
				grid[i][j] = p
				continue
			}
			p := newPlot("", columns[j], columns[i])
			xy := make(plotter.XYs, 0, len(pooled[i]))
			step := max(1, len(pooled[i])/scatterPoints)
			for k := 0; k < len(pooled[i]); k += step {
				xy = append(xy, plotter.XY{X: pooled[j][k], Y: pooled[i][k]})
			}
			if err := addScatter(p, xy, 0.8, color.NRGBA{R: 0, G: 114, B: 178, A: 90}); err != nil {
				return nil, fmt.Errorf("plot: %s against %s: %v", columns[i], columns[j], err)
			}
			if len(flagged) > 0 && k == len(pooled[i]) {
				xy := make(plotter.XYs, len(flagged))
				for m, f := range flagged {
					xy[m] = plotter.XY{X: pooled[j][f], Y: pooled[i][f]}
				}
				if err := addScatter(p, xy, 1.6, divergentColour); err != nil {
					return nil, fmt.Errorf("plot: divergent draws of %s against %s: %v", columns[i], columns[j], err)
				}
				if i == 1 && j == 0 {
					p.Title.Text = fmt.Sprintf("%d divergent transitions (red)", len(flagged))
				}
			}
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo[j], hi[j], lo[i], hi[i]
			grid[i][j] = p
		}
	}
	return grid, nil
}

// addScatter adds the points xy to p as dots of the radius (in points) and
// colour given.
func addScatter(p *plot.Plot, xy plotter.XYs, radius float64, c color.Color) error {
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	s.GlyphStyle.Radius = vg.Points(radius)
	s.GlyphStyle.Color = c
	p.Add(s)
	return nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks{}, NiceTicks{}
	return p
}

func totalLen(chains [][]float64) int {
	n := 0
	for _, d := range chains {
		n += len(d)
	}
	return n
}

func extent(chains [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range chains {
		for _, v := range d {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo >= hi {
		lo, hi = lo-0.5, lo+0.5
	}
	return lo, hi
}

// histogramLine is the outline of a histogram of d over [lo, hi] in bins,
// as a line through the bins' centres: counts, or a density (counts over
// n·width) when density is set.
func histogramLine(d []float64, lo, hi float64, bins int, density bool) plotter.XYs {
	counts := make([]float64, bins)
	width := (hi - lo) / float64(bins)
	for _, v := range d {
		b := int((v - lo) / width)
		if b >= 0 && b <= bins {
			counts[min(b, bins-1)]++
		}
	}
	xy := make(plotter.XYs, bins)
	for b, n := range counts {
		if density {
			n /= float64(len(d)) * width
		}
		xy[b] = plotter.XY{X: lo + (float64(b)+0.5)*width, Y: n}
	}
	return xy
}

// autocorrelation is the sample autocorrelation of d at lags 0 to maxLag.
func autocorrelation(d []float64, maxLag int) plotter.XYs {
	n := len(d)
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(n)
	var c0 float64
	for _, v := range d {
		c0 += (v - mean) * (v - mean)
	}
	xy := make(plotter.XYs, maxLag+1)
	for k := range xy {
		s := 0.0
		for i := 0; i+k < n; i++ {
			s += (d[i] - mean) * (d[i+k] - mean)
		}
		xy[k] = plotter.XY{X: float64(k), Y: s / c0}
		if c0 == 0 {
			xy[k].Y = 0
		}
	}
	return xy
}
