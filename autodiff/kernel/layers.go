package kernel

// Kernels of the layers' largest passes over memory: the ReLU forward and
// backward, and max pooling over channels-last images, one output pixel's
// channels a call. Each gives the same bits on every instruction set as its
// Go loop (layers_portable.go); asm/layers.go says how.

// Relu sets dst[i] = 0 > x[i] ? 0 : x[i] for every i < len(x): max(x, 0)
// with NaN kept (and −0 kept, where Go's max gives +0). dst may be x; it
// panics if dst is shorter.
func Relu[T float32 | float64](dst, x []T) { reluWith(vecBest, dst, x) }

func reluWith[T float](vs *vecSet, dst, x []T) {
	if len(dst) < len(x) {
		panic("kernel: Relu: dst shorter than x")
	}
	if isF32[T]() {
		vs.reluF32(as[float32](dst), as[float32](x))
		return
	}
	vs.reluF64(as[float64](dst), as[float64](x))
}

// ReluGrad is the ReLU's vector-Jacobian product: g[i] where x[i] > 0,
// else +0 (NaN x gives +0), assigned to dst[i] or, with assign false,
// added to it. It panics if dst or x is shorter than g.
func ReluGrad[T float32 | float64](dst, x, g []T, assign bool) {
	reluGradWith(vecBest, dst, x, g, assign)
}

func reluGradWith[T float](vs *vecSet, dst, x, g []T, assign bool) {
	if len(dst) < len(g) || len(x) < len(g) {
		panic("kernel: ReluGrad: dst or x shorter than g")
	}
	if isF32[T]() {
		vs.reluGradF32(as[float32](dst), as[float32](x), as[float32](g), assign)
		return
	}
	vs.reluGradF64(as[float64](dst), as[float64](x), as[float64](g), assign)
}

// MaxPool sets dst[j], for every j < len(dst), to the largest of
// x[offs[k]+j] over the window positions k, or NaN if any of them is NaN:
// one output pixel of max pooling over channels-last images, dst its
// channels and offs the window's pixels in x (offs[0] = 0 at its corner).
// It panics if offs is empty or x too short.
func MaxPool[T float32 | float64](dst, x []T, offs []int) { maxPoolWith(vecBest, dst, x, offs) }

func maxPoolWith[T float](vs *vecSet, dst, x []T, offs []int) {
	checkWindow("MaxPool", len(x), offs, len(dst))
	if isF32[T]() {
		vs.maxPoolF32(as[float32](dst), as[float32](x), offs)
		return
	}
	vs.maxPoolF64(as[float64](dst), as[float64](x), offs)
}

// MaxPoolGrad is MaxPool's vector-Jacobian product for one output pixel:
// for each channel j < len(dy), the first window position k (in offs's
// order) with x[offs[k]+j] = y[j] gets dy[j], as PyTorch's max pooling
// gives it; with assign, dx[offs[k]+j] is set, and the window's other
// positions set to +0, else dy[j] is added. dx is laid out as x. It panics
// if offs is empty or x, dx or y too short.
func MaxPoolGrad[T float32 | float64](dx, x []T, offs []int, y, dy []T, assign bool) {
	maxPoolGradWith(vecBest, dx, x, offs, y, dy, assign)
}

func maxPoolGradWith[T float](vs *vecSet, dx, x []T, offs []int, y, dy []T, assign bool) {
	checkWindow("MaxPoolGrad", min(len(x), len(dx)), offs, len(dy))
	if len(y) < len(dy) {
		panic("kernel: MaxPoolGrad: y shorter than dy")
	}
	if isF32[T]() {
		vs.maxPoolGradF32(as[float32](dx), as[float32](x), offs, as[float32](y), as[float32](dy), assign)
		return
	}
	vs.maxPoolGradF64(as[float64](dx), as[float64](x), offs, as[float64](y), as[float64](dy), assign)
}

// checkWindow panics unless every offs[k] + n elements fit in n x: the
// assembly reads in place, unchecked.
func checkWindow(name string, nx int, offs []int, n int) {
	if len(offs) == 0 {
		panic("kernel: " + name + ": no window positions")
	}
	for _, o := range offs {
		if o < 0 || o+n > nx {
			panic("kernel: " + name + ": a window position reaches outside x")
		}
	}
}

// Copy2D copies rows runs of cols elements: src[r·lds+j] to dst[r·ldd+j]
// for r < rows and j < cols. Add2D adds them instead, run after run, so
// that runs overlapping in dst sum as a loop over r would. They move an
// im2col matrix's runs (a window's row across channels, one per output
// pixel) and add them back to the image, one call per image row where a
// copy per run spent most of its time in memmove's dispatch. They panic if
// the last run does not fit.
func Copy2D[T float32 | float64](dst []T, ldd int, src []T, lds int, rows, cols int) {
	copy2DWith(vecBest, dst, ldd, src, lds, rows, cols, false)
}

// Add2D: see Copy2D.
func Add2D[T float32 | float64](dst []T, ldd int, src []T, lds int, rows, cols int) {
	copy2DWith(vecBest, dst, ldd, src, lds, rows, cols, true)
}

func copy2DWith[T float](vs *vecSet, dst []T, ldd int, src []T, lds int, rows, cols int, add bool) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if ldd < 0 || lds < 0 || (rows-1)*ldd+cols > len(dst) || (rows-1)*lds+cols > len(src) {
		panic("kernel: Copy2D or Add2D: a run does not fit")
	}
	if isF32[T]() {
		vs.copy2DF32(as[float32](dst), ldd, as[float32](src), lds, rows, cols, add)
		return
	}
	vs.copy2DF64(as[float64](dst), ldd, as[float64](src), lds, rows, cols, add)
}
