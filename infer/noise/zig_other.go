//go:build purego || !amd64

package noise

// No vectorized fast path: FillNormal runs the scalar loop (zigVec stays
// false, so this is never called).
func zigBlockAVX512(z []float64, acc []uint64, x, inc uint64, zk *[zigLayers]uint64, zw *[zigLayers]float64) {
	panic("noise: no vectorized ziggurat")
}

func zigBlock32AVX512(z []float32, acc []uint64, x, inc uint64, zk *[zigLayers]uint32, zw *[zigLayers]float64) {
	panic("noise: no vectorized ziggurat")
}
