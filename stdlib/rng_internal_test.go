package stdlib

import (
	"math"
	"testing"
)

// TestBestFisherAlgebra: the rearranged quantities of the von Mises
// generator equal Best & Fisher's textbook ones where those keep their
// digits (moderate κ; u away from 0 and 1).
func TestBestFisherAlgebra(t *testing.T) {
	for _, kappa := range []float64{0.01, 0.5, 2, 30} {
		tau := 1 + math.Sqrt(1+4*kappa*kappa)
		rho := (tau - math.Sqrt(2*tau)) / (2 * kappa)
		r := (1 + rho*rho) / (2 * rho)
		d := bestFisherD(kappa)
		if math.Abs(d-(r-1)) > 1e-9*(r-1) {
			t.Errorf("κ = %v: d = %v, want r - 1 = %v", kappa, d, r-1)
		}
		for _, u := range []float64{0.1, 0.4, 0.7, 0.9} {
			z := math.Cos(math.Pi * u)
			f := (1 + r*z) / (r + z)
			c := kappa * (r - f)
			oneMinusF, gotC := bestFisherTrial(kappa, d, u)
			if math.Abs(oneMinusF-(1-f)) > 1e-9*math.Abs(1-f) || math.Abs(gotC-c) > 1e-9*math.Abs(c) {
				t.Errorf("κ = %v, u = %v: 1 - f = %v, c = %v; want %v, %v", kappa, u, oneMinusF, gotC, 1-f, c)
			}
		}
	}
}
