package compile_test

import (
	"strings"
	"testing"
)

// TestSizeLimits: a declaration too large for memory is an error at its
// place, not the Go runtime's out-of-memory crash (real[1e11] used to be a
// 157-line stack trace), for one declaration (MaxElements) and for the
// parameters together (MaxParameters); a large size that fits compiles.
func TestSizeLimits(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param { x: real[100000000000] }\nmodel { x ~ normal(0, 1) }", "test.ppl:1:12: x: [100000000000] holds more than 268435456 values (2 GiB of float64)"},
		{"param { x: real[20000, 20000] }\nmodel { x ~ normal(0, 1) }", "x: [20000, 20000] holds more than"},
		{"param { x: real[10000000]  y: real[10000000] }\nmodel { x ~ normal(0, 1)  y ~ normal(0, 1) }", "y: the parameters would number more than 16777216"},
		{"data { N: int  z: real[N, N, N] }\nparam { x: real }\nmodel { x ~ normal(0, 1) }", "z: [2000, 2000, 2000] holds more than"},
	} {
		data := map[string]any{}
		if strings.Contains(c.src, "data {") {
			data["N"] = 2000
			data["z"] = []float64{1}
		}
		_, err := tryCompile(c.src, data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	if _, err := tryCompile("param { x: real[1000, 1000] }\nmodel { x ~ normal(0, 1) }", nil); err != nil {
		t.Errorf("a million parameters: %v", err)
	}
}

// TestDotMessageShowsRowShapes: a shape error inside a plate names the
// shapes the user wrote, one row's, never the minibatch's axis (it read
// "dot of [2, 3] and []" for dot(x[n], w[3]) with x: real[N, 3]).
func TestDotMessageShowsRowShapes(t *testing.T) {
	_, err := tryCompile("data { N: int  D: int  x: real[N, D]  y: real[N] }\nparam { w: real[D] }\nmodel { for n in plate(N) { y[n] ~ normal(dot(x[n], w[3]), 1) } }",
		map[string]any{"x": [][]float64{{1, 2, 3}, {4, 5, 6}}, "y": []float64{1, 2}})
	if err == nil || !strings.Contains(err.Error(), "dot of [3] and a scalar: the last dimensions must agree") || strings.Contains(err.Error(), "[2, 3]") {
		t.Errorf("dot(x[n], w[3]): %v", err)
	}
	if _, err := tryCompile("data { N: int  D: int  x: real[N, D]  y: real[N] }\nparam { w: real[D] }\nmodel { for n in plate(N) { y[n] ~ normal(dot(x[n], w), 1) } }",
		map[string]any{"x": [][]float64{{1, 2, 3}, {4, 5, 6}}, "y": []float64{1, 2}}); err != nil {
		t.Errorf("dot(x[n], w): %v", err)
	}
}
