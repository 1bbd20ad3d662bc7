package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/temper-ppl/temper/infer"
)

// ExchangeKinds are the plots of a replica-exchange run's ladder, drawn
// from what its diagnostics record (WriteExchange).
var ExchangeKinds = []string{"index", "ladder", "swaps"}

// Exchange is what a replica-exchange run records of one chain's ladder.
type Exchange struct {
	// Every is the exchange rounds between samples of Index and Ladder.
	Every int
	// Index[i][l] is the replica (numbered by its starting level) at
	// level l at sample i: the replica index process.
	Index [][]int
	// Ladder[i][l] is level l's temperature or step size at sample i;
	// LadderName says which.
	Ladder     [][]float64
	LadderName string
	// SwapRates and Attempts are per adjacent pair (l, l+1), over the run.
	SwapRates []float64
	Attempts  []int
}

// NewExchange is the Exchange of one chain's ladder: the index process and
// ladder trace sampled every few rounds, the final ladder (which says
// whether its values are temperatures or step sizes) and the swaps
// attempted and accepted per adjacent pair.
func NewExchange(every int, index [][]int, trace [][]float64, final []infer.Level, attempts, accepts []int) Exchange {
	ex := Exchange{Every: every, Index: index, Ladder: trace, LadderName: "temperature", Attempts: attempts}
	if len(final) > 1 && final[0].LR != final[len(final)-1].LR {
		ex.LadderName = "step size"
	}
	for p, n := range attempts {
		rate := math.NaN()
		if n > 0 && p < len(accepts) {
			rate = float64(accepts[p]) / float64(n)
		}
		ex.SwapRates = append(ex.SwapRates, rate)
	}
	return ex
}

// WriteExchange draws kind of ExchangeKinds into path:
//   - index: each replica's level over the rounds, grey, with the first
//     replica that makes a round trip (target, top, target) in colour;
//   - ladder: each level's temperature or step size over the rounds, on a
//     log scale;
//   - swaps: the swap rate of each adjacent pair, its attempts above it.
func WriteExchange(path, kind string, ex Exchange) error {
	var p *plot.Plot
	var err error
	switch kind {
	case "index":
		p, err = indexPlot(ex)
	case "ladder":
		p, err = ladderPlot(ex)
	case "swaps":
		p, err = swapsPlot(ex)
	default:
		return fmt.Errorf("plot: no exchange kind %q; the kinds are index, ladder, swaps", kind)
	}
	if err != nil {
		return err
	}
	if kind != "ladder" {
		return save(path, 9*vg.Inch, 4.5*vg.Inch, func(dc draw.Canvas) error { finish(p).Draw(dc); return nil })
	}
	// The ladder's colour key at the right, level by level, beside the
	// plot's data area.
	return save(path, 9.8*vg.Inch, 4.5*vg.Inch, func(dc draw.Canvas) error {
		w := dc.Max.X - dc.Min.X
		plotArea := draw.Crop(dc, 0, -0.8*vg.Inch, 0, 0)
		finish(p).Draw(plotArea)
		data := p.DataCanvas(plotArea)
		levelKey(draw.Crop(dc, w-0.8*vg.Inch, 0, data.Min.Y-dc.Min.Y, data.Max.Y-dc.Max.Y), LevelColors(len(ex.Ladder[0])))
		return nil
	})
}

// LevelColors are the colours of a ladder's p levels, from cold (level 1,
// the target, dark blue) to hot (the top level, orange), interpolated on
// Moreland's extended black-body colour map with its black and white ends
// left off: every level its own colour, dark enough to see on white.
func LevelColors(p int) []color.Color {
	cmap := moreland.ExtendedBlackBody()
	cmap.SetMax(1)
	const from, to = 0.2, 0.78
	out := make([]color.Color, p)
	for l := range out {
		v := from
		if p > 1 {
			v += (to - from) * float64(l) / float64(p-1)
		}
		c, err := cmap.At(v)
		if err != nil {
			panic(err) // not reached: v is in the map's range
		}
		r, g, b, _ := c.RGBA()
		out[l] = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255}
	}
	return out
}

// levelKey draws the key of the level colours in dc: a swatch per level,
// level 1 at the bottom as in the plots, labelled at level 1, the top
// level and round levels between, under the heading "level".
func levelKey(dc draw.Canvas, colours []color.Color) {
	n := len(colours)
	if n == 0 {
		return
	}
	sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 10), Handler: plot.DefaultTextHandler}
	head := sty
	head.XAlign = draw.XCenter
	x0 := dc.Min.X + 4*vg.Millimeter
	x1 := x0 + 5*vg.Millimeter
	h := (dc.Max.Y - dc.Min.Y) / vg.Length(n)
	for l, c := range colours {
		y0 := dc.Min.Y + vg.Length(l)*h
		dc.FillPolygon(c, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y0 + h}, {X: x0, Y: y0 + h}})
	}
	dc.FillText(head, vg.Point{X: (x0 + x1) / 2, Y: dc.Max.Y + 2*vg.Millimeter}, "level")
	label := sty
	label.YAlign = draw.YCenter
	for _, l := range keyLevels(n) {
		dc.FillText(label, vg.Point{X: x1 + 1.5*vg.Millimeter, Y: dc.Min.Y + (vg.Length(l)-0.5)*h}, strconv.Itoa(l))
	}
}

