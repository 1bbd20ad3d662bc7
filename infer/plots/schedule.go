package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/temper-ppl/temper/infer"
)

// WriteSchedule draws a cyclical schedule (seed 002, Eq. 1): the step
// size over the run's iterations, each cycle's exploration stage shaded,
// and the iterations whose draws a run with burn-in burn and thinning thin
// keeps marked along the top.
func WriteSchedule(path string, c infer.Cyclical, burn, thin int) error {
	if c.Iterations < 1 {
		return fmt.Errorf("plot: the schedule needs its number of iterations")
	}
	p := newPlot(fmt.Sprintf("cyclical step size: %d cycles of %d iterations, the exploration stages (%.3g of each) shaded", c.Cycles, c.Length(), c.Explore),
		"iteration", "step size")
	p.X.Tick.Marker = NiceTicks{Whole: true}
	top := c.Initial * 1.08
	// The shaded exploration stages, one polygon per cycle.
	for start := 0; start < c.Iterations; start += c.Length() {
		end := start
		for end < c.Iterations {
			if _, exploring := c.Stage(end); !exploring || end-start >= c.Length() {
				break
			}
			end++
		}
		if end == start {
			continue
		}
		shade, err := plotter.NewPolygon(plotter.XYs{{X: float64(start), Y: 0}, {X: float64(end), Y: 0}, {X: float64(end), Y: top}, {X: float64(start), Y: top}})
		if err != nil {
			return err
		}
		shade.Color, shade.LineStyle.Width = color.NRGBA{R: 230, G: 159, B: 0, A: 60}, 0
		p.Add(shade)
	}
	step := max(1, c.Iterations/4000)
	var xy, kept plotter.XYs
	for k := 0; k < c.Iterations; k++ {
		if k%step == 0 || k == c.Iterations-1 {
			xy = append(xy, plotter.XY{X: float64(k), Y: c.StepSize(k)})
		}
		if c.Keeps(k, burn, thin) {
			kept = append(kept, plotter.XY{X: float64(k), Y: top * 0.97})
		}
	}
	line, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	line.Color, line.Width = chainColor(0), vg.Points(1)
	p.Add(line)
	if len(kept) > 0 && len(kept) <= 2000 { // a mark per kept draw while they can be told apart
		marks, err := plotter.NewScatter(kept)
		if err != nil {
			return err
		}
		marks.GlyphStyle.Shape, marks.GlyphStyle.Radius, marks.GlyphStyle.Color = draw.PyramidGlyph{}, vg.Points(1.5), chainColor(1)
		p.Add(marks)
		p.Title.Text += fmt.Sprintf(", the %d kept draws marked", len(kept))
	}
	p.Y.Min, p.Y.Max = 0, top
	return save(path, 10*vg.Inch, 4*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
}
