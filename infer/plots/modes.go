package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
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

// Thumbnail implements plot.Thumbnailer: the line in the key.
func (l contourLines) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// WriteModes draws the draws of the columns x and y, every chain pooled,
// over the contours of the target's density (at 0.5, 0.1, 0.01 and 0.001
// of its largest value on the plotted square, dark to light), with the
// modes' centres: filled where covered, open where not, the count in the
// title; a key beside the plot says what the contours and marks are.
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
	key := plot.NewLegend()
	key.TextStyle.Font.Size, key.Padding = vg.Points(10), vg.Points(2)
	key.Add("contours of the")
	key.Add("target's density:")
	// gonum's plotter.Contour orders its paths by map iteration, which
	// would make every drawing of the same run a different file: the
	// levels are drawn as marching-squares segments, in grid order.
	for i, level := range contourLevels {
		lines := contourLines{segs: g.contour(level), style: draw.LineStyle{Color: contourColours[i], Width: vg.Points(1)}}
		p.Add(lines)
		key.Add(strconv.FormatFloat(level, 'g', -1, 64)+" × its peak", lines)
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
	dot := *s // the key's dot, large enough to see
	dot.GlyphStyle.Radius, dot.GlyphStyle.Color = vg.Points(2), color.NRGBA{R: 0, G: 114, B: 178, A: 255}
	key.Add("")
	key.Add("draws", &dot)
	var shown [2]bool // a covered and an uncovered centre in the key
	for i, c := range m.Centres {
		mark, _ := plotter.NewScatter(plotter.XYs{{X: c[0], Y: c[1]}})
		mark.GlyphStyle.Radius, mark.GlyphStyle.Color = vg.Points(3.5), color.Black
		mark.GlyphStyle.Shape = draw.RingGlyph{}
		covered := cov.Counts[i] > m.MinDraws
		if covered {
			mark.GlyphStyle.Shape = draw.CircleGlyph{}
		}
		p.Add(mark)
		k, name := 0, "mode, covered"
		if !covered {
			k, name = 1, "mode, not covered"
		}
		if !shown[k] {
			shown[k] = true
			key.Add(name, mark)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	return save(path, 8.6*vg.Inch, 7*vg.Inch, func(dc draw.Canvas) error {
		area := draw.Crop(dc, 0, -1.6*vg.Inch, 0, 0)
		p.Draw(area)
		data := p.DataCanvas(area)
		key.Top, key.Left = true, true
		key.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-1.5*vg.Inch, 0, 0, data.Max.Y-dc.Max.Y))
		return nil
	})
}

// contourLevels are the modes plot's contours, as shares of the density's
// largest value on the plotted square, and contourColours theirs: dark
// where the density is high, light where it is low, on Moreland's
// black-body colour map.
var (
	contourLevels  = []float64{0.5, 0.1, 0.01, 0.001}
	contourColours = func() []color.Color {
		cmap := moreland.BlackBody()
		cmap.SetMax(1)
		var out []color.Color
		for _, v := range []float64{0.3, 0.47, 0.64, 0.8} {
			c, err := cmap.At(v)
			if err != nil {
				panic(err) // not reached: v is in the map's range
			}
			r, g, b, _ := c.RGBA()
			out = append(out, color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255})
		}
		return out
	}()
)

// modeColours are n modes' colours: Okabe and Ito's, less their yellow,
// which is too light for points on white, for up to seven; a rainbow's
// beyond.
func modeColours(n int) []color.Color {
	if n <= 7 {
		return ChainColors[:7] // the yellow is the last
	}
	return palette.Rainbow(n, palette.Blue, palette.Red, 0.9, 0.7, 0.8).Colors()
}

// ProjectedModes is a mode plot of more than two parameters: the draws on
// their first two principal components, each coloured by the mode nearest
// it, with the modes' centres and masses.
type ProjectedModes struct {
	// Columns are the parameters' columns of the draws.
	Columns []string
	// Centres are the modes' centres over Columns, and Masses their masses
	// (both may be empty: the draws alone).
	Centres [][]float64
	Masses  []float64
}

