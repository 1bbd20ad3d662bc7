package autodiff

import (
	"math"

	"github.com/temper-ppl/temper/autodiff/kernel"
	"gonum.org/v1/gonum/mathext"
)

// The elementwise op set. Binary ops broadcast (NumPy rules); every function
// carries its derivative, checked against finite differences by the op table
// in ops_test.go.

var (
	addFunc = &ScalarFunc{Name: "add", Arity: 2,
		Value: func(x []float64) float64 { return x[0] + x[1] },
		Grad:  func(dx, _ []float64, _ float64) { dx[0], dx[1] = 1, 1 }}
	subFunc = &ScalarFunc{Name: "sub", Arity: 2,
		Value: func(x []float64) float64 { return x[0] - x[1] },
		Grad:  func(dx, _ []float64, _ float64) { dx[0], dx[1] = 1, -1 }}
	mulFunc = &ScalarFunc{Name: "mul", Arity: 2,
		Value: func(x []float64) float64 { return x[0] * x[1] },
		Grad:  func(dx, x []float64, _ float64) { dx[0], dx[1] = x[1], x[0] }}
	divFunc = &ScalarFunc{Name: "div", Arity: 2,
		Value: func(x []float64) float64 { return x[0] / x[1] },
		Grad:  func(dx, x []float64, y float64) { dx[0], dx[1] = 1/x[1], -y/x[1] }}
	// powFunc's derivative in the exponent, x^y·log x, is taken as 0 where
	// x ≤ 0 (its limit at x = 0 for y > 0; undefined for x < 0).
	powFunc = &ScalarFunc{Name: "pow", Arity: 2,
		Value: func(x []float64) float64 { return math.Pow(x[0], x[1]) },
		Grad: func(dx, x []float64, y float64) {
			dx[0] = x[1] * math.Pow(x[0], x[1]-1)
			dx[1] = 0
			if x[0] > 0 {
				dx[1] = y * math.Log(x[0])
			}
		}}
)

// Add returns a + b.
func Add(a, b *Node) *Node { return Elementwise(addFunc, a, b) }

// Sub returns a - b.
func Sub(a, b *Node) *Node { return Elementwise(subFunc, a, b) }

// Mul returns a * b elementwise.
func Mul(a, b *Node) *Node { return Elementwise(mulFunc, a, b) }

// Div returns a / b elementwise.
func Div(a, b *Node) *Node { return Elementwise(divFunc, a, b) }

// Pow returns a^b elementwise.
func Pow(a, b *Node) *Node { return Elementwise(powFunc, a, b) }

var (
	negFunc = &UnaryFunc{Name: "neg",
		Value: func(x float64) float64 { return -x },
		Deriv: func(_, _ float64) float64 { return -1 }}
	expFunc = &UnaryFunc{Name: "exp",
		Value: math.Exp,
		Deriv: func(_, y float64) float64 { return y }}
	logFunc = &UnaryFunc{Name: "log",
		Value: math.Log,
		Deriv: func(x, _ float64) float64 { return 1 / x }}
	log1pFunc = &UnaryFunc{Name: "log1p",
		Value: math.Log1p,
		Deriv: func(x, _ float64) float64 { return 1 / (1 + x) }}
	expm1Func = &UnaryFunc{Name: "expm1",
		Value: math.Expm1,
		Deriv: func(_, y float64) float64 { return y + 1 }}
	sqrtFunc = &UnaryFunc{Name: "sqrt",
		Value: math.Sqrt,
		Deriv: func(_, y float64) float64 { return 0.5 / y }}
	squareFunc = &UnaryFunc{Name: "square",
		Value: func(x float64) float64 { return x * x },
		Deriv: func(x, _ float64) float64 { return 2 * x }}
	// absFunc's derivative at 0 is taken as 0, a subgradient.
	absFunc = &UnaryFunc{Name: "abs",
		Value: math.Abs,
		Deriv: func(x, _ float64) float64 { return sign(x) }}
	sinFunc = &UnaryFunc{Name: "sin",
		Value: math.Sin,
		Deriv: func(x, _ float64) float64 { return math.Cos(x) }}
	cosFunc = &UnaryFunc{Name: "cos",
		Value: math.Cos,
		Deriv: func(x, _ float64) float64 { return -math.Sin(x) }}
	tanhFunc = &UnaryFunc{Name: "tanh",
		Value: math.Tanh,
		Deriv: func(_, y float64) float64 { return 1 - y*y }}
	sigmoidFunc = &UnaryFunc{Name: "sigmoid",
		Value: Sigmoid64,
		Deriv: func(_, y float64) float64 { return y * (1 - y) }}
	softplusFunc = &UnaryFunc{Name: "softplus",
		Value: Softplus64,
		Deriv: func(x, _ float64) float64 { return Sigmoid64(x) }}
	logSigmoidFunc = &UnaryFunc{Name: "log_sigmoid",
		Value: func(x float64) float64 { return -Softplus64(-x) },
		Deriv: func(x, _ float64) float64 { return Sigmoid64(-x) }}
	// reluFunc's derivative at 0 is taken as 0.
	reluFunc = &UnaryFunc{Name: "relu",
		Value: func(x float64) float64 { return max(x, 0) },
		Deriv: func(x, _ float64) float64 {
			if x > 0 {
				return 1
			}
			return 0
		}}
	lgammaFunc = &UnaryFunc{Name: "lgamma",
		Value: Lgamma64,
		Deriv: func(x, _ float64) float64 { return Digamma64(x) }}
	digammaFunc = &UnaryFunc{Name: "digamma",
		Value: Digamma64,
		Deriv: func(x, _ float64) float64 { return Trigamma64(x) }}
)

