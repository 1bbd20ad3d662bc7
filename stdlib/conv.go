package stdlib

import (
	"fmt"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Images are channels last, [..., H, W, C] (NHWC, TensorFlow's default),
// the leading axes a batch: in a plate the minibatch's rows. Channels last
// makes a convolution of the whole batch one matrix product whose result is
// already in layout: the im2col matrix has a row per output pixel of every
// image (B·OH·OW rows of KH·KW·C), the filters are the matrix [KH·KW·C, F],
// and their product is [B·OH·OW, F] = [B, OH, OW, F] (Chellapilla et al.,
// "High performance convolutional neural networks for document
// processing", 2006). With channels first the product would come out
// [F, B·OH·OW] and need a transpose.

// window is the geometry of a sliding window over an image: a
// convolution's filters or a pooling window.
type window struct {
	h, w, c     int // the image: height, width, channels
	kh, kw      int // the window's height and width
	stride, pad int // step between windows; zeros added on every side
	oh, ow      int // the result's height and width
}

// newWindow checks the geometry and computes the result's size,
// (H + 2·pad − KH)/stride + 1 by the floor, as PyTorch does.
func newWindow(h, w, c, kh, kw, stride, pad int) (window, error) {
	win := window{h: h, w: w, c: c, kh: kh, kw: kw, stride: stride, pad: pad}
	switch {
	case stride < 1:
		return win, fmt.Errorf("the stride must be at least 1, got %d", stride)
	case pad < 0:
		return win, fmt.Errorf("the padding must be at least 0, got %d", pad)
	case kh < 1 || kw < 1:
		return win, fmt.Errorf("a window must be at least 1 × 1, got %d × %d", kh, kw)
	case pad >= kh || pad >= kw:
		return win, fmt.Errorf("padding %d leaves windows of %d × %d that see only zeros", pad, kh, kw)
	case h+2*pad < kh || w+2*pad < kw:
		return win, fmt.Errorf("a %d × %d window does not fit in a %d × %d image with padding %d", kh, kw, h, w, pad)
	}
	win.oh, win.ow = (h+2*pad-kh)/stride+1, (w+2*pad-kw)/stride+1
	return win, nil
}

// patch is the length of one im2col row: a window across every channel.
func (g *window) patch() int { return g.kh * g.kw * g.c }

// pixels is the number of output positions of one image.
func (g *window) pixels() int { return g.oh * g.ow }

// span is the window columns [kx0, kx1) that fall inside the image at output
// column ox (the rest read the zero padding).
func (g *window) span(ox int) (kx0, kx1 int) {
	left := ox*g.stride - g.pad
	kx0, kx1 = max(0, -left), min(g.kw, g.w-left)
	return kx0, max(kx0, kx1)
}

// imageOf splits x's shape [..., H, W, C] into the number of images and the
// image's extents.
func imageOf(s autodiff.Shape) (batch, h, w, c int, ok bool) {
	if len(s) < 3 {
		return 0, 0, 0, 0, false
	}
	r := len(s)
	return s[:r-3].Size(), s[r-3], s[r-2], s[r-1], true
}

// im2col writes the windows of images [0, n) of x into cols, a row of ld
// values per output pixel: patch() values in the order (ky, kx, channel),
// zeros where a window reaches into the padding, then a 1 (the bias's
// input). Along a row of the window the pixels inside the image are
// adjacent in memory, KW·C values; for the output pixels whose window row
// lies wholly inside the image (all but the padding's few) those runs are
// moved by one kernel.Copy2D per output row and window row.
func im2col[T autodiff.Float](g *window, cols, x []T, n, ld int) {
	k, rowLen, c := g.patch(), g.kw*g.c, g.c
	lo, hi := g.interior()
	for i := range n {
		img := x[i*g.h*g.w*c : (i+1)*g.h*g.w*c]
		for oy := range g.oh {
			row0 := (i*g.oh + oy) * g.ow
			for ky := range g.kh {
				iy := oy*g.stride - g.pad + ky
				at := func(ox int) []T { return cols[(row0+ox)*ld+ky*rowLen:][:rowLen] }
				if iy < 0 || iy >= g.h {
					for ox := range g.ow {
						zero(at(ox))
					}
					continue
				}
				if lo < hi {
					kernel.Copy2D(cols[(row0+lo)*ld+ky*rowLen:], ld, img[(iy*g.w+lo*g.stride-g.pad)*c:], g.stride*c, hi-lo, rowLen)
				}
				for ox := 0; ox < g.ow; ox++ {
					if ox == lo && lo < hi {
						ox = hi - 1 // done by Copy2D
						continue
					}
					seg := at(ox)
					kx0, kx1 := g.span(ox)
					zero(seg[:kx0*c])
					move(seg[kx0*c:kx1*c], img[(iy*g.w+ox*g.stride-g.pad+kx0)*c:])
					zero(seg[kx1*c:])
				}
			}
			for ox := range g.ow {
				cols[(row0+ox)*ld+k] = 1
			}
		}
	}
}

// interior is the output columns [lo, hi) whose windows lie wholly inside
// the image's width: ox·stride − pad ≥ 0 and ox·stride − pad + KW ≤ W.
func (g *window) interior() (lo, hi int) {
	lo = (g.pad + g.stride - 1) / g.stride
	hi = 0
	if g.w-g.kw+g.pad >= 0 {
		hi = min(g.ow, (g.w-g.kw+g.pad)/g.stride+1)
	}
	return lo, max(lo, hi)
}

// inside is the output columns [ox0, ox1) whose window column kx falls
// inside the image.
func (g *window) inside(kx int) (ox0, ox1 int) {
	// ox·stride − pad + kx ∈ [0, W)
	ox0 = max(0, (g.pad-kx+g.stride-1)/g.stride)
	ox1 = min(g.ow, (g.w-1+g.pad-kx)/g.stride+1)
	return ox0, max(ox0, ox1)
}

// im2colT is im2col transposed, [patch() + 1, n·OH·OW]: a row per filter
// tap (ky, kx, channel), each a run along the output's rows, then a row of
// ones. It suits images
// of few channels, where im2col's runs are only KW·C long (3 values for a
// 3 × 3 filter on one channel) and their number costs more than the
// copying: here the runs are OW long, contiguous in the image at stride 1.
func im2colT[T autodiff.Float](g *window, cols, x []T, n int) {
	rows, c := n*g.pixels(), g.c
	ones := cols[g.patch()*rows : (g.patch()+1)*rows]
	ones[0] = 1
	for j := 1; j < len(ones); j *= 2 {
		copy(ones[j:], ones[:j])
	}
	for ky := range g.kh {
		for kx := range g.kw {
			ox0, ox1 := g.inside(kx)
			for ch := range c {
				dst := cols[((ky*g.kw+kx)*c+ch)*rows:][:rows]
				for i := range n {
					for oy := range g.oh {
						d := dst[(i*g.oh+oy)*g.ow:][:g.ow]
						iy := oy*g.stride - g.pad + ky
						if iy < 0 || iy >= g.h || ox0 == ox1 {
							zero(d)
							continue
						}
						zero(d[:ox0])
						zero(d[ox1:])
						src := x[((i*g.h+iy)*g.w+ox0*g.stride-g.pad+kx)*c+ch:]
						d = d[ox0:ox1]
						if g.stride == 1 && c == 1 {
							move(d, src)
							continue
						}
						for j := range d {
							d[j] = src[j*g.stride*c]
						}
					}
				}
			}
		}
	}
}

// col2imT is im2colT's adjoint: it adds the rows of cols back to dx.
func col2imT[T autodiff.Float](g *window, dx, cols []T, n int) {
	rows, c := n*g.pixels(), g.c
	for ky := range g.kh {
		for kx := range g.kw {
			ox0, ox1 := g.inside(kx)
			for ch := range c {
				src := cols[((ky*g.kw+kx)*c+ch)*rows:][:rows]
				for i := range n {
					for oy := range g.oh {
						iy := oy*g.stride - g.pad + ky
						if iy < 0 || iy >= g.h || ox0 == ox1 {
							continue
						}
						s := src[(i*g.oh+oy)*g.ow+ox0 : (i*g.oh+oy)*g.ow+ox1]
						dst := dx[((i*g.h+iy)*g.w+ox0*g.stride-g.pad+kx)*c+ch:]
						for j, v := range s {
							dst[j*g.stride*c] += v
						}
					}
				}
			}
		}
	}
}

// move and zero are copy and clear for the short runs of an im2col row
// (KW·C values: 3 for a 3 × 3 filter on one channel), where a loop costs
// less than the call to memmove or memclr; longer runs call them.
func move[T autodiff.Float](dst, src []T) {
	if len(dst) > 16 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = src[i]
	}
}

func zero[T autodiff.Float](dst []T) {
	if len(dst) > 16 {
		clear(dst)
		return
	}
	for i := range dst {
		dst[i] = 0
	}
}

// fillRows sets every row of out, f values each, to b: one copy of b,
// then copies that double the filled part, each a long memmove.
func fillRows[T autodiff.Float](out, b []T) {
	n := copy(out, b)
	for n < len(out) {
		n += copy(out[n:], out[:n])
	}
}

// col2im adds the first patch() values of each row of cols (ld apart)
// back to the pixels of images [0, n) of dx that they were copied from:
// im2col's adjoint, by a kernel.Add2D per output row and window row where
// im2col made one Copy2D. The runs overlap in dx (neighbouring windows
// share pixels); the kernel adds them in order.
func col2im[T autodiff.Float](g *window, dx, cols []T, n, ld int) {
	rowLen, c := g.kw*g.c, g.c
	lo, hi := g.interior()
	for i := range n {
		img := dx[i*g.h*g.w*c : (i+1)*g.h*g.w*c]
		for oy := range g.oh {
			row0 := (i*g.oh + oy) * g.ow
			for ky := range g.kh {
				iy := oy*g.stride - g.pad + ky
				if iy < 0 || iy >= g.h {
					continue
				}
				if lo < hi {
					kernel.Add2D(img[(iy*g.w+lo*g.stride-g.pad)*c:], g.stride*c, cols[(row0+lo)*ld+ky*rowLen:], ld, hi-lo, rowLen)
				}
				for ox := 0; ox < g.ow; ox++ {
					if ox == lo && lo < hi {
						ox = hi - 1 // done by Add2D
						continue
					}
					kx0, kx1 := g.span(ox)
					seg := cols[(row0+ox)*ld+ky*rowLen+kx0*c:][:(kx1-kx0)*c]
					dst := img[(iy*g.w+ox*g.stride-g.pad+kx0)*c:][:len(seg)]
					for j, v := range seg {
						dst[j] += v
					}
				}
			}
		}
	}
}

// conv2dOp is a convolution by im2col and GEMM, a block of images at a
// time so that the im2col matrix stays in cache (chunkElems) instead of
// taking B·OH·OW·KH·KW·C values of memory.
type conv2dOp struct {
	win   window
	f     int // filters: the result's channels
	batch int // images
	chunk int // images per block
	// pointwise: 1 × 1 filters at stride 1 without padding, whose im2col
	// matrix is the images themselves.
	pointwise bool
	// transposed blocks (im2colT) for images of few channels.
	transposed bool
}

// chunkElems is the size of the im2col block in elements: 256 KiB in
// float32, which fits the L2 cache of the machines measured (512 KiB to 2
// MiB), for a GEMM that then reads its left operand from cache.
const chunkElems = 1 << 16

// transposeChannels is the most channels for which a convolution uses
// im2colT; above it each tap's values are C apart in the image, and
// im2col's runs of KW·C are long enough.
const transposeChannels = 2

func (op *conv2dOp) Name() string { return "conv2d" }

// DeviceKernel implements autodiff.DeviceOp: the images, the window and the
// result, [batch, H, W, C, KH, KW, F, stride, padding, OH, OW].
func (op *conv2dOp) DeviceKernel() autodiff.DeviceKernel {
	g := &op.win
	return autodiff.DeviceKernel{Name: "conv2d",
		Ints: []int{op.batch, g.h, g.w, g.c, g.kh, g.kw, op.f, g.stride, g.pad, g.oh, g.ow}}
}

// Conv2D is the two-dimensional convolution (a cross-correlation, as in
// every deep-learning library) of images x [..., H, W, C] with filters w
// [KH, KW, C, F] and a bias b [F]:
//
//	out[n, i, j, f] = b[f] + Σ_{u, v, c} x[n, i·s + u − p, j·s + v − p, c]·w[u, v, c, f]
//
// with stride s, zero padding p on every side, and result [..., OH, OW, F],
// OH = (H + 2p − KH)/s + 1 by the floor.
func Conv2D(x, w, b *autodiff.Node, stride, padding int) *autodiff.Node {
	g, stop := graphOf(x, w, b)
	if g == nil || stop != nil {
		return stop
	}
	xs, ws, bs := x.Shape(), w.Shape(), b.Shape()
	// The messages name an image's shape, not x's: in a plate that is
	// the row the model wrote, without the minibatch's axis.
	batch, h, wd, c, ok := imageOf(xs)
	if !ok {
		return g.Fail(nil, "conv2d of %v: needs images [..., H, W, C] (channels last)", xs)
	}
	if len(ws) != 4 || len(bs) != 1 {
		return g.Fail(nil, "conv2d with filters %v and bias %v: needs filters [KH, KW, C, F] and a bias [F]", ws, bs)
	}
	if ws[2] != c {
		return g.Fail(nil, "conv2d of images [%d, %d, %d] with filters %v: the images have %d channels and the filters take %d", h, wd, c, ws, c, ws[2])
	}
	if bs[0] != ws[3] {
		return g.Fail(nil, "conv2d with filters %v and bias %v: the filters make %d channels and the bias has %d", ws, bs, ws[3], bs[0])
	}
	win, err := newWindow(h, wd, c, ws[0], ws[1], stride, padding)
	if err != nil {
		return g.Fail(nil, "conv2d of images [%d, %d, %d] with filters %v: %v", h, wd, c, ws, err)
	}
	op := &conv2dOp{win: win, f: ws[3], batch: batch,
		pointwise: win.kh == 1 && win.kw == 1 && stride == 1 && padding == 0, transposed: c <= transposeChannels}
	op.chunk = max(1, min(batch, chunkElems/(win.pixels()*win.patch())))
	out := append(xs[:len(xs)-3:len(xs)-3], win.oh, win.ow, op.f)
	return g.Apply(op, out, x, w, b)
}

// SavedLen implements autodiff.Workspace: the backward pass rebuilds the
// im2col blocks, a copy, rather than keep B·OH·OW·KH·KW·C values per
// replica.
func (op *conv2dOp) SavedLen() int { return 0 }

// ScratchLen implements autodiff.Workspace: one im2col block and the
// filters with the bias (convBuffers).
func (op *conv2dOp) ScratchLen() int {
	if op.pointwise {
		return 0
	}
	kb := op.win.patch() + 1
	return op.chunk*op.win.pixels()*kb + kb*op.f
}

func (op *conv2dOp) Forward(a *autodiff.Args)     { conv2dForward(op, a) }
func (op *conv2dOp) Forward32(a *autodiff.Args32) { conv2dForward(op, a) }

func conv2dForward[T autodiff.Float](op *conv2dOp, a *autodiff.ArgsOf[T]) {
	x, w, b, out := a.In[0], a.In[1], a.In[2], a.Out
	g, k, f := &op.win, op.win.patch(), op.f
	if op.pointwise {
		fillRows(out, b)
		gemm(a, false, false, op.batch*g.pixels(), f, k, x, k, w, f, 1, out, f)
		return
	}
	cols, wb := convBuffers(op, a.Scratch)
	loadFilters(op, wb, w, b)
	for i0 := 0; i0 < op.batch; i0 += op.chunk {
		n := min(op.chunk, op.batch-i0)
		convBlock(op, cols, wb, x, i0, n, out[i0*g.pixels()*f:])
	}
}

// loadFilters fills wb with the filters w and then the bias b, the
// right operand of convBlock's product (convBuffers).
func loadFilters[T autodiff.Float](op *conv2dOp, wb, w, b []T) {
	kf := op.win.patch() * op.f
	copy(wb, w)
	copy(wb[kf:], b)
}

// convBlock writes the convolution of images [i0, i0 + n) of x to y
// (n·OH·OW·F values), by im2col into cols and a product with wb, the
// filters with the bias (convBuffers).
func convBlock[T autodiff.Float](op *conv2dOp, cols, wb, x []T, i0, n int, y []T) {
	g, k, f := &op.win, op.win.patch(), op.f
	rows, img := n*g.pixels(), x[i0*g.h*g.w*g.c:]
	if op.transposed {
		im2colT(g, cols, img, n)
		serialGemm(true, false, rows, f, k+1, cols, rows, wb, f, 0, y, f)
		return
	}
	im2col(g, cols, img, n, k+1)
	serialGemm(false, false, rows, f, k+1, cols, k+1, wb, f, 0, y, f)
}

// buffers slices the scratch of a convolution by im2col: a block with a
// column of ones after each window's values (a row, transposed), and the
// filters with the bias as one more row, so that one product gives the
// result with its bias forward, and the filters' gradient with the bias's
// backward: every pass over the result or its gradient is a GEMM's.
func convBuffers[T autodiff.Float](op *conv2dOp, scratch []T) (cols, wb []T) {
	kb := op.win.patch() + 1
	n := op.chunk * op.win.pixels() * kb
	return scratch[:n], scratch[n : n+kb*op.f]
}

// gemm is kernel.Gemm on the threads the program lends the op: C =
// op(A)·op(B) + beta·C.
func gemm[T autodiff.Float](a *autodiff.ArgsOf[T], transA, transB bool, m, n, k int, x []T, lda int, y []T, ldb int, beta T, c []T, ldc int) {
	kernel.Gemm(a.Threads(), transA, transB, m, n, k, 1, x, lda, y, ldb, beta, c, ldc)
}

// AssignsGrad implements autodiff.GradAssigner for the images, whose
// gradient is assigned a block of images at a time.
func (op *conv2dOp) AssignsGrad(i int) bool { return i == 0 }

// serialGemm is kernel.Gemm on the calling goroutine alone, for the
// layers' short products: one im2col block's (sized to stay in this core's
// cache) and one time step's of a recurrent layer. Split over the two
// threads of the development machine, the hand-over cost more than it
// gained: cnn.ppl's network at P = 1 ran at 46 replica-steps/s against 76
// on one thread, lstm.ppl's at 41.7 against 66.9. Products over a whole
// batch (a 1 × 1 convolution's, a recurrent layer's input projection)
// are still shared.
func serialGemm[T autodiff.Float](transA, transB bool, m, n, k int, x []T, lda int, y []T, ldb int, beta T, c []T, ldc int) {
	kernel.Gemm(1, transA, transB, m, n, k, 1, x, lda, y, ldb, beta, c, ldc)
}

// Backward: with the im2col block X and the result's gradient ∂Y of its
// rows, ∂w += Xᵀ·∂Y, ∂X = ∂Y·wᵀ added back to the pixels (col2im), and ∂b
// the column sums of ∂Y.
func (op *conv2dOp) Backward(a *autodiff.Args)     { conv2dBackward(op, a) }
func (op *conv2dOp) Backward32(a *autodiff.Args32) { conv2dBackward(op, a) }

func conv2dBackward[T autodiff.Float](op *conv2dOp, a *autodiff.ArgsOf[T]) {
	x, w, dy := a.In[0], a.In[1], a.GradOut
	dx, dw, db := a.GradIn[0], a.GradIn[1], a.GradIn[2]
	g, k, f := &op.win, op.win.patch(), op.f
	if op.pointwise {
		rows := op.batch * g.pixels()
		if db != nil {
			sumRows(db, dy)
		}
		if dw != nil {
			gemm(a, true, false, k, f, rows, x, k, dy, f, 1, dw, f)
		}
		if dx != nil {
			beta := T(1)
			if a.Assign(0) {
				beta = 0
			}
			gemm(a, false, true, rows, k, f, dy, f, w, f, beta, dx, k)
		}
		return
	}
	cols, dwb := convBuffers(op, a.Scratch)
	clear(dwb)
	for i0 := 0; i0 < op.batch; i0 += op.chunk {
		n := min(op.chunk, op.batch-i0)
		convBlockBackward(op, a, cols, dwb, x, w, i0, n, dy[i0*g.pixels()*f:], dx, dw != nil || db != nil, false)
	}
	addFilterGrads(op, dwb, dw, db)
}

// convBlockBackward is convBlock's backward pass, with dy the gradient of
// its result: the filters' and bias's gradient added to dwb (with grads),
// and the images' to dx, assigned where the program asks (a.Assign). With
// built, cols already holds the block's im2col matrix (convBlock's).
func convBlockBackward[T autodiff.Float](op *conv2dOp, a *autodiff.ArgsOf[T], cols, dwb, x, w []T, i0, n int, dy, dx []T, grads, built bool) {
	g, k, f := &op.win, op.win.patch(), op.f
	image := g.h * g.w * g.c
	rows, img := n*g.pixels(), x[i0*image:]
	if dx != nil && a.Assign(0) {
		// Assigned: the block's images are cleared here, in cache for
		// col2im, rather than in a pass of their own.
		clear(dx[i0*image : (i0+n)*image])
	}
	if op.transposed {
		if grads {
			if !built {
				im2colT(g, cols, img, n)
			}
			serialGemm(false, false, k+1, f, rows, cols, rows, dy, f, 1, dwb, f)
		}
		if dx != nil {
			serialGemm(false, true, k, rows, f, w, f, dy, f, 0, cols, rows)
			col2imT(g, dx[i0*image:], cols, n)
		}
		return
	}
	if grads {
		if !built {
			im2col(g, cols, img, n, k+1)
		}
		serialGemm(true, false, k+1, f, rows, cols, k+1, dy, f, 1, dwb, f)
	}
	if dx != nil {
		serialGemm(false, true, rows, k, f, dy, f, w, f, 0, cols, k+1)
		col2im(g, dx[i0*image:], cols, n, k+1)
	}
}

// addFilterGrads adds the filters' and bias's gradients, summed over the
// blocks in dwb, to dw and db (either may be nil).
func addFilterGrads[T autodiff.Float](op *conv2dOp, dwb, dw, db []T) {
	kf := op.win.patch() * op.f
	if dw != nil {
		for i, v := range dwb[:kf] {
			dw[i] += v
		}
	}
	if db != nil {
		for i, v := range dwb[kf:] {
			db[i] += v
		}
	}
}

// poolOp is max or average pooling over windows without padding.
type poolOp struct {
	win   window
	batch int
	max   bool
	offs  []int // the window's pixels, in elements from its corner, row by row
}

func (op *poolOp) Name() string {
	if op.max {
		return "max_pool2d"
	}
	return "avg_pool2d"
}

// DeviceKernel implements autodiff.DeviceOp: [batch, H, W, C, size, stride,
// OH, OW].
func (op *poolOp) DeviceKernel() autodiff.DeviceKernel {
	g := &op.win
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.batch, g.h, g.w, g.c, g.kh, g.stride, g.oh, g.ow}}
}

