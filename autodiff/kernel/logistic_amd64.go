//go:build !purego

package kernel

import (
	"math"

	"golang.org/x/sys/cpu"
)

var logisticAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// bernoulliLogitVec runs BernoulliLogit's whole vectors of eight rows with
// AVX-512 and returns how many rows it did. The kernel computes every lane
// as if it were an ordinary row; where a vector holds a row that is not
// (α not finite or |α| > 707, where ExpNonPos is math.Exp; y not 0 or 1)
// it says so, and that vector's rows are done again one by one.
func bernoulliLogitVec(out, partial, y, alpha []float64) int {
	if !logisticAVX512 {
		return 0
	}
	n := len(alpha) &^ 7
	if n == 0 {
		return 0
	}
	if bernoulliLogitF64AVX512(out[:n], partial[:n], y[:n], alpha[:n], &expTable[0].hi, &log1pTable[0].c) {
		for i := 0; i < n; i++ {
			if x, yi := alpha[i], y[i]; !(math.Abs(x) <= -expNonPosMin) || yi != 0 && yi != 1 {
				out[i], partial[i] = BernoulliLogitRow(yi, x)
			}
		}
	}
	return n
}
