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
