package autodiff

import "math"

// Reductions along one axis, which the result drops. All kernels view the
// operand as [outer, n, inner] around the axis (see splitAt) and visit the
// reduced elements in increasing order, so sums are reproducible.

type reduceKind int

const (
	reduceSum reduceKind = iota
	reduceMean
	reduceMax
	reduceLogSumExp
)

var reduceNames = [...]string{"sum", "mean", "max", "log_sum_exp"}

type reduceOp struct {
	kind            reduceKind
	outer, n, inner int
}

func (op *reduceOp) Name() string { return reduceNames[op.kind] }

// Sum adds the elements of x along axis (negative counts from the end).
func Sum(x *Node, axis int) *Node { return reduce(reduceSum, x, axis) }

// Mean averages the elements of x along axis.
func Mean(x *Node, axis int) *Node { return reduce(reduceMean, x, axis) }

// Max takes the largest element of x along axis; the gradient goes to the
// first maximal element.
func Max(x *Node, axis int) *Node { return reduce(reduceMax, x, axis) }

// LogSumExp returns log Σ exp(x) along axis without overflow.
func LogSumExp(x *Node, axis int) *Node { return reduce(reduceLogSumExp, x, axis) }

// SumAll adds every element of x into a scalar.
func SumAll(x *Node) *Node { return reduceAll(reduceSum, x) }

// MeanAll averages every element of x into a scalar.
func MeanAll(x *Node) *Node { return reduceAll(reduceMean, x) }

// MaxAll is the largest element of x.
func MaxAll(x *Node) *Node { return reduceAll(reduceMax, x) }

// LogSumExpAll is log Σ exp(x) over every element of x.
func LogSumExpAll(x *Node) *Node { return reduceAll(reduceLogSumExp, x) }

func reduce(kind reduceKind, x *Node, axis int) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	ax, err := normAxis(axis, len(x.shape))
	if err != nil {
		return x.g.fail(nil, "%s of %v: %v", reduceNames[kind], x.shape, err)
	}
	outer, n, inner := splitAt(x.shape, ax)
	out := append(x.shape[:ax:ax], x.shape[ax+1:]...)
	return x.g.Apply(&reduceOp{kind: kind, outer: outer, n: n, inner: inner}, out, x)
}

func reduceAll(kind reduceKind, x *Node) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(Shape{})
	}
	return x.g.Apply(&reduceOp{kind: kind, outer: 1, n: x.shape.Size(), inner: 1}, Shape{}, x)
}

func (op *reduceOp) Forward(a *Args)      { reduceForward(op, a) }
func (op *reduceOp) Forward32(a *Args32)  { reduceForward(op, a) }
func (op *reduceOp) Backward(a *Args)     { reduceBackward(op, a) }
func (op *reduceOp) Backward32(a *Args32) { reduceBackward(op, a) }

// reduceForward accumulates a full reduction (inner = 1: the sums that make
// an energy) in float64 whatever T is; partial sums along an axis
// accumulate in T.
func reduceForward[T Float](op *reduceOp, a *ArgsOf[T]) {
	x, out := a.In[0], a.Out
	n, inner := op.n, op.inner
	for o := range op.outer {
		row := out[o*inner : (o+1)*inner]
		block := x[o*n*inner : (o+1)*n*inner]
		switch op.kind {
		case reduceSum, reduceMean:
			if inner == 1 {
				s := float64(block[0])
				for _, v := range block[1:] {
					s += float64(v)
				}
				if op.kind == reduceMean {
					s /= float64(n)
				}
				row[0] = T(s)
				continue
			}
			copy(row, block[:inner])
			for j := 1; j < n; j++ {
				for i, v := range block[j*inner : (j+1)*inner] {
					row[i] += v
				}
			}
			if op.kind == reduceMean {
				for i := range row {
					row[i] /= T(n)
				}
			}
		case reduceMax:
			copy(row, block[:inner])
			for j := 1; j < n; j++ {
				for i, v := range block[j*inner : (j+1)*inner] {
					if v > row[i] {
						row[i] = v
					}
				}
			}
		case reduceLogSumExp:
			for i := range row {
				row[i] = T(logSumExpStrided(block[i:], n, inner))
			}
		}
	}
}

