package compile_test

import (
	"math"
	"strings"
	"testing"
)

// TestWhileLoops: a while loop whose counter is a local variable unrolls
// to the same energy and gradient as the for loop it stands for; break
// leaves the innermost loop (here at the first y above 1.5, decided by
// the data); a loop whose condition never turns false stops at
// MaxUnrolled with an error that says so, and a condition on a local
// variable that depends on the parameters is an error when compiled.
func TestWhileLoops(t *testing.T) {
	data := map[string]any{"N": 5, "y": []float64{0.5, -1.2, 2.0, 0.1, 3}}
	head := "data { N: int  y: real[N] }\nparam { mu: real }\nmodel {\n  "
	theta := []float64{0.3}
	for _, c := range []struct {
		name, a, b string
	}{
		{"counter", "i: int = 1\n  while i <= N { y[i] ~ normal(mu, 1)\n i += 1 }", "for t in 1:N { y[t] ~ normal(mu, 1) }"},
		{"halving", "k: int = 0\n  x: real = N * 8\n  while x > 1 { x = x / 2\n k += 1 }\n  target += -k * mu ^ 2", "target += -6 * mu ^ 2"},
		{"break", "for t in 1:N { if y[t] > 1.5 { break }\n y[t] ~ normal(mu, 1) }", "for t in 1:2 { y[t] ~ normal(mu, 1) }"},
		{"break while", "i: int = 0\n  while 1 { i += 1\n if i > 3 { break }\n y[i] ~ normal(mu, 1) }", "for t in 1:3 { y[t] ~ normal(mu, 1) }"},
		{"nested break", "for s in 1:2 { j: int = 1\n while j <= N { if j > s { break }\n y[j] ~ normal(mu, 1)\n j += 1 } }", "y[1] ~ normal(mu, 1)\n  for t in 1:2 { y[t] ~ normal(mu, 1) }"},
	} {
		ua, ga := energyAt(t, head+c.a+"\n}", data, theta)
		ub, gb := energyAt(t, head+c.b+"\n}", data, theta)
		if math.Abs(ua-ub) > 1e-12 || math.Abs(ga[0]-gb[0]) > 1e-12 {
			t.Errorf("%s: energy %v, gradient %v; want %v, %v", c.name, ua, ga, ub, gb)
		}
	}
	for _, c := range []struct{ body, want string }{
		{"while N > 0 { target += mu }", "the loops unroll to more than 1000000 iterations: does this while loop's condition ever become false?"},
		{"x: real = mu\n  while x < 3 { x += 1 }", "the condition of a while loop must be known when the model is compiled: x is not known"},
	} {
		_, err := tryCompile(head+c.body+"\n}", data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.body, err, c.want)
		}
	}
}