// Neg returns -x.
func Neg(x *Node) *Node { return Unary(negFunc, x) }

// Exp returns e^x.
func Exp(x *Node) *Node { return Unary(expFunc, x) }

// Log returns the natural logarithm of x.
func Log(x *Node) *Node { return Unary(logFunc, x) }

// Log1p returns log(1 + x), accurate near x = 0.
func Log1p(x *Node) *Node { return Unary(log1pFunc, x) }

// Expm1 returns e^x - 1, accurate near x = 0.
func Expm1(x *Node) *Node { return Unary(expm1Func, x) }

// Sqrt returns the square root of x.
func Sqrt(x *Node) *Node { return Unary(sqrtFunc, x) }

// Square returns x².
func Square(x *Node) *Node { return Unary(squareFunc, x) }

// Abs returns |x|.
func Abs(x *Node) *Node { return Unary(absFunc, x) }

// Sin returns sin x.
func Sin(x *Node) *Node { return Unary(sinFunc, x) }

// Cos returns cos x.
func Cos(x *Node) *Node { return Unary(cosFunc, x) }

// Tanh returns the hyperbolic tangent of x.
func Tanh(x *Node) *Node { return Unary(tanhFunc, x) }

// Sigmoid returns the logistic function 1/(1+e^-x).
func Sigmoid(x *Node) *Node { return Unary(sigmoidFunc, x) }

// Softplus returns log(1 + e^x) without overflow.
func Softplus(x *Node) *Node { return Unary(softplusFunc, x) }

// LogSigmoid returns log(sigmoid(x)) = -softplus(-x) without underflow.
func LogSigmoid(x *Node) *Node { return Unary(logSigmoidFunc, x) }

// Relu returns max(x, 0).
func Relu(x *Node) *Node { return Unary(reluFunc, x) }

// ReluOf is x when n is Relu(x), else nil: for ops that commute with the
// ReLU and move it after themselves (max pooling, where it then runs on a
// quarter of the values).
func ReluOf(n *Node) *Node {
	if n == nil {
		return nil
	}
	if op, ok := n.op.(unaryOp); ok && op.f == reluFunc {
		return n.ins[0]
	}
	return nil
}

// Lgamma returns log|Γ(x)|.
func Lgamma(x *Node) *Node { return Unary(lgammaFunc, x) }

// Digamma returns ψ(x) = d/dx log Γ(x).
func Digamma(x *Node) *Node { return Unary(digammaFunc, x) }

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// Sigmoid64 is the logistic function, evaluated without overflow.
func Sigmoid64(x float64) float64 {
	e := ExpNonPos(-math.Abs(x))
	if x >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

// Softplus64 is log(1 + e^x), evaluated without overflow.
func Softplus64(x float64) float64 {
	if x > 0 {
		return x + Log1pUnit(ExpNonPos(-x))
	}
	return Log1pUnit(ExpNonPos(x))
}

// Lgamma64 is log|Γ(x)|.
func Lgamma64(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// Digamma64 is ψ(x) = Γ'(x)/Γ(x), to about 1e-15 relative away from its
// root: the recurrence ψ(x) = ψ(x+1) - 1/x up to x ≥ 12, then the asymptotic
// series log x - 1/2x - Σ_k B_2k/(2k x^2k) to k = 5 (DLMF 5.5.2, 5.11.2),
// whose first omitted term is below 3e-15 there; the reflection
// ψ(1-x) - ψ(x) = π cot(πx) below zero (DLMF 5.5.4). gonum's mathext.Digamma
// stops the series earlier and is off by about 2e-11, which shows in
// relative terms near the root at 1.4616.
func Digamma64(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x <= 0 && x == math.Floor(x):
		return math.NaN() // a pole of Γ
	case x < 0:
		return Digamma64(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	shift := 0.0
	for x < 12 {
		shift -= 1 / x
		x++
	}
	x2 := 1 / (x * x)
	series := x2 * (1.0/12 - x2*(1.0/120-x2*(1.0/252-x2*(1.0/240-x2*(1.0/132)))))
	return shift + math.Log(x) - 0.5/x - series
}

// Trigamma64 is ψ'(x), the derivative of the digamma function: the Hurwitz
// zeta ζ(2, x) for x > 0, and the reflection ψ'(1-x) + ψ'(x) = π²/sin²(πx)
// below (DLMF 5.15.1 and 5.15.6).
func Trigamma64(x float64) float64 {
	if x > 0 {
		return mathext.Zeta(2, x)
	}
	if x == math.Floor(x) {
		return math.Inf(1) // a pole of Γ
	}
	s := math.Sin(math.Pi * x)
	return math.Pi*math.Pi/(s*s) - mathext.Zeta(2, 1-x)
}

// ExpNonPos is e^t for t ≤ 0 within an ulp, math.Exp elsewhere: see
// kernel.ExpNonPos.
func ExpNonPos(t float64) float64 { return kernel.ExpNonPos(t) }

// Log1pUnit is log(1 + x) for 0 ≤ x ≤ 1 within an ulp, math.Log1p
// elsewhere: see kernel.Log1pUnit.
func Log1pUnit(x float64) float64 { return kernel.Log1pUnit(x) }