// MaxPool2D is the largest value of each size × size window of images x
// [..., H, W, C], channel by channel, windows stride apart (no padding):
// [..., OH, OW, C] with OH = (H − size)/stride + 1. Its gradient goes to
// the first largest element of each window, as PyTorch's does. A NaN in a
// window makes its result NaN.
//
// The ReLU commutes with it, max(relu(a), relu(b)) = relu(max(a, b)), with
// the same gradient (the first largest element's, zero where the window's
// largest value is at most 0), so max_pool2d(relu(x)) is built as
// relu(max_pool2d(x)): the ReLU and its gradient then run on a quarter of
// the values of a 2 × 2 pooling.
func MaxPool2D(x *autodiff.Node, size, stride int) *autodiff.Node {
	if in := autodiff.ReluOf(x); in != nil {
		return autodiff.Relu(pool(in, size, stride, true))
	}
	return pool(x, size, stride, true)
}

// AvgPool2D is the mean of each window, as MaxPool2D's.
func AvgPool2D(x *autodiff.Node, size, stride int) *autodiff.Node {
	return pool(x, size, stride, false)
}

func pool(x *autodiff.Node, size, stride int, isMax bool) *autodiff.Node {
	g, stop := graphOf(x)
	if g == nil || stop != nil {
		return stop
	}
	op := &poolOp{max: isMax}
	xs := x.Shape()
	batch, h, w, c, ok := imageOf(xs)
	if !ok {
		return g.Fail(nil, "%s of %v: needs images [..., H, W, C] (channels last)", op.Name(), xs)
	}
	win, err := newWindow(h, w, c, size, size, stride, 0)
	if err != nil {
		return g.Fail(nil, "%s of images [%d, %d, %d]: %v", op.Name(), h, w, c, err)
	}
	op.win, op.batch = win, batch
	for ky := range size {
		for kx := range size {
			op.offs = append(op.offs, (ky*w+kx)*c)
		}
	}
	return g.Apply(op, append(xs[:len(xs)-3:len(xs)-3], win.oh, win.ow, c), x)
}