// keyLevels are the levels of 1 to n a key labels: 1, n, and the round
// levels NiceTicks marks between them, less those within half a step of
// either end.
func keyLevels(n int) []int {
	var marked []int
	for _, t := range (NiceTicks{Whole: true}).Ticks(1, float64(n)) {
		if t.Label != "" {
			marked = append(marked, int(t.Value))
		}
	}
	out := []int{1}
	if len(marked) > 1 {
		half := float64(marked[1]-marked[0]) / 2
		for _, l := range marked {
			if float64(l-1) >= half && float64(n-l) >= half {
				out = append(out, l)
			}
		}
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}

func indexPlot(ex Exchange) (*plot.Plot, error) {
	if len(ex.Index) == 0 {
		return nil, fmt.Errorf("plot: the run recorded no replica index process (a run without replica exchange?)")
	}
	levels := len(ex.Index[0])
	// Each replica's level at each sample.
	path := make([]plotter.XYs, levels)
	for i, at := range ex.Index {
		for l, r := range at {
			if r >= 0 && r < levels {
				path[r] = append(path[r], plotter.XY{X: float64(i * max(1, ex.Every)), Y: float64(l + 1)})
			}
		}
	}
	trip := -1
	for r, xy := range path {
		if roundTrip(xy, levels) {
			trip = r
			break
		}
	}
	title := fmt.Sprintf("replica index process: %d replicas over %d levels", levels, levels)
	if trip >= 0 {
		title += fmt.Sprintf("; in colour replica %d, the first to make a round trip", trip+1)
	}
	p := newPlot(title, "exchange round", "level (1: the target)")
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks{Whole: true}, NiceTicks{Whole: true}
	for r, xy := range path {
		if r == trip || len(xy) < 2 {
			continue
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = color.Gray{Y: 200}, vg.Points(0.5)
		p.Add(line)
	}
	if trip >= 0 {
		line, err := plotter.NewLine(path[trip])
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = chainColor(1), vg.Points(1.5)
		p.Add(line)
	}
	return p, nil
}

// roundTrip reports whether a replica's path goes from level 1 to the top
// and back to 1.
func roundTrip(xy plotter.XYs, levels int) bool {
	stage := 0
	for _, pt := range xy {
		switch {
		case stage == 0 && pt.Y == 1:
			stage = 1
		case stage == 1 && pt.Y == float64(levels):
			stage = 2
		case stage == 2 && pt.Y == 1:
			return true
		}
	}
	return false
}

func ladderPlot(ex Exchange) (*plot.Plot, error) {
	if len(ex.Ladder) == 0 {
		return nil, fmt.Errorf("plot: the run recorded no ladder over time (a run without replica exchange?)")
	}
	name := ex.LadderName
	if name == "" {
		name = "ladder value"
	}
	p := newPlot(fmt.Sprintf("the ladder over the run: each level's %s", name), "exchange round", name+" (log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = NiceLogTicks{}
	p.X.Tick.Marker = NiceTicks{Whole: true}
	colours := LevelColors(len(ex.Ladder[0]))
	for l := range ex.Ladder[0] {
		var xy plotter.XYs
		for i, at := range ex.Ladder {
			if at[l] > 0 {
				xy = append(xy, plotter.XY{X: float64(i * max(1, ex.Every)), Y: at[l]})
			}
		}
		if len(xy) < 2 {
			continue
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = colours[l], vg.Points(1)
		p.Add(line)
	}
	return p, nil
}

func swapsPlot(ex Exchange) (*plot.Plot, error) {
	if len(ex.SwapRates) == 0 {
		return nil, fmt.Errorf("plot: the run recorded no swaps (a run without replica exchange?)")
	}
	values := make(plotter.Values, len(ex.SwapRates))
	var labels []string
	for i, r := range ex.SwapRates {
		values[i] = r
		labels = append(labels, fmt.Sprintf("%d-%d", i+1, i+2))
	}
	p := newPlot("swap rate of each adjacent pair of levels (attempts above)", "pair of levels", "swaps accepted / attempted")
	bars, err := plotter.NewBarChart(values, vg.Points(14))
	if err != nil {
		return nil, err
	}
	bars.Color = chainColor(0)
	p.Add(bars)
	p.NominalX(labels...)
	p.Y.Min, p.Y.Max = 0, 1
	if len(ex.Attempts) == len(ex.SwapRates) {
		var xys plotter.XYs
		var text []string
		for i, a := range ex.Attempts {
			xys = append(xys, plotter.XY{X: float64(i), Y: min(1, values[i]) + 0.04})
			text = append(text, fmt.Sprint(a))
		}
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: text})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(lab)
	}
	return p, nil
}
