package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/temper-ppl/temper/infer/summary"
)

// Modes describes the modes plot of a two-dimensional target.
type Modes struct {
	// LogDensity is the target's log density at (x, y), up to a constant.
	LogDensity func(x, y float64) float64
	// Centres, if any, are the modes' centres; a mode is covered when more
	// than MinDraws draws lie within Radius of its centre
	// (summary.ModeCoverage, seed 002's Table 4).
	Centres  [][2]float64
	Radius   float64
	MinDraws int
}

// modesGrid is the density on a grid, relative to its largest value, for
// plotter.NewContour.
type modesGrid struct {
	xs, ys []float64
	z      [][]float64 // z[row][col]
}

func (g modesGrid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g modesGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g modesGrid) X(c int) float64    { return g.xs[c] }
func (g modesGrid) Y(r int) float64    { return g.ys[r] }

// contour is the level set z = level of the grid as segments, by marching
// squares over the cells in row-major order; a saddle cell's four crossings
// pair in edge order.
func (g modesGrid) contour(level float64) [][2]plotter.XY {
	var segs [][2]plotter.XY
	cross := func(x0, y0, z0, x1, y1, z1 float64, out []plotter.XY) []plotter.XY {
		if (z0 < level) == (z1 < level) {
			return out
		}
		t := (level - z0) / (z1 - z0)
		return append(out, plotter.XY{X: x0 + t*(x1-x0), Y: y0 + t*(y1-y0)})
	}
	for r := 0; r+1 < len(g.ys); r++ {
		for c := 0; c+1 < len(g.xs); c++ {
			x0, x1, y0, y1 := g.xs[c], g.xs[c+1], g.ys[r], g.ys[r+1]
			z00, z10, z01, z11 := g.z[r][c], g.z[r][c+1], g.z[r+1][c], g.z[r+1][c+1]
			pts := cross(x0, y0, z00, x1, y0, z10, nil)
			pts = cross(x1, y0, z10, x1, y1, z11, pts)
			pts = cross(x1, y1, z11, x0, y1, z01, pts)
			pts = cross(x0, y1, z01, x0, y0, z00, pts)
			for i := 0; i+1 < len(pts); i += 2 {
				segs = append(segs, [2]plotter.XY{pts[i], pts[i+1]})
			}
		}
	}
	return segs
}

// contourLines draws segments in one style.
type contourLines struct {
	segs  [][2]plotter.XY
	style draw.LineStyle
}

func (l contourLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range l.segs {
		c.StrokeLine2(l.style, trX(s[0].X), trY(s[0].Y), trX(s[1].X), trY(s[1].Y))
	}
}

// WriteModes draws the draws of the columns x and y, every chain pooled,
// over the contours of the target's density (at 0.5, 0.1, 0.01 and 0.001
// of its largest value on the plotted square), with the modes' centres:
// filled where covered, open where not, the count in the title.
func WriteModes(path string, src Source, x, y string, m Modes) error {
	var xs, ys []float64
	xc, yc := src.ByChain(x), src.ByChain(y)
	if len(xc) == 0 || len(yc) == 0 {
		return fmt.Errorf("plot: no draws of %s or %s", x, y)
	}
	for c := range xc {
		xs, ys = append(xs, xc[c]...), append(ys, yc[c]...)
	}
	if len(xs) != len(ys) {
		return fmt.Errorf("plot: %d draws of %s, %d of %s", len(xs), x, len(ys), y)
	}
	lo, hi := extent([][]float64{xs, ys})
	for _, c := range m.Centres {
		lo, hi = min(lo, c[0], c[1]), max(hi, c[0], c[1])
	}
	pad := 0.08 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	const n = 100
	g := modesGrid{xs: make([]float64, n), ys: make([]float64, n), z: make([][]float64, n)}
	for i := range n {
		g.xs[i] = lo + (hi-lo)*float64(i)/(n-1)
		g.ys[i] = g.xs[i]
	}
	top := math.Inf(-1)
	for r := range n {
		g.z[r] = make([]float64, n)
		for c := range n {
			g.z[r][c] = m.LogDensity(g.xs[c], g.ys[r])
			if !math.IsNaN(g.z[r][c]) {
				top = max(top, g.z[r][c])
			}
		}
	}
	if math.IsInf(top, 0) {
		return fmt.Errorf("plot: the log density is not finite anywhere on [%g, %g]²", lo, hi)
	}
	for r := range n {
		for c := range n {
			g.z[r][c] = math.Exp(g.z[r][c] - top)
		}
	}
	title := fmt.Sprintf("draws of %s and %s over the target's density", x, y)
	var cov summary.Coverage
	if len(m.Centres) > 0 {
		cov = summary.ModeCoverage(xs, ys, m.Centres, m.Radius, m.MinDraws)
		title += fmt.Sprintf(": %d of %d modes covered (> %d draws within %g)", cov.Covered, len(m.Centres), m.MinDraws, m.Radius)
	}
	p := newPlot(title, x, y)
	// gonum's plotter.Contour orders its paths by map iteration, which
	// would make every drawing of the same run a different file: the
	// levels are drawn as marching-squares segments, in grid order.
	for i, level := range []float64{0.001, 0.01, 0.1, 0.5} {
		p.Add(contourLines{segs: g.contour(level), style: draw.LineStyle{Color: palette.Heat(4, 1).Colors()[i], Width: vg.Points(1)}})
	}
	step := max(1, len(xs)/scatterPoints)
	var pts plotter.XYs
	for i := 0; i < len(xs); i += step {
		pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plot: %v", err)
	}
	s.GlyphStyle.Radius, s.GlyphStyle.Color = vg.Points(0.9), color.NRGBA{R: 0, G: 114, B: 178, A: 110}
	p.Add(s)
	for i, c := range m.Centres {
		mark, _ := plotter.NewScatter(plotter.XYs{{X: c[0], Y: c[1]}})
		mark.GlyphStyle.Radius, mark.GlyphStyle.Color = vg.Points(3.5), color.Black
		mark.GlyphStyle.Shape = draw.RingGlyph{}
		if cov.Counts[i] > m.MinDraws {
			mark.GlyphStyle.Shape = draw.CircleGlyph{}
		}
		p.Add(mark)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	return save(path, 7*vg.Inch, 7*vg.Inch, func(dc draw.Canvas) error { p.Draw(dc); return nil })
}
