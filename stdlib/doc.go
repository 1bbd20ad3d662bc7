// Package stdlib is temper's library of building blocks for models: log
// densities, constraint transforms and neural-network layers, each a node
// constructor over package autodiff.
//
// # Log densities
//
// Every density is Stan's _lpdf or _lpmf with Stan's parameterization and
// all normalizing constants kept (Stan Functions Reference), so that values
// can be compared with Stan's and marginal likelihoods mean something. A
// density returns the log density of each element: the arguments broadcast
// by NumPy's rules and the result has their broadcast shape (the vector
// densities drop the last axis). The compiler sums the terms and uses them
// one by one for a variance estimate. Gradients flow to every real argument.
//
// Integer arguments (counts, labels) are held as float64 and get no
// gradient. Categorical labels are 1-based, as in Stan: y = 1 is the first
// entry of the last axis.
//
// # Outside the support
//
// An argument outside the density's support or domain gives -Inf with all
// partials 0, never NaN and never a panic: a variate outside the support
// (y < 0 for exponential, a label outside 1..K), a scale that is not
// positive, a probability outside [0, 1], a count that is negative, not a
// whole number or above its total, a Cholesky factor with a diagonal entry
// that is not positive. Infinite arguments are outside every domain, as are
// a vector of probabilities that does not sum to one (to within Stan's
// tolerance, 1e-8). A sampler then sees a rejected point, not a poisoned
// gradient.
//
// Lookup finds a density by its Stan name for the compiler.
package stdlib
