package kernel

import "unsafe"

// Elementwise kernels: the loops over every parameter that a sampler step
// runs besides the GEMMs (a normal prior's sums and gradient, the finiteness
// check, float64 ↔ float32 conversion of θ and its gradient, the SGLD
// update). Go compiles them to scalar code; these run AVX-512 or AVX2
// assembly (asm/vec.go), chosen at start-up as the GEMM kernels are, with a
// portable Go loop elsewhere and under the purego tag. Every kernel but
// SumSqDiff gives the same bits on every instruction set as the plain Go
// loop it replaces: none fuses a multiply with an add.

//go:generate go run -C asm . -vec -out ../vec_amd64.s -stubs ../vec_stubs_amd64.go -pkg kernel

// vecSet is one instruction set's elementwise kernels, its methods
// (vec_amd64.go, vec_other.go) being the kernels by element type. Each
// handles the length of its last slice argument, the others being at
// least as long. The methods call the assembly directly, not through
// function values, so that the slices do not escape.
type vecSet struct {
	name string
	isa  vecISA
}

type vecISA int

const (
	isaPortable vecISA = iota
	isaAVX2
	isaAVX512
)

// vecSets are the sets this CPU runs, best first, the portable one last.
var (
	vecSets = append(archVecSets(), portableVec)
	vecBest = vecSets[0]
)

// as reinterprets x as a slice of U, which callers use only where U and T
// are the same type (T is float32 or float64, and so is U, of the same size).
func as[U, T float](x []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func isF32[T float]() bool { return unsafe.Sizeof(T(0)) == 4 }

// SumSqDiff returns Σ z and Σ z² over z = (y[i] - mu)·scale, computed and
// summed in float64 whatever T is (float32 elements are widened in
// registers): the sufficient statistics of a normal density with scalar
// parameters, scale = 1/σ. It sums in several independent accumulators, so
// the result differs in the last bits from a sequential loop (within the
// n·eps·Σ|term| bound of any order of summation) and between instruction
// sets. NaN and ±Inf propagate to the sums, which the caller checks.
func SumSqDiff[T float32 | float64](y []T, mu, scale float64) (sum, sumSq float64) {
	return sumSqDiff(vecBest, y, mu, scale)
}

func sumSqDiff[T float](vs *vecSet, y []T, mu, scale float64) (float64, float64) {
	if isF32[T]() {
		return vs.sumSqDiffF32(as[float32](y), mu, scale)
	}
	return vs.sumSqDiffF64(as[float64](y), mu, scale)
}

// AxpyDiff does dst[i] -= k·(y[i] - mu) for every i < len(y) where y[i] -
// mu is finite, leaving dst[i] as it is where that difference is NaN or
// ±Inf: the gradient of a normal prior with scalar parameters (k = g/σ²),
// which is zero where the density is -Inf. Each step is rounded in T as
// the Go expression dst[i] -= k * (y[i] - mu) rounds it, so the result is
// the same on every instruction set. It panics if dst is shorter than y.
func AxpyDiff[T float32 | float64](dst, y []T, mu, k T) {
	axpyDiff(vecBest, dst, y, mu, k)
}

func axpyDiff[T float](vs *vecSet, dst, y []T, mu, k T) {
	if len(dst) < len(y) {
		panic("kernel: AxpyDiff: dst shorter than y")
	}
	if isF32[T]() {
		vs.axpyDiffF32(as[float32](dst), as[float32](y), float32(mu), float32(k))
		return
	}
	vs.axpyDiffF64(as[float64](dst), as[float64](y), float64(mu), float64(k))
}

// AllFinite reports whether no element of x is NaN or ±Inf: the check of
// every parameter after every step, which reads x once with no branch per
// element.
func AllFinite[T float32 | float64](x []T) bool {
	return allFinite(vecBest, x)
}

func allFinite[T float](vs *vecSet, x []T) bool {
	if isF32[T]() {
		return vs.allFiniteF32(as[float32](x))
	}
	return vs.allFiniteF64(as[float64](x))
}

// Convert sets dst[i] = D(src[i]) for every i < len(src), rounding as Go's
// conversion does (VCVTPD2PS, VCVTPS2PD): the copy of θ into a float32
// program and of its gradient back. When D and S are the same type it is
// copy. It panics if dst is shorter than src.
func Convert[D, S float32 | float64](dst []D, src []S) {
	convertWith(vecBest, dst, src)
}

func convertWith[D, S float](vs *vecSet, dst []D, src []S) {
	if len(dst) < len(src) {
		panic("kernel: Convert: dst shorter than src")
	}
	switch {
	case isF32[D]() == isF32[S]():
		copy(dst, as[D](src))
	case isF32[D]():
		vs.convertF32(as[float32](dst), as[float64](src))
	default:
		vs.convertF64(as[float64](dst), as[float32](src))
	}
}

// LangevinUpdate does theta[i] = theta[i] - lr·grad[i] + scale·xi[i] for
// every i < len(grad), the step of stochastic gradient Langevin dynamics
// with noise xi; with xi nil it does theta[i] -= lr·grad[i] (no noise
// term, not even a zero). Products and sums are rounded as that Go
// expression rounds them, unfused, on every instruction set, so that a
// chain takes the same path wherever it runs: the loop waits on memory,
// and two fused multiply-adds instead of four operations gained 5% with
// AVX-512 (0.5 µs over 79,510 parameters) and 13% with AVX2. It panics if
// theta, or a non-nil xi, is shorter than grad.
func LangevinUpdate(theta, grad, xi []float64, lr, scale float64) {
	langevinUpdate(vecBest, theta, grad, xi, lr, scale)
}

func langevinUpdate(vs *vecSet, theta, grad, xi []float64, lr, scale float64) {
	if len(theta) < len(grad) {
		panic("kernel: LangevinUpdate: theta shorter than grad")
	}
	if xi == nil {
		vs.descent(theta, grad, lr)
		return
	}
	if len(xi) < len(grad) {
		panic("kernel: LangevinUpdate: xi shorter than grad")
	}
	vs.langevin(theta, grad, xi, lr, scale)
}

// Sigmoid sets dst[i] = 1/(1 + e^−x[i]) for every i < len(x), and Tanh
// dst[i] = tanh(x[i]): the gates of the recurrent layers, five per unit
// and step of an LSTM, which computed one at a time through math.Exp cost
// more than the layer's matrix products. float64 computes through package
// math (to its last bits); float32 with the assembly's vectors, Cephes'
// expf and one division (asm/vec.go: within 4e-7 relative of σ, 3e-7
// absolute of tanh), or through math without them. NaN stays NaN and
// ±Inf give the limits. dst may be x; it panics if dst is shorter.
func Sigmoid[T float32 | float64](dst, x []T) { gateWith(vecBest, dst, x, false) }

// Tanh is Sigmoid's companion: dst[i] = tanh(x[i]).
func Tanh[T float32 | float64](dst, x []T) { gateWith(vecBest, dst, x, true) }

func gateWith[T float](vs *vecSet, dst, x []T, tanh bool) {
	if len(dst) < len(x) {
		panic("kernel: Sigmoid or Tanh: dst shorter than x")
	}
	switch {
	case !isF32[T]() && tanh:
		tanhGo(dst, x)
	case !isF32[T]():
		sigmoidGo(dst, x)
	case tanh:
		vs.tanhF32(as[float32](dst), as[float32](x))
	default:
		vs.sigmoidF32(as[float32](dst), as[float32](x))
	}
}
