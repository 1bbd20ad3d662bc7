package mnist

import "testing"

// TestStepFLOPs checks the counts for batch 128 against the sums written
// out. The MLP's is the figure: 2·128·(784·100 + 100·10) forward
// plus 2·128·(2·100·10 + 784·100) backward.
func TestStepFLOPs(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"MLP", Net.StepFLOPs(128), 40_908_800},
		// 28 steps of x·W and ∂W (28 × 512 each), 27 of h·U, ∂U and δh
		// (128 × 512 each), then 128·64 and 64·10 three times over.
		{"LSTM", LSTMNet.StepFLOPs(128), 2 * 128 * (2*28*28*512 + 3*27*128*512 + 3*(128*64+64*10))},
		// 28·28·9·16 twice, 14·14·9·16·16 three times for each of two
		// convolutions, 7·7·16·10 three times.
		{"CNN", CNNNet.StepFLOPs(128), 2 * 128 * (2*28*28*9*16 + 6*14*14*9*16*16 + 3*7*7*16*10)},
	} {
		if c.got != c.want {
			t.Errorf("%s: StepFLOPs(128) = %v, want %v", c.name, c.got, c.want)
		}
	}
	if Net.Params() != 79_510 {
		t.Errorf("Params = %d, want 79510", Net.Params())
	}
}
