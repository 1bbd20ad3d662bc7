package kernel

import "math"

// portableVec is the elementwise kernel set in Go, for other architectures,
// the purego build tag and CPUs without AVX2 and FMA. Its loops round as
// the assembly kernels do: the explicit conversions of products keep the
// compiler from fusing them into multiply-adds (which it may do on arm64
// and with GOAMD64=v3), so that every set gives the same bits.
var portableVec = &vecSet{name: "portable", isa: isaPortable}

// sumSqDiffGo sums in four independent accumulators, so that the additions
// do not wait on one another.
func sumSqDiffGo[T float](y []T, mu, scale float64) (sum, sumSq float64) {
	var s, q [4]float64
	i := 0
	for ; i+4 <= len(y); i += 4 {
		for j := range 4 {
			z := (float64(y[i+j]) - mu) * scale
			s[j] += z
			q[j] += z * z
		}
	}
	for ; i < len(y); i++ {
		z := (float64(y[i]) - mu) * scale
		s[0] += z
		q[0] += z * z
	}
	return (s[0] + s[1]) + (s[2] + s[3]), (q[0] + q[1]) + (q[2] + q[3])
}

func axpyDiffGo[T float](dst, y []T, mu, k T) {
	dst = dst[:len(y)]
	for i, v := range y {
		if d := v - mu; d-d == 0 { // y - mu = ±Inf or NaN: left alone
			dst[i] -= T(k * d)
		}
	}
}

// allFiniteGo sums x·0 (0 for finite x, NaN otherwise) in four independent
// accumulators, with no branch per element.
func allFiniteGo[T float](x []T) bool {
	var a [4]T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a[0] += x[i] * 0
		a[1] += x[i+1] * 0
		a[2] += x[i+2] * 0
		a[3] += x[i+3] * 0
	}
	for ; i < len(x); i++ {
		a[0] += x[i] * 0
	}
	return a[0]+a[1]+a[2]+a[3] == 0
}

func convertGo[D, S float](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

func langevinGo(theta, grad, xi []float64, lr, scale float64) {
	theta, xi = theta[:len(grad)], xi[:len(grad)]
	for i, g := range grad {
		theta[i] = theta[i] - float64(lr*g) + float64(scale*xi[i])
	}
}

func descentGo(theta, grad []float64, lr float64) {
	theta = theta[:len(grad)]
	for i, g := range grad {
		theta[i] -= float64(lr * g)
	}
}

// sigmoidGo and tanhGo compute in float64 through package math: the
// float64 kernels, and the float32 ones without assembly.
func sigmoidGo[T float](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = T(1 / (1 + math.Exp(-float64(v))))
	}
}

func tanhGo[T float](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = T(math.Tanh(float64(v)))
	}
}
