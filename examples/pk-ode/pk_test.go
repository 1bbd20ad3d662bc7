package pkode_test

import (
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestPosterior runs the example as `temper run model.ppl` does (NUTS, 4
// chains of 1000 draws, each gradient an ODE solve with its
// sensitivities) and checks its posterior against reference.json, the
// long run of the closed-form model, and the reference against the
// simulation's truth. 4000 draws with a bulk ESS above 2,000 put a mean
// within about 0.02 reference sds and an sd within about 2%: 0.1 sds and
// 10% are about five Monte Carlo errors, and far above the solver's
// error (1e-6 relative in the concentrations).
func TestPosterior(t *testing.T) {
	reference.CheckPosterior(t, "model.ppl", "reference.json", 3, 0.1, 0.1)
}