func reduceBackward[T Float](op *reduceOp, a *ArgsOf[T]) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	x, out, gout := a.In[0], a.Out, a.GradOut
	n, inner := op.n, op.inner
	for o := range op.outer {
		for i := range inner {
			g := gout[o*inner+i]
			if g == 0 {
				continue
			}
			base := o*n*inner + i
			switch op.kind {
			case reduceSum:
				for j := range n {
					gin[base+j*inner] += g
				}
			case reduceMean:
				for j := range n {
					gin[base+j*inner] += g / T(n)
				}
			case reduceMax:
				m := out[o*inner+i]
				for j := range n {
					if x[base+j*inner] == m {
						gin[base+j*inner] += g
						break
					}
				}
			case reduceLogSumExp:
				lse := float64(out[o*inner+i])
				if math.IsInf(lse, -1) {
					continue // every term is -∞: no direction increases the sum
				}
				for j := range n {
					gin[base+j*inner] += T(float64(g) * math.Exp(float64(x[base+j*inner])-lse))
				}
			}
		}
	}
}

// logSumExpStrided is log Σ_j exp(x[j*stride]) over n terms.
func logSumExpStrided[T Float](x []T, n, stride int) float64 {
	m, ls := shiftedLogSum(x, n, stride)
	return m + ls
}

// shiftedLogSum returns m = max_j x[j*stride] and log Σ_j exp(x[j*stride] - m),
// the two parts of log-sum-exp kept apart so that log-softmax can form
// (x - m) - log Σ exactly where x is the maximum. No term overflows.
func shiftedLogSum[T Float](x []T, n, stride int) (m, logSum float64) {
	m = math.Inf(-1)
	for j := range n {
		m = max(m, float64(x[j*stride]))
	}
	if math.IsInf(m, 0) {
		return m, 0 // all -∞, or some +∞
	}
	s := 0.0
	for j := range n {
		s += math.Exp(float64(x[j*stride]) - m)
	}
	return m, math.Log(s)
}

// softmaxOp is softmax or log-softmax along an axis.
type softmaxOp struct {
	log             bool
	outer, n, inner int
}

func (op *softmaxOp) Name() string {
	if op.log {
		return "log_softmax"
	}
	return "softmax"
}

// Softmax normalises exp(x) along axis to sum to one.
func Softmax(x *Node, axis int) *Node { return softmax(false, x, axis) }

// LogSoftmax is x - log_sum_exp(x) along axis: the log of Softmax, computed
// without underflow.
func LogSoftmax(x *Node, axis int) *Node { return softmax(true, x, axis) }

func softmax(log bool, x *Node, axis int) *Node {
	if x == nil {
		return nil
	}
	op := &softmaxOp{log: log}
	if x.failed {
		return x.g.placeholder(x.shape)
	}
	ax, err := normAxis(axis, len(x.shape))
	if err != nil {
		return x.g.fail(x.shape, "%s of %v: %v", op.Name(), x.shape, err)
	}
	op.outer, op.n, op.inner = splitAt(x.shape, ax)
	return x.g.Apply(op, x.shape, x)
}

func (op *softmaxOp) Forward(a *Args)      { softmaxForward(op, a) }
func (op *softmaxOp) Forward32(a *Args32)  { softmaxForward(op, a) }
func (op *softmaxOp) Backward(a *Args)     { softmaxBackward(op, a) }
func (op *softmaxOp) Backward32(a *Args32) { softmaxBackward(op, a) }

func softmaxForward[T Float](op *softmaxOp, a *ArgsOf[T]) {
	x, out := a.In[0], a.Out
	n, inner := op.n, op.inner
	for o := range op.outer {
		for i := range inner {
			base := o*n*inner + i
			m, ls := shiftedLogSum(x[base:], n, inner)
			for j := range n {
				k := base + j*inner
				if op.log {
					out[k] = T((float64(x[k]) - m) - ls)
				} else {
					out[k] = T(math.Exp((float64(x[k]) - m) - ls))
				}
			}
		}
	}
}

// softmaxBackward uses the Jacobians J = diag(y) - y yᵀ (softmax) and
// I - 1·softmaxᵀ (log-softmax), applied without forming them.
func softmaxBackward[T Float](op *softmaxOp, a *ArgsOf[T]) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	out, gout := a.Out, a.GradOut
	n, inner := op.n, op.inner
	for o := range op.outer {
		for i := range inner {
			base := o*n*inner + i
			s := 0.0
			for j := range n {
				k := base + j*inner
				if op.log {
					s += float64(gout[k])
				} else {
					s += float64(gout[k] * out[k])
				}
			}
			for j := range n {
				k := base + j*inner
				if op.log {
					gin[k] += T(float64(gout[k]) - math.Exp(float64(out[k]))*s)
				} else {
					gin[k] += T(float64(out[k]) * (float64(gout[k]) - s))
				}
			}
		}
	}
}
