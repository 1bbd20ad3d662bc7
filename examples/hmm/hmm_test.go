package hmm_test

import (
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestPosterior runs the example as `temper run model.ppl` does (4
// chains of 1000 draws) and checks its posterior against the long
// reference run of reference.json, and the reference against the
// simulation's truth. The truth lies within 3 posterior sds of the mean
// unless the simulation was a 1-in-370 draw; 4000 draws with a bulk ESS
// in the thousands put a mean within about 0.02 to 0.03 reference sds and
// an sd within about 2%: 0.1 sds and 10% are several Monte Carlo errors.
func TestPosterior(t *testing.T) {
	reference.CheckPosterior(t, "model.ppl", "reference.json", 3, 0.1, 0.1)
}
