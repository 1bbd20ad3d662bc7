// Package lang is the front end of temper's model language (.ppl files): it
// turns source text into a checked syntax tree for the compiler. It imports
// nothing of temper's.
//
// # The language
//
// A program is a sequence of blocks, each at most once, in any order:
//
//	data    { N: int  X: real[N, D]  y: int<lower=0, upper=1>[N] }   declarations
//	param   { w: real[D]  tau: real<lower=0> }                        declarations
//	model   { w ~ normal(0, tau)  for n in plate(N) { ... } }          statements
//	predict { for n in plate(N) { y[n] ~ bernoulli_logit(X[n] @ w) } } statements
//	infer   { sampler = sghmc(lr = 1e-3)  iters = 20000 }              settings
//	functions { f(x: real, v: real[], n: int): real { ... return e } } functions
//
// A declaration is `name: type`, a type `real` or `int` with an optional
// constraint <lower=e, upper=e> and optional dimensions [e, ...]. A
// statement is a sample `lhs ~ dist(args)`, a definition `name = e`, a
// `target += e` or a plate `for i in plate(N) { ... }`, whose body is
// written for one row i of the observation axis and which the compiler
// minibatches; or a local variable `name: type` (optionally `= e`), an
// assignment to it or its elements (`s[t] = e`, `acc += e`), a loop `for t
// in lo:hi { ... }` or an `if c { ... } else { ... }`, whose bounds and
// conditions are known when the model is compiled (control.go), or in a
// function's body `return e`. Statements need no separator; an optional ";" may follow any
// statement, declaration or setting. Comments are // and /* */.
//
// Expressions, by increasing precedence: + and -; *, / and @ (the matrix
// product); unary -; ^ (power, right-associative, so -x^2 is -(x^2));
// indexing x[i, a:b, :] and calls f(a, b). Literals are numbers (3, 3.0,
// 1e-3, .5), vectors [1, 2, 3] and, in the infer block only, strings.
// docs/language.md is the reference for users.
//
// # The pipeline
//
// Parse reads one file into a *File (ast.go) and Check resolves and checks
// it against an Env, the signatures of the standard library's distributions
// and functions, which the compiler fills:
//
//	f, err := lang.Parse("model.ppl", src)
//	if err != nil {
//		fmt.Fprint(os.Stderr, lang.Format(err, src))
//	}
//	info, err := lang.Check(f, env)
//
// Check's Info maps every name to its Symbol (data, parameter, definition,
// plate index, local variable, loop index or function parameter), tells which expressions are integer-valued and which
// statements are in which plate. Shapes are not checked here: the compiler
// checks them against the data, at the positions of the expressions.
//
// # Diagnostics
//
// Both steps return an ErrorList of *Error: a position, a message of the
// form "expected X, found Y" for syntax errors, and notes pointing at other
// positions ("previously declared here"). Parse stops at the first syntax
// error; Check reports every error it finds, sorted by position. Format
// renders a list for a terminal, each error with its source line and a
// caret under the column.
//
// The parser is participle (github.com/alecthomas/participle/v2) for the
// block structure, run on tokens from a hand-written scanner, with
// expressions and comma-separated lists parsed by hand through
// participle.ParseTypeWith. Neither Parse nor Check panics on any input:
// sources over MaxSourceSize bytes and nesting deeper than MaxNesting
// levels are errors, and the package is fuzzed (FuzzParseCheck).
package lang