// AssignsGrad implements autodiff.GradAssigner where the windows tile the
// images, each pixel in exactly one window.
func (op *poolOp) AssignsGrad(int) bool {
	g := &op.win
	return g.stride == g.kh && g.oh*g.kh == g.h && g.ow*g.kw == g.w
}

func (op *poolOp) Forward(a *autodiff.Args)     { poolForward(op, a) }
func (op *poolOp) Forward32(a *autodiff.Args32) { poolForward(op, a) }

func poolForward[T autodiff.Float](op *poolOp, a *autodiff.ArgsOf[T]) {
	poolImages(op, a.Out, a.In[0], op.batch)
}

// poolImages pools n images of x into out.
func poolImages[T autodiff.Float](op *poolOp, out, x []T, n int) {
	c, step := op.win.c, op.win.stride*op.win.c
	if op.max {
		op.eachRow(n, func(o, px int) { kernel.MaxPool(out[o*c:], x[px*c:], op.offs, c, op.win.ow, step) })
		return
	}
	scale := 1 / T(len(op.offs))
	op.each(n, func(o, px int) {
		dst := out[o*c : (o+1)*c]
		copy(dst, x[px*c:])
		for _, off := range op.offs[1:] {
			for j, v := range x[px*c+off:][:c] {
				dst[j] += v
			}
		}
		for j := range dst {
			dst[j] *= scale
		}
	})
}

