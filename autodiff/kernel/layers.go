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

// MaxPool computes n output pixels of max pooling over channels-last
// images, c channels each: dst[q·c+j], for q < n and j < c, is the largest
// of x[q·step+offs[k]+j] over the window positions k, or NaN if any of
// them is. offs are the window's pixels relative to its corner (offs[0] =
// 0), step the distance between the corners of neighbouring windows: a
// call does one output row. It panics if offs is empty or a window
// reaches past x.
func MaxPool[T float32 | float64](dst, x []T, offs []int, c, n, step int) {
	maxPoolWith(vecBest, dst, x, offs, c, n, step)
}

func maxPoolWith[T float](vs *vecSet, dst, x []T, offs []int, c, n, step int) {
	if n <= 0 || c <= 0 {
		return
	}
	checkWindows("MaxPool", len(x), offs, c, n, step)
	if len(dst) < n*c {
		panic("kernel: MaxPool: dst shorter than n·c")
	}
	if isF32[T]() {
		vs.maxPoolF32(as[float32](dst), as[float32](x), offs, c, n, step)
		return
	}
	vs.maxPoolF64(as[float64](dst), as[float64](x), offs, c, n, step)
}

// MaxPoolGrad is MaxPool's vector-Jacobian product for the same n
// pixels: for each channel, the first window position k (in offs's order)
// with x[q·step+offs[k]+j] = y[q·c+j] gets dy[q·c+j], as PyTorch's max
// pooling gives it; with assign, dx there is set, and the window's other
// positions set to +0, else dy is added. dx is laid out as x. It panics if
// offs is empty or a window reaches past x or dx.
func MaxPoolGrad[T float32 | float64](dx, x []T, offs []int, y, dy []T, c, n, step int, assign bool) {
	maxPoolGradWith(vecBest, dx, x, offs, y, dy, c, n, step, assign)
}

func maxPoolGradWith[T float](vs *vecSet, dx, x []T, offs []int, y, dy []T, c, n, step int, assign bool) {
	if n <= 0 || c <= 0 {
		return
	}
	checkWindows("MaxPoolGrad", min(len(x), len(dx)), offs, c, n, step)
	if len(y) < n*c || len(dy) < n*c {
		panic("kernel: MaxPoolGrad: y or dy shorter than n·c")
	}
	if isF32[T]() {
		vs.maxPoolGradF32(as[float32](dx), as[float32](x), offs, as[float32](y), as[float32](dy), c, n, step, assign)
		return
	}
	vs.maxPoolGradF64(as[float64](dx), as[float64](x), offs, as[float64](y), as[float64](dy), c, n, step, assign)
}

// checkWindows panics unless the n windows' c channels fit in nx
// elements: the assembly reads in place, unchecked.
func checkWindows(name string, nx int, offs []int, c, n, step int) {
	if len(offs) == 0 || step < 0 {
		panic("kernel: " + name + ": no window positions, or a negative step")
	}
	for _, o := range offs {
		if o < 0 || (n-1)*step+o+c > nx {
			panic("kernel: " + name + ": a window reaches outside x")
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
