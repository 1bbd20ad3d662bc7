//go:build purego || !amd64

package noise

// No vectorized fast path: FillNormal runs the scalar loop (zigKernel
// stays nil).
