//go:build !amd64 || purego

package kernel

// bernoulliLogitVec handles no rows without the assembly.
func bernoulliLogitVec(out, partial, y, alpha []float64) int { return 0 }
