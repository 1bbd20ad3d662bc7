//go:build !amd64 || purego

package kernel

// Without assembly kernels the portable set is the only one.

func archSetsF32() []*kernelSet[float32] { return nil }

func archSetsF64() []*kernelSet[float64] { return nil }
