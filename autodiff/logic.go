package autodiff

// Comparisons, logic and the conditional. A comparison or a logical
// operator is a step function: its value is 0 or 1 and its derivative is 0
// wherever it exists, so no gradient flows through it (to either operand).
// The conditional passes its gradient to the branch it chose, elementwise,
// and none to the other branch or to the condition. Truth is nonzero, as in
// C and Stan.

// boolean converts a truth value to 0 or 1.
func boolean(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stepGrad is the derivative of a comparison or logical operator.
func stepGrad(dx, _ []float64, _ float64) {
	for i := range dx {
		dx[i] = 0
	}
}

// comparison returns the ScalarFunc of a binary predicate.
func comparison(name string, pred func(a, b float64) bool) *ScalarFunc {
	return &ScalarFunc{Name: name, Arity: 2,
		Value: func(x []float64) float64 { return boolean(pred(x[0], x[1])) },
		Grad:  stepGrad}
}

var (
	lessFunc         = comparison("less", func(a, b float64) bool { return a < b })
	lessEqualFunc    = comparison("less_equal", func(a, b float64) bool { return a <= b })
	greaterFunc      = comparison("greater", func(a, b float64) bool { return a > b })
	greaterEqualFunc = comparison("greater_equal", func(a, b float64) bool { return a >= b })
	equalFunc        = comparison("equal", func(a, b float64) bool { return a == b })
	notEqualFunc     = comparison("not_equal", func(a, b float64) bool { return a != b })
	andFunc          = comparison("and", func(a, b float64) bool { return a != 0 && b != 0 })
	orFunc           = comparison("or", func(a, b float64) bool { return a != 0 || b != 0 })
	notFunc          = &ScalarFunc{Name: "not", Arity: 1,
		Value: func(x []float64) float64 { return boolean(x[0] == 0) },
		Grad:  stepGrad}
	ifElseFunc = &ScalarFunc{Name: "if_else", Arity: 3,
		Value: func(x []float64) float64 {
			if x[0] != 0 {
				return x[1]
			}
			return x[2]
		},
		Grad: func(dx, x []float64, _ float64) {
			t := boolean(x[0] != 0)
			dx[0], dx[1], dx[2] = 0, t, 1-t
		}}
)

// Less returns 1 where a < b and 0 elsewhere (broadcasting); no gradient
// flows through it.
func Less(a, b *Node) *Node { return Elementwise(lessFunc, a, b) }

// LessEqual returns 1 where a ≤ b, else 0.
func LessEqual(a, b *Node) *Node { return Elementwise(lessEqualFunc, a, b) }

// Greater returns 1 where a > b, else 0.
func Greater(a, b *Node) *Node { return Elementwise(greaterFunc, a, b) }

// GreaterEqual returns 1 where a ≥ b, else 0.
func GreaterEqual(a, b *Node) *Node { return Elementwise(greaterEqualFunc, a, b) }

// Equal returns 1 where a = b, else 0.
func Equal(a, b *Node) *Node { return Elementwise(equalFunc, a, b) }

// NotEqual returns 1 where a ≠ b, else 0.
func NotEqual(a, b *Node) *Node { return Elementwise(notEqualFunc, a, b) }

// And returns 1 where both a and b are nonzero, else 0.
func And(a, b *Node) *Node { return Elementwise(andFunc, a, b) }

// Or returns 1 where a or b is nonzero, else 0.
func Or(a, b *Node) *Node { return Elementwise(orFunc, a, b) }

// Not returns 1 where x is 0, else 0.
func Not(x *Node) *Node { return Elementwise(notFunc, x) }

// IfElse returns a where cond is nonzero and b elsewhere, the three
// broadcast together. The gradient of each element goes to the branch
// chosen there only: the other branch may be undefined (log of a negative
// number) without its NaN reaching the gradient, since the elementwise
// backward pass skips the zero cotangent it gets.
func IfElse(cond, a, b *Node) *Node { return Elementwise(ifElseFunc, cond, a, b) }
