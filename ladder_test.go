package temper_test

import (
	"context"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestLadderLevelsInInferBlock: an infer block gives a ladder by hand as a
// list, which sets the number of replicas, and adapt = never keeps it; a
// list that does not increase is reported at its place.
func TestLadderLevelsInInferBlock(t *testing.T) {
	const model = `param { x: real[2] }
model { target += -0.2 * sum(x ^ 2) + 2 * sum(cos(2 * pi() * x)) }
infer {
  sampler = deo_sgd(ladder_levels = [0.003, 0.01, 0.05, 0.2], adapt = never, window = 1)
  chains = 2
  iters = 300
  energy_noise = 1
  grad_noise = 1
}
`
	m, err := temper.Compile("cosine.ppl", model, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := m.InferOptions()
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.003, 0.01, 0.05, 0.2}
	for c, rep := range res.Exchange {
		if len(rep.Ladder) != len(want) {
			t.Fatalf("chain %d: %d levels, want %d", c+1, len(rep.Ladder), len(want))
		}
		for l, lv := range rep.Ladder {
			if lv.LR != want[l] {
				t.Errorf("chain %d level %d: lr %g, want %g", c+1, l+1, lv.LR, want[l])
			}
		}
	}
	if !strings.Contains(res.SamplerDescription(), "ladder_levels=[0.003, 0.01, 0.05, 0.2]") || !strings.Contains(res.SamplerDescription(), "adapt=never") {
		t.Errorf("the draws file records %s", res.SamplerDescription())
	}

	bad := strings.Replace(model, "[0.003, 0.01, 0.05, 0.2]", "[0.01, 0.003]", 1)
	m, err = temper.Compile("cosine.ppl", bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.InferOptions()
	if err == nil || !strings.Contains(err.Error(), "cosine.ppl:4:21") || !strings.Contains(err.Error(), "the levels must increase from the target level, got 0.003 after 0.01") {
		t.Errorf("a decreasing ladder: %v", err)
	}
}