// each calls f for every output pixel o of n images (counted over them)
// with the input pixel px at its window's top-left corner.
func (op *poolOp) each(n int, f func(o, px int)) {
	g := &op.win
	o := 0
	for i := range n {
		for oy := range g.oh {
			for ox := range g.ow {
				f(o, (i*g.h+oy*g.stride)*g.w+ox*g.stride)
				o++
			}
		}
	}
}

// eachRow calls f for every output row of n images, with o its first
// output pixel and px the input pixel at its first window's corner.
func (op *poolOp) eachRow(n int, f func(o, px int)) {
	g := &op.win
	for i := range n {
		for oy := range g.oh {
			f((i*g.oh+oy)*g.ow, (i*g.h+oy*g.stride)*g.w)
		}
	}
}

func (op *poolOp) Backward(a *autodiff.Args)     { poolBackward(op, a) }
func (op *poolOp) Backward32(a *autodiff.Args32) { poolBackward(op, a) }

func poolBackward[T autodiff.Float](op *poolOp, a *autodiff.ArgsOf[T]) {
	if dx := a.GradIn[0]; dx != nil {
		poolImagesBackward(op, dx, a.In[0], a.Out, a.GradOut, op.batch, a.Assign(0))
	}
}

// poolImagesBackward is poolImages's backward pass for n images: y the
// result and dy its gradient, added to dx or (set, where the windows tile
// the images) assigned.
func poolImagesBackward[T autodiff.Float](op *poolOp, dx, x, y, dy []T, n int, set bool) {
	c, step := op.win.c, op.win.stride*op.win.c
	if op.max {
		op.eachRow(n, func(o, px int) {
			kernel.MaxPoolGrad(dx[px*c:], x[px*c:], op.offs, y[o*c:], dy[o*c:], c, op.win.ow, step, set)
		})
		return
	}
	scale := 1 / T(len(op.offs))
	op.each(n, func(o, px int) {
		g := dy[o*c : (o+1)*c]
		for _, off := range op.offs {
			dst := dx[px*c+off:][:c]
			for j, v := range g {
				if set {
					dst[j] = v * scale
				} else {
					dst[j] += v * scale
				}
			}
		}
	})
}

