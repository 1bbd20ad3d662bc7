package lotkavolterra_test

import (
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestPosterior runs the example as `temper run model.ppl` does (the
// defaults: auto chooses NUTS on 21 observations; 4 chains of 1000 draws,
// each gradient an ode_rk45 solve with its sensitivities) and checks it
// against reference.json, the long run of rk4.ppl, whose ODE is solved by
// a fixed-step Runge-Kutta loop with no ODE solver in it. The reference's
// bulk ESS is in the thousands and this run's about 4,000, so a mean's
// Monte Carlo error is about 0.02 sds and an sd's about 1-2%: 0.1 sds and
// 10% are about five of them, and far above either solver's error. The
// data are real (no truth to check).
func TestPosterior(t *testing.T) {
	reference.CheckPosterior(t, "model.ppl", "reference.json", 0, 0.1, 0.1)
}