// WriteModesProjected draws the draws of m's columns, every chain pooled,
// standardised and projected on their first two principal components
// (gonum's stat.PC), where modes separated in any direction that carries
// the draws' variance stand apart. Each draw takes the colour of the
// centre nearest it in the standardised space, and each centre is marked
// with its mass.
func WriteModesProjected(path string, src Source, m ProjectedModes) error {
	k := len(m.Columns)
	if k < 2 {
		return fmt.Errorf("plot: a projection of the modes needs two parameters or more, got %d", k)
	}
	var cols [][]float64
	for _, c := range m.Columns {
		var all []float64
		for _, chain := range src.ByChain(c) {
			all = append(all, chain...)
		}
		if len(all) < 3 || len(cols) > 0 && len(all) != len(cols[0]) {
			return fmt.Errorf("plot: %d draws of %s", len(all), c)
		}
		cols = append(cols, all)
	}
	n := len(cols[0])
	mean, sd := make([]float64, k), make([]float64, k)
	for j, x := range cols {
		mean[j], sd[j] = stat.MeanStdDev(x, nil)
		if !(sd[j] > 0) {
			sd[j] = 1 // a constant column: no direction of its own
		}
	}
	data := mat.NewDense(n, k, nil)
	for i := range n {
		for j := range k {
			data.Set(i, j, (cols[j][i]-mean[j])/sd[j])
		}
	}
	var pc stat.PC
	if !pc.PrincipalComponents(data, nil) {
		return fmt.Errorf("plot: the principal components of the draws could not be computed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	total := 0.0
	for _, v := range vars {
		total += v
	}
	project := func(z []float64) (float64, float64) {
		var a, b float64
		for j, v := range z {
			a += v * vecs.At(j, 0)
			b += v * vecs.At(j, 1)
		}
		return a, b
	}
	centres := make([][]float64, len(m.Centres))
	for c, x := range m.Centres {
		if len(x) != k {
			return fmt.Errorf("plot: a centre of %d values for %d columns", len(x), k)
		}
		centres[c] = make([]float64, k)
		for j := range k {
			centres[c][j] = (x[j] - mean[j]) / sd[j]
		}
	}
	colours := modeColours(len(centres))
	groups := make([]plotter.XYs, max(1, len(centres)))
	step := max(1, n/scatterPoints)
	z := make([]float64, k)
	for i := 0; i < n; i += step {
		best, nearest := math.Inf(1), 0
		for j := range k {
			z[j] = data.At(i, j)
		}
		for c, x := range centres {
			d := 0.0
			for j := range k {
				d += (z[j] - x[j]) * (z[j] - x[j])
			}
			if d < best {
				best, nearest = d, c
			}
		}
		a, b := project(z)
		groups[nearest] = append(groups[nearest], plotter.XY{X: a, Y: b})
	}
	title := fmt.Sprintf("draws of %d parameters on their first two principal components", k)
	if len(centres) > 0 {
		title += fmt.Sprintf(", by the nearest of %d modes", len(centres))
	}
	p := newPlot(title, fmt.Sprintf("PC1 (%.0f%% of the variance)", 100*vars[0]/total), fmt.Sprintf("PC2 (%.0f%%)", 100*vars[1]/total))
	for c, pts := range groups {
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		r, g, b, _ := colours[c%len(colours)].RGBA()
		s.GlyphStyle.Radius, s.GlyphStyle.Color = vg.Points(0.9), color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 120}
		p.Add(s)
	}
	var marks plotter.XYs
	var labels []string
	for c, x := range centres {
		a, b := project(x)
		marks = append(marks, plotter.XY{X: a, Y: b})
		label := fmt.Sprintf("mode %d", c+1)
		if c < len(m.Masses) {
			label += fmt.Sprintf(", mass %.3f", m.Masses[c])
		}
		labels = append(labels, label)
	}
	if len(marks) > 0 {
		s, err := plotter.NewScatter(marks)
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		s.GlyphStyle.Radius, s.GlyphStyle.Color, s.GlyphStyle.Shape = vg.Points(3.5), color.Black, draw.RingGlyph{}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: marks, Labels: labels})
		if err != nil {
			return fmt.Errorf("plot: %v", err)
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.Offset = draw.XLeft, vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		}
		p.Add(s, l)
	}
	return save(path, 7*vg.Inch, 7*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}