// Fuse implements autodiff.Fuser: a pooling of a convolution (not 1 × 1,
// which has no im2col blocks) is computed a block of images at a time, the
// convolution's result for the block kept in scratch, never in memory of
// its own (convPoolOp).
func (op *poolOp) Fuse(producer autodiff.Op) autodiff.Op {
	conv, ok := producer.(*conv2dOp)
	if !ok || conv.pointwise || conv.batch != op.batch {
		return nil
	}
	return &convPoolOp{conv: conv, pool: op}
}

// convPoolOp is a convolution followed by pooling, fused (poolOp.Fuse):
// forward, each block of images is convolved into scratch and pooled from
// there; backward, the block's convolution is computed again (its im2col
// block is built for the filters' gradient anyway) so that the pooling's
// gradient can be formed in scratch and taken through the convolution.
// Its operands are the convolution's, its result the pooling's.
type convPoolOp struct {
	conv *conv2dOp
	pool *poolOp
}

func (op *convPoolOp) Name() string { return "conv2d+" + op.pool.Name() }

// SavedLen and ScratchLen implement autodiff.Workspace: the convolution's
// scratch, a block's result and that result's gradient, and the sums of
// the filters' gradients.
func (op *convPoolOp) SavedLen() int { return 0 }
func (op *convPoolOp) ScratchLen() int {
	return op.conv.ScratchLen() + 2*op.block() + (op.conv.win.patch()+1)*op.conv.f
}

