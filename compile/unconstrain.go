package compile

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/stdlib"
)

// unconstrainRange bounds the search for an unconstrained value: the
// transforms saturate in float64 well inside ±60 (exp(-60) ≈ 1e-26).
const unconstrainRange = 60

// Unconstrain maps values of the parameters on their constrained scale, by
// name and flattened row-major as the draws' columns are, to the point θ
// of the unconstrained space that Constrain maps to them: the starting
// point of a chain given by the user (Stan's inits). Every parameter needs
// a value. A bound may depend on earlier parameters, so the parameters are
// solved in declaration order; each coordinate of a bounded parameter is
// found by bisection on its monotone transform, which needs nothing but
// Constrain. A constrained type (simplex, cov_matrix, ...) goes through its
// own inverse transform. A value outside its parameter's support is an
// error: "p: not a simplex: its entries sum to 1.3".
func (m *Model) Unconstrain(values map[string][]float64) ([]float64, error) {
	for name := range values {
		if !m.hasParam(name) {
			return nil, fmt.Errorf("%s is not a parameter of the model", name)
		}
	}
	theta := make([]float64, m.Dim())
	out := make([]float64, len(m.names))
	column := 0 // the parameter's first output column
	for n, p := range m.Params() {
		x, ok := values[p.Name]
		switch {
		case !ok:
			return nil, fmt.Errorf("no value for the parameter %s", p.Name)
		case len(x) != sizeOf(p.Shape):
			return nil, fmt.Errorf("%s has %d values; the parameter has %d", p.Name, len(x), sizeOf(p.Shape))
		}
		for i, xi := range x {
			if math.IsNaN(xi) || math.IsInf(xi, 0) {
				return nil, fmt.Errorf("%s: value %d is %v", p.Name, i+1, xi)
			}
		}
		u := theta[p.Offset : p.Offset+p.Size]
		if p.Kind != "" {
			if err := m.params[n].inverse(x, u); err != nil {
				return nil, err
			}
			column += len(x)
			continue
		}
		got := out[column : column+p.Size]
		copy(u, x)
		m.ConstrainParams(out, theta)
		if !equal(got, x) { // a bounded parameter: solve each coordinate
			if err := m.solve(p, x, u, got, theta, out); err != nil {
				return nil, err
			}
		}
		column += p.Size
	}
	return theta, nil
}

func (m *Model) hasParam(name string) bool {
	for _, p := range m.params {
		if p.decl.Name == name {
			return true
		}
	}
	return false
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// solve bisects every coordinate of u at once until Constrain maps it to x:
// each output coordinate depends on its own u only and is monotone in it.
func (m *Model) solve(p ParamInfo, x, u, got, theta, out []float64) error {
	lo, hi := make([]float64, len(u)), make([]float64, len(u))
	for i := range u {
		lo[i], hi[i] = -unconstrainRange, unconstrainRange
	}
	at := func(v []float64) []float64 {
		copy(u, v)
		m.ConstrainParams(out, theta)
		return append([]float64(nil), got...)
	}
	below, above := at(lo), at(hi)
	for i, xi := range x {
		a, b := min(below[i], above[i]), max(below[i], above[i])
		if !(xi > a && xi < b) {
			return fmt.Errorf("%s: value %d, %v, is outside the parameter's support (%v, %v)", p.Name, i+1, xi, a, b)
		}
	}
	// 200 halvings take a width of 120 below any float64 spacing.
	mid := make([]float64, len(u))
	for range 200 {
		for i := range mid {
			mid[i] = lo[i] + (hi[i]-lo[i])/2
		}
		y := at(mid)
		for i := range mid {
			// Move the end on the same side of x as the midpoint's image.
			if (y[i] < x[i]) == (below[i] < above[i]) {
				lo[i] = mid[i]
			} else {
				hi[i] = mid[i]
			}
		}
	}
	copy(u, mid)
	return nil
}

// inverse maps the values x of a parameter of a constrained type to its
// unconstrained values u, item by item.
func (p *param) inverse(x, u []float64) error {
	return forItems(p.decl, p.shape, x, func(i int, item string, k int, kind *stdlib.ConstrainedType, xi []float64) error {
		ui, err := kind.Inverse(k, xi)
		if err != nil {
			return fmt.Errorf("%s: %v", item, err)
		}
		copy(u[i*len(ui):], ui)
		return nil
	})
}
