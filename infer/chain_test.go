package infer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// TestChainAloneBitIdentical runs each sampler on four chains, then each
// chain alone (Options.Chain), as the tasks of an array job run them: every
// chain's draws, at every level, must be the four-chain run's, bit for
// bit, numbered as its chain. The samplers cover each stream a chain owns
// (samplerCases), a tuned run whose warm-up pools the chains (metric,
// step) and the exact samplers' chains.
func TestChainAloneBitIdentical(t *testing.T) {
	target := newRegression()
	cases := append(slices.Clone(samplerCases),
		samplerCase{"sghmc", nil, 20}, // lr = auto: the warm-up of all four chains
		samplerCase{"nuts", map[string]string{"warmup": "100"}, 0},
		samplerCase{"hmc", map[string]string{"warmup": "100"}, 0})
	for _, c := range cases {
		s, err := infer.NewSampler(c.name, c.settings)
		if err != nil {
			t.Fatal(err)
		}
		o := infer.Options{Chains: 4, Burn: c.burn, Iters: 150, Batch: 50, Seed: 5, KeepAll: s.Replicas > 1}
		if s.Exact != nil {
			o.Batch = 0
		}
		all, err := infer.Run(context.Background(), target, s, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k := 1; k <= o.Chains; k++ {
			one := o
			one.Chain = k
			var labels []int
			one.OnDraw = func(d infer.Draw) error { labels = append(labels, d.Chain); return nil }
			res, err := infer.Run(context.Background(), target, s, one)
			if err != nil {
				t.Fatalf("%s chain %d: %v", c.name, k, err)
			}
			if len(res.Draws) != 1 || res.FirstChain != k-1 {
				t.Fatalf("%s chain %d: %d chains from %d, want 1 from %d", c.name, k, len(res.Draws), res.FirstChain, k-1)
			}
			if want := all.Draws[k-1]; len(want) == 0 || !slices.EqualFunc(want, res.Draws[0], slices.Equal[[]float64]) {
				t.Errorf("%s chain %d: its %d draws alone are not the four-chain run's %d", c.name, k, len(res.Draws[0]), len(want))
			}
			for l := 1; all.All != nil && l < len(all.All[k-1]); l++ {
				if !slices.EqualFunc(all.All[k-1][l], res.All[0][l], slices.Equal[[]float64]) {
					t.Errorf("%s chain %d level %d: the draws alone are not the four-chain run's", c.name, k, l+1)
				}
			}
			if all.Stats != nil && !slices.EqualFunc(all.Stats[k-1], res.Stats[0], slices.Equal[[]float64]) {
				t.Errorf("%s chain %d: the sampler's diagnostics alone are not the four-chain run's", c.name, k)
			}
			if slices.ContainsFunc(labels, func(c int) bool { return c != k-1 }) {
				t.Errorf("%s chain %d: draws numbered %v, want %d", c.name, k, slices.Compact(labels), k-1)
			}
		}
	}
}

// TestChainAloneRefused: a chain that is not one of the run's is refused,
// and so is a checkpoint of another chain.
func TestChainAloneRefused(t *testing.T) {
	target := newRegression()
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "1e-3"})
	if err != nil {
		t.Fatal(err)
	}
	o := infer.Options{Chains: 4, Chain: 5, Iters: 10, Seed: 1}
	if _, err := infer.Run(context.Background(), target, s, o); err == nil || err.Error() != "chain 5 is not one of the run's chains 1 to 4" {
		t.Errorf("chain 5 of 4: %v", err)
	}
	var saved *infer.State
	o.Chain, o.Checkpoint = 2, func(st *infer.State) error { saved = st; return nil }
	if _, err := infer.Run(context.Background(), target, s, o); err != nil {
		t.Fatal(err)
	}
	o.Chain, o.Checkpoint, o.Resume = 3, nil, saved
	if _, err := infer.Run(context.Background(), target, s, o); err == nil || !contains(err.Error(), "it is the state of chain 2 of its run, this run asks for chain 3") {
		t.Errorf("chain 2's checkpoint resumed as chain 3: %v", err)
	}
	o.Chain = 0
	if _, err := infer.Run(context.Background(), target, s, o); err == nil || !contains(err.Error(), "it has chain 2 alone, this run asks for 4 chains") {
		t.Errorf("chain 2's checkpoint resumed as the whole run: %v", err)
	}
}