// block is the length of the convolution's result for one block of images.
func (op *convPoolOp) block() int { return op.conv.chunk * op.conv.win.pixels() * op.conv.f }

// AssignsGrad implements autodiff.GradAssigner as the convolution does.
func (op *convPoolOp) AssignsGrad(i int) bool { return op.conv.AssignsGrad(i) }

func (op *convPoolOp) Forward(a *autodiff.Args)      { convPoolForward(op, a) }
func (op *convPoolOp) Forward32(a *autodiff.Args32)  { convPoolForward(op, a) }
func (op *convPoolOp) Backward(a *autodiff.Args)     { convPoolBackward(op, a) }
func (op *convPoolOp) Backward32(a *autodiff.Args32) { convPoolBackward(op, a) }

// convPoolBuffers slices the scratch: the convolution's (with the filters
// and bias in wb), a block's result yc and its gradient dyc, and dwb for
// the filters' and bias's gradients.
func convPoolBuffers[T autodiff.Float](op *convPoolOp, scratch []T) (cols, wb, yc, dyc, dwb []T) {
	c := op.conv
	cols, wb = convBuffers(c, scratch)
	rest := scratch[c.ScratchLen():]
	b := op.block()
	return cols, wb, rest[:b], rest[b : 2*b], rest[2*b:][:(c.win.patch()+1)*c.f]
}

