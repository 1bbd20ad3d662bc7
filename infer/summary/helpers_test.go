package summary_test

import "math"

// approx reports whether got is within relative tolerance tol of want, with
// NaN equal to NaN and infinities equal to themselves.
func approx(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) && math.IsNaN(want) || got == want
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-300)
}
