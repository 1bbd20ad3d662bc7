//go:build !amd64 || purego

package kernel

// Without assembly the portable elementwise set is the only one.
func archVecSets() []*vecSet { return nil }

func (vs *vecSet) sumSqDiffF32(y []float32, mu, scale float64) (float64, float64) {
	return sumSqDiffGo(y, mu, scale)
}

func (vs *vecSet) sumSqDiffF64(y []float64, mu, scale float64) (float64, float64) {
	return sumSqDiffGo(y, mu, scale)
}

func (vs *vecSet) axpyDiffF32(dst, y []float32, mu, k float32) { axpyDiffGo(dst, y, mu, k) }

func (vs *vecSet) axpyDiffF64(dst, y []float64, mu, k float64) { axpyDiffGo(dst, y, mu, k) }

func (vs *vecSet) allFiniteF32(x []float32) bool { return allFiniteGo(x) }

func (vs *vecSet) allFiniteF64(x []float64) bool { return allFiniteGo(x) }

func (vs *vecSet) convertF32(dst []float32, src []float64) { convertGo(dst, src) }

func (vs *vecSet) convertF64(dst []float64, src []float32) { convertGo(dst, src) }

func (vs *vecSet) langevin(theta, grad, xi []float64, lr, scale float64) {
	langevinGo(theta, grad, xi, lr, scale)
}

func (vs *vecSet) descent(theta, grad []float64, lr float64) { descentGo(theta, grad, lr) }

func (vs *vecSet) sigmoidF32(dst, x []float32) { sigmoidGo(dst, x) }

func (vs *vecSet) tanhF32(dst, x []float32) { tanhGo(dst, x) }

func (vs *vecSet) reluF32(dst, x []float32) { reluGo(dst, x) }

func (vs *vecSet) reluF64(dst, x []float64) { reluGo(dst, x) }

func (vs *vecSet) reluGradF32(dst, x, g []float32, assign bool) { reluGradGo(dst, x, g, assign) }

func (vs *vecSet) reluGradF64(dst, x, g []float64, assign bool) { reluGradGo(dst, x, g, assign) }

func (vs *vecSet) maxPoolF32(dst, x []float32, offs []int, c, n, step int) {
	maxPoolGo(dst, x, offs, c, n, step)
}

func (vs *vecSet) maxPoolF64(dst, x []float64, offs []int, c, n, step int) {
	maxPoolGo(dst, x, offs, c, n, step)
}

func (vs *vecSet) maxPoolGradF32(dx, x []float32, offs []int, y, dy []float32, c, n, step int, assign bool) {
	maxPoolGradGo(dx, x, offs, y, dy, c, n, step, assign)
}

func (vs *vecSet) maxPoolGradF64(dx, x []float64, offs []int, y, dy []float64, c, n, step int, assign bool) {
	maxPoolGradGo(dx, x, offs, y, dy, c, n, step, assign)
}

func (vs *vecSet) copy2DF32(dst []float32, ldd int, src []float32, lds int, rows, cols int, add bool) {
	copy2DGo(dst, ldd, src, lds, rows, cols, add)
}

func (vs *vecSet) copy2DF64(dst []float64, ldd int, src []float64, lds int, rows, cols int, add bool) {
	copy2DGo(dst, ldd, src, lds, rows, cols, add)
}