func convPoolForward[T autodiff.Float](op *convPoolOp, a *autodiff.ArgsOf[T]) {
	c, p := op.conv, &op.pool.win
	cols, wb, yc, _, _ := convPoolBuffers(op, a.Scratch)
	loadFilters(c, wb, a.In[1], a.In[2])
	for i0 := 0; i0 < c.batch; i0 += c.chunk {
		n := min(c.chunk, c.batch-i0)
		convBlock(c, cols, wb, a.In[0], i0, n, yc)
		poolImages(op.pool, a.Out[i0*p.pixels()*p.c:], yc, n)
	}
}

func convPoolBackward[T autodiff.Float](op *convPoolOp, a *autodiff.ArgsOf[T]) {
	x, w := a.In[0], a.In[1]
	dx, dw, db := a.GradIn[0], a.GradIn[1], a.GradIn[2]
	c, p := op.conv, &op.pool.win
	cols, wb, yc, dyc, dwb := convPoolBuffers(op, a.Scratch)
	loadFilters(c, wb, w, a.In[2])
	clear(dwb)
	tiled := op.pool.AssignsGrad(0)
	out := p.pixels() * p.c // one image's pooled values
	for i0 := 0; i0 < c.batch; i0 += c.chunk {
		n := min(c.chunk, c.batch-i0)
		convBlock(c, cols, wb, x, i0, n, yc)
		if !tiled {
			clear(dyc[:n*c.win.pixels()*c.f])
		}
		poolImagesBackward(op.pool, dyc, yc, a.Out[i0*out:], a.GradOut[i0*out:], n, tiled)
		convBlockBackward(c, a, cols, dwb, x, w, i0, n, dyc, dx, dw != nil || db != nil, true)
	}
	addFilterGrads(c, dwb, dw, db)
}

