// Package noise draws standard normal noise fast and reproducibly for
// stochastic-gradient MCMC, where every replica-step needs one N(0, 1)
// draw per parameter (tens of thousands per step).
//
// # Why
//
// Each replica (or chain) owns a Stream identified by (seed, stream), so
// its noise does not depend on which goroutine runs it or in what order.
// Streams are counter-based: word n of a stream is a fixed function of
// (seed, stream, n), and Seek jumps to any n in O(1). FillNormalParallel
// uses this to cut one long fill into fixed blocks, each drawn from a
// position set by its block index alone, so its output is bit-identical
// for any number of workers.
//
// # Algorithms
//
// The generator is SplitMix64 (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) read as a counter-based
// generator: word n is mix64(base + (n+1)·gamma), Stafford's Mix13
// finalizer applied to a Weyl sequence, so Seek is one multiply. New
// derives each stream's offset base and odd increment gamma from the whole
// (seed, stream) pair with a three-round Feistel network whose round
// function is mix64, and fixes gamma up as java.util.SplittableRandom does
// so that it has at least 24 bit transitions; streams therefore differ in
// increment as well as offset, as SplitMix64's split children do. Steele
// et al. report that SplitMix64 passes TestU01's BigCrush. The zero Stream
// is SplitMix64 seeded with 0.
//
// Philox4x32-10 and Philox4x64-10 (Salmon, Moraes, Dror & Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011) were measured first and
// rejected for speed: in pure Go on the target machine they cost 7–10 and
// 4–5 ns per 64-bit word, against about 1.5 ns for the mix above, and the
// point of the package is to beat math/rand/v2's PCG with NormFloat64
// (about 5–7 ns per draw there).
//
// Normal draws use the ziggurat method (Marsaglia & Tsang, "The ziggurat
// method for generating random variables", J. Stat. Softw. 5(8), 2000)
// with 256 layers, whose tables are computed at init from the defining
// equations (the tail start r = 3.6541528853610088 is found by bisection).
// One word gives the layer and a signed 53-bit uniform, and 98.5% of
// draws are accepted at once. The tail beyond r uses Marsaglia's exact
// method and the wedges an exact comparison with the density, so the
// draws are exactly normal up to floating-point rounding. FillNormal32
// takes two candidates from each word, with 24-bit signed uniforms to
// match float32.
//
// # Tests
//
// The tests establish that: the generator reproduces SplitMix64's
// published outputs and its bits are balanced; the ziggurat tables
// reproduce Marsaglia & Tsang's published r and v for 128 and 256 layers,
// with every layer of equal area; 10^6 draws have mean, variance,
// skewness and kurtosis within five standard errors of the normal's; 10^5
// draws pass a Kolmogorov–Smirnov test and 10^6 a 1000-cell chi-square
// test at α = 10^-3, and 10^5 draws of the tail method a KS test against
// the normal tail; the frequencies of |z| > 3 and |z| > 4 in 10^7 draws
// match 2Φ(-3) and 2Φ(-4) within five standard errors; the same (seed,
// stream) gives the same draws and neighbouring streams different,
// uncorrelated ones; Seek(n) continues exactly where n draws from a fresh
// stream would; and FillNormalParallel gives the same output for 1, 2, 3
// and 7 workers, equal to filling its blocks one after another. The
// statistical tests cover FillNormal, FillNormal32 and both parallel
// fills.
package noise
