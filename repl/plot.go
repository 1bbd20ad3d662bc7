package repl

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgeps" // .eps
	_ "gonum.org/v1/plot/vg/vgimg" // the .png, .jpg and .tif formats
	_ "gonum.org/v1/plot/vg/vgpdf" // .pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // .svg

	"github.com/temper-ppl/temper/infer/summary"
)

// chainColors tell the chains apart in a trace (Okabe-Ito, readable with
// any colour vision); the list repeats past eight chains.
var chainColors = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {230, 159, 0, 255}, {240, 228, 66, 255}, {0, 0, 0, 255},
}

// plot writes the trace of one column's draws (every chain) beside their
// histogram (all chains pooled) to an SVG file.
func (s *Session) plot(args []string) {
	if !s.needResult() {
		return
	}
	name := args[0]
	cols, err := selectColumns(s.result.Columns, []string{name})
	if err != nil {
		s.errorf("%v\n", err)
		return
	}
	if len(cols) > 1 {
		s.printf("%s has %d elements (%s, ...): plot one of them\n", name, len(cols), strings.Join(cols[:min(3, len(cols))], ", "))
		return
	}
	path := name + ".svg"
	if len(args) == 2 {
		path = args[1]
	}
	chains := s.result.Column(cols[0])
	if err := writeTracePlot(path, cols[0], s.result.Iters, chains); err != nil {
		s.printError(err)
		return
	}
	st := summary.Summarize(cols[0], chains)
	s.printf("trace and histogram of %s (mean %.4g, sd %.4g, R-hat %.3f) in %s\n", cols[0], st.Mean, st.SD, st.Rhat, path)
}

// writeTracePlot writes the plot in the format the path's extension names:
// .svg, .png, .jpg, .pdf, .eps or .tif.
func writeTracePlot(path, name string, iters []int, chains [][]float64) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	img, err := draw.NewFormattedCanvas(10*vg.Inch, 3.5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("%s: a plot is written as .svg, .png, .jpg, .pdf, .eps or .tif, by the file's extension", path)
	}
	if err := drawTracePlot(img, name, iters, chains); err != nil {
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

// drawTracePlot draws the trace (left) and the histogram (right) on c.
func drawTracePlot(c vg.CanvasSizer, name string, iters []int, chains [][]float64) error {
	trace := plot.New()
	trace.Title.Text = "trace of " + name
	trace.X.Label.Text = "iteration after burn-in"
	trace.Y.Label.Text = name
	var all plotter.Values
	legend := plot.NewLegend()
	for c, draws := range chains {
		xy := make(plotter.XYs, len(draws))
		for i, v := range draws {
			xy[i].X = float64(i + 1)
			if i < len(iters) {
				xy[i].X = float64(iters[i] + 1)
			}
			xy[i].Y = v
		}
		all = append(all, draws...)
		line, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plotting chain %d: %v", c+1, err)
		}
		line.Color = chainColors[c%len(chainColors)]
		line.Width = vg.Points(0.6)
		trace.Add(line)
		legend.Add(fmt.Sprintf("chain %d", c+1), line)
	}
	trace.Y.Tick.Marker = readableTicks{}
	trace.X.Tick.Marker = readableTicks{}
	hist := plot.New()
	hist.Title.Text = "histogram of " + name
	hist.X.Label.Text = name
	hist.Y.Label.Text = "draws"
	bins := max(10, min(60, len(all)/40))
	h, err := plotter.NewHist(all, bins)
	if err != nil {
		return fmt.Errorf("plotting the histogram: %v", err)
	}
	h.FillColor = color.NRGBA{R: 0, G: 114, B: 178, A: 140}
	hist.Add(h)
	hist.X.Tick.Marker = readableTicks{}
	hist.Y.Tick.Marker = readableTicks{}
	// The trace, its legend beside it (outside the data, which a legend
	// drawn on the trace hides), then the histogram: 55%, 8%, 37% of the
	// width, less the padding.
	dc := draw.Crop(draw.New(c), 2*vg.Millimeter, -2*vg.Millimeter, 2*vg.Millimeter, -2*vg.Millimeter)
	w := dc.Max.X - dc.Min.X
	trace.Draw(draw.Crop(dc, 0, -0.45*w, 0, 0))
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, 0.56*w, -0.37*w, 0, -6*vg.Millimeter))
	hist.Draw(draw.Crop(dc, 0.65*w, 0, 0, 0))
	return nil
}

// readableTicks are gonum/plot's default ticks labelled with the fewest
// digits that tell them apart ("2500", "0.25"), not a fixed two decimals.
type readableTicks struct{}

func (readableTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 6, 64)
		}
	}
	return ticks
}