// Flatten keeps the first keep axes of x and joins the others into one:
// [B, H, W, C] → [B, H·W·C] with keep = 1, the images of a batch made
// vectors for a dense layer. It is a reshape, which copies nothing.
func Flatten(x *autodiff.Node, keep int) *autodiff.Node {
	g, stop := graphOf(x)
	if g == nil || stop != nil {
		return stop
	}
	s := x.Shape()
	if keep < 0 || keep > len(s) {
		return g.Fail(nil, "flatten of %v keeping %d axes: keep must lie in 0..%d", s, keep, len(s))
	}
	return autodiff.Reshape(x, append(s[:keep:keep], s[keep:].Size())...)
}

// sumRows adds the rows of m, len(dst) values each, to dst, four rows a
// round so that the loop's overhead is shared.
func sumRows[T autodiff.Float](dst, m []T) {
	f := len(dst)
	r := 0
	for ; r+4*f <= len(m); r += 4 * f {
		r0, r1, r2, r3 := m[r:r+f], m[r+f:r+2*f], m[r+2*f:r+3*f], m[r+3*f:r+4*f]
		for j := range dst {
			dst[j] += (r0[j] + r1[j]) + (r2[j] + r3[j])
		}
	}
	for ; r < len(m); r += f {
		for j, v := range m[r : r+f] {
			dst[j] += v
		}
	}
}
