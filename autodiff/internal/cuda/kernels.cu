// temper's CUDA kernels: one per op kind of the autodiff graph, each
// templated on the element type T (float or double) and instantiated as
// extern "C" NAME_f32 and NAME_f64. Every kernel takes one struct by value
// whose layout the Go side (args.go) mirrors field for field: pointers
// first, then 64-bit integers, then 32-bit ones.
//
// A tensor of a replicated node holds P consecutive per-replica tensors; a
// shared node one, which every replica reads (its replica stride is 0).
// Arithmetic is in double for both element types, as the CPU kernels
// compute (autodiff passes float64 to its scalar functions), so float32
// results agree with the CPU's to float32 rounding.
//
// Gradients accumulate with +=; where several threads may add into one
// element (a broadcast operand, a gathered row drawn twice) the kernels use
// atomicAdd, so such sums may differ from run to run in the last bits.
//
// Regenerate kernels.ptx with `go generate ./autodiff/internal/cuda` (it
// needs nvcc); scalar.cuh holds the elementwise functions.

#include "scalar.cuh"
#include "args.h"

template <typename T> __device__ __forceinline__ void atomic_add(T* p, double v);
template <> __device__ __forceinline__ void atomic_add<float>(float* p, double v) { atomicAdd(p, (float)v); }
template <> __device__ __forceinline__ void atomic_add<double>(double* p, double v) { atomicAdd(p, v); }

__device__ __forceinline__ i64 thread_index() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ i64 thread_count() { return (i64)gridDim.x * blockDim.x; }

// ---------------------------------------------------------------------------
// Elementwise functions with broadcasting (autodiff's elementwise and unary
// ops, and the dot product, whose plan runs over rows of k).


// offsets sets off[i] to operand i's element for output element j of
// replica r.
__device__ __forceinline__ void offsets(const EwArgs& a, i64 r, i64 j, i64* off) {
	for (int i = 0; i < a.arity; i++) off[i] = r * a.rstride[i];
	for (int d = a.rank - 1; d >= 0; d--) {
		i64 c = j % a.dims[d];
		j /= a.dims[d];
		for (int i = 0; i < a.arity; i++) off[i] += c * a.strides[i][d];
	}
}

template <typename T> __device__ void ew_forward(const EwArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, off[MAXOPS];
		offsets(a, r, t - r * a.n, off);
		double x[MAXOPS];
		for (int i = 0; i < a.arity; i++) x[i] = (double)((const T*)a.in[i])[off[i]];
		((T*)a.out)[t] = (T)sf_value(a.func, x);
	}
}

template <typename T> __device__ void ew_backward(const EwArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		double g = (double)((const T*)a.gout)[t];
		if (g == 0) continue;  // as the CPU: keeps 0·∞ out of unused elements
		i64 r = t / a.n, off[MAXOPS];
		offsets(a, r, t - r * a.n, off);
		double x[MAXOPS], dx[MAXOPS];
		for (int i = 0; i < a.arity; i++) x[i] = (double)((const T*)a.in[i])[off[i]];
		sf_grad(a.func, dx, x, (double)((const T*)a.out)[t]);
		for (int i = 0; i < a.arity; i++) {
			T* gi = (T*)a.gin[i];
			if (!gi) continue;
			if (a.atomic_mask >> i & 1) atomic_add(gi + off[i], g * dx[i]);
			else gi[off[i]] += (T)(g * dx[i]);
		}
	}
}

template <typename T> __device__ void dot_forward(const EwArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, off[MAXOPS];
		offsets(a, r, t - r * a.n, off);
		const T* x = (const T*)a.in[0] + off[0] * a.k;
		const T* y = (const T*)a.in[1] + off[1] * a.k;
		double s = 0;
		for (i64 i = 0; i < a.k; i++) s += (double)x[i] * (double)y[i];
		((T*)a.out)[t] = (T)s;
	}
}

// dot_backward runs one thread per output element and position along k.
template <typename T> __device__ void dot_backward(const EwArgs& a) {
	for (i64 u = thread_index(); u < a.total * a.k; u += thread_count()) {
		i64 t = u / a.k, i = u - t * a.k;
		double g = (double)((const T*)a.gout)[t];
		if (g == 0) continue;
		i64 r = t / a.n, off[MAXOPS];
		offsets(a, r, t - r * a.n, off);
		i64 ox = off[0] * a.k + i, oy = off[1] * a.k + i;
		for (int s = 0; s < 2; s++) {
			T* gs = (T*)a.gin[s];
			if (!gs) continue;
			double v = g * (double)((const T*)a.in[1 - s])[s == 0 ? oy : ox];
			i64 o = s == 0 ? ox : oy;
			if (a.atomic_mask >> s & 1) atomic_add(gs + o, v);
			else gs[o] += (T)v;
		}
	}
}

// ---------------------------------------------------------------------------
// Reductions along one axis of [outer, n, inner]: one block per output
// element, its threads striding over n, combined in shared memory in a
// fixed order, so results do not depend on scheduling.


#define REDUCE_THREADS 256

__device__ double block_sum(double v, double* sh) {
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	double r = sh[0];
	__syncthreads();
	return r;
}

__device__ double block_max(double v, double* sh) {
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) sh[threadIdx.x] = fmax(sh[threadIdx.x], sh[threadIdx.x + s]);
		__syncthreads();
	}
	double r = sh[0];
	__syncthreads();
	return r;
}

template <typename T> __device__ void reduce_forward(const ReduceArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < a.outputs; o += gridDim.x) {
		i64 per = a.outer * a.inner, r = o / per, q = o - r * per;
		i64 oo = q / a.inner, ii = q - oo * a.inner;
		const T* x = (const T*)a.in + r * a.rs_in + oo * a.n * a.inner + ii;
		double v;
		if (a.kind <= 1) {
			double s = 0;
			for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) s += (double)x[j * a.inner];
			v = block_sum(s, sh);
			if (a.kind == 1) v /= (double)a.n;
		} else {
			double m = -INFINITY;
			for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) m = fmax(m, (double)x[j * a.inner]);
			m = block_max(m, sh);
			if (a.kind == 2 || isinf(m)) {
				v = m;  // max; or log-sum-exp of all -∞, or with a +∞
			} else {
				double s = 0;
				for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) s += exp((double)x[j * a.inner] - m);
				v = m + log(block_sum(s, sh));
			}
		}
		if (threadIdx.x == 0) ((T*)a.out)[r * a.rs_out + q] = (T)v;
	}
}

// reduce_backward: one thread per input element for sum, mean and
// log-sum-exp; max sends the gradient to the first maximal element, one
// thread per output.
template <typename T> __device__ void reduce_backward(const ReduceArgs& a) {
	i64 per = a.outer * a.inner;
	if (a.kind == 2) {
		for (i64 o = thread_index(); o < a.outputs; o += thread_count()) {
			i64 r = o / per, q = o - r * per, oo = q / a.inner, ii = q - oo * a.inner;
			double g = (double)((const T*)a.gout)[r * a.rs_out + q];
			if (g == 0) continue;
			T m = ((const T*)a.out)[r * a.rs_out + q];
			i64 base = r * a.rs_in + oo * a.n * a.inner + ii;
			for (i64 j = 0; j < a.n; j++) {
				if (((const T*)a.in)[base + j * a.inner] == m) {
					((T*)a.gin)[base + j * a.inner] += (T)g;
					break;
				}
			}
		}
		return;
	}
	i64 per_rep = a.outer * a.n * a.inner, total = per_rep * (a.outputs / per);
	for (i64 t = thread_index(); t < total; t += thread_count()) {
		i64 r = t / per_rep, e = t - r * per_rep;
		i64 oo = e / (a.n * a.inner), ii = e % a.inner;
		i64 q = oo * a.inner + ii;
		T gt = ((const T*)a.gout)[r * a.rs_out + q];
		if (gt == 0) continue;
		double g = (double)gt;
		i64 at = r * a.rs_in + e;
		if (a.kind == 0) {
			((T*)a.gin)[at] += gt;
		} else if (a.kind == 1) {
			((T*)a.gin)[at] += gt / (T)a.n;
		} else {
			double lse = (double)((const T*)a.out)[r * a.rs_out + q];
			if (isinf(lse) && lse < 0) continue;
			((T*)a.gin)[at] += (T)(g * exp((double)((const T*)a.in)[at] - lse));
		}
	}
}

// ---------------------------------------------------------------------------
// Rows: gather by the minibatch's indices, take_rows by a data column.


template <typename T> __device__ __forceinline__ i64 row_of(const RowsArgs& a, i64 r, i64 b) {
	if (a.idx) return a.idx[r * a.rs_idx + b];
	double v = (double)((const T*)a.vals)[r * a.rs_idx + b];
	i64 k = (i64)v;
	return ((double)k == v && k >= 0 && k < a.rows_in) ? k : -1;
}

template <typename T> __device__ void rows_forward(const RowsArgs& a) {
	i64 per = a.rows_out * a.row;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, b = e / a.row, j = e - b * a.row;
		i64 k = row_of<T>(a, r, b);
		((T*)a.out)[t] = k < 0 ? (T)NAN : ((const T*)a.in)[r * a.rs_in + k * a.row + j];
	}
}

template <typename T> __device__ void rows_backward(const RowsArgs& a) {
	i64 per = a.rows_out * a.row;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		T g = ((const T*)a.gout)[t];
		if (g == 0) continue;
		i64 r = t / per, e = t - r * per, b = e / a.row, j = e - b * a.row;
		i64 k = row_of<T>(a, r, b);
		if (k >= 0) atomic_add((T*)a.gin + r * a.rs_in + k * a.row + j, (double)g);
	}
}

// ---------------------------------------------------------------------------
// categorical_lpmf and categorical_logit_lpmf: one label against one row of
// k per output element (stdlib's categoricalOp).


__device__ __forceinline__ int label_index(double y, int k) {
	return (y >= 1 && y <= k && y == trunc(y)) ? (int)y - 1 : -1;
}

template <typename T> __device__ void categorical_forward(const CategoricalArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* row = (const T*)a.theta + r * a.rs_theta + (i64)(a.row_at ? a.row_at[b] : b) * a.k;
		int i = label_index((double)((const T*)a.y)[r * a.rs_y + (a.y_at ? a.y_at[b] : b)], a.k);
		double v = -INFINITY;
		if (i >= 0 && a.logit) {
			double m = -INFINITY;
			bool finite = true;
			for (int j = 0; j < a.k; j++) {
				double x = (double)row[j];
				finite = finite && !isinf(x);
				m = fmax(m, x);
			}
			if (finite) {
				double s = 0;
				for (int j = 0; j < a.k; j++) s += exp((double)row[j] - m);
				v = ((double)row[i] - m) - log(s);
			}
		} else if (i >= 0) {
			double s = 0, tol = sizeof(T) == 4 ? (a.k + 1) * 0x1p-24 : 1e-8;
			bool ok = true;
			for (int j = 0; j < a.k; j++) {
				double p = (double)row[j];
				ok = ok && p >= 0 && p <= 1;
				s += p;
			}
			if (ok && fabs(s - 1) <= tol) v = log((double)row[i]);
		}
		((T*)a.out)[r * a.rs_out + b] = (T)v;
	}
}

template <typename T> __device__ void categorical_backward(const CategoricalArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double g = (double)((const T*)a.gout)[r * a.rs_out + b];
		double out = (double)((const T*)a.out)[r * a.rs_out + b];
		if (g == 0 || (isinf(out) && out < 0)) continue;
		i64 base = r * a.rs_theta + (i64)(a.row_at ? a.row_at[b] : b) * a.k;
		const T* row = (const T*)a.theta + base;
		T* grow = (T*)a.gtheta + base;
		int i = label_index((double)((const T*)a.y)[r * a.rs_y + (a.y_at ? a.y_at[b] : b)], a.k);
		if (!a.logit) {
			atomic_add(grow + i, g / (double)row[i]);
			continue;
		}
		double m = -INFINITY, s = 0;
		for (int j = 0; j < a.k; j++) m = fmax(m, (double)row[j]);
		for (int j = 0; j < a.k; j++) s += exp((double)row[j] - m);
		double ls = log(s);
		for (int j = 0; j < a.k; j++) atomic_add(grow + j, -g * exp(((double)row[j] - m) - ls));
		atomic_add(grow + i, g);
	}
}

// ---------------------------------------------------------------------------
// Σ normal_lpdf(y | μ, σ) with scalar μ and σ (stdlib's normalScalarOp with
// sum set): the prior of a weight matrix. Each replica's y is cut into
// `blocks` chunks, one block each, whose partial sums a second kernel adds
// per replica in a fixed order: a 784 × 1200 weight matrix keeps a hundred
// multiprocessors busy rather than one.


__device__ __forceinline__ bool normal_support(double mu, double sigma) {
	return !isinf(mu) && !isnan(mu) && !isinf(sigma) && sigma > 0;
}

#define LN_SQRT_2PI 0.91893853320467274178032973640562

// normal_sum_forward: partial[q] = Σz² over chunk q = r·blocks + b.
template <typename T> __device__ void normal_sum_forward(const NormalSumArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	i64 chunk = (a.n + a.blocks - 1) / a.blocks;
	for (i64 q = blockIdx.x; q < (i64)a.replicas * a.blocks; q += gridDim.x) {
		i64 r = q / a.blocks, lo = (q - r * a.blocks) * chunk, hi = lo + chunk < a.n ? lo + chunk : a.n;
		double mu = (double)((const T*)a.mu)[r * a.rs_mu], sigma = (double)((const T*)a.sigma)[r * a.rs_sigma];
		double zz = 0;
		if (normal_support(mu, sigma)) {
			double inv = 1 / sigma;
			const T* y = (const T*)a.y + r * a.rs_y;
			for (i64 i = lo + threadIdx.x; i < hi; i += blockDim.x) {
				double z = ((double)y[i] - mu) * inv;
				zz += z * z;
			}
		}
		zz = block_sum(zz, sh);
		if (threadIdx.x == 0) a.partial[q] = zz;
	}
}

template <typename T> __device__ void normal_sum_forward_finish(const NormalSumArgs& a) {
	for (i64 r = thread_index(); r < a.replicas; r += thread_count()) {
		double mu = (double)((const T*)a.mu)[r * a.rs_mu], sigma = (double)((const T*)a.sigma)[r * a.rs_sigma];
		if (!normal_support(mu, sigma)) {
			((T*)a.out)[r] = (T)-INFINITY;
			continue;
		}
		double zz = 0;
		for (int b = 0; b < a.blocks; b++) zz += a.partial[r * a.blocks + b];
		double total = -0.5 * zz + (double)a.n * (-log(sigma) - LN_SQRT_2PI);
		((T*)a.out)[r] = (T)(total != total ? -INFINITY : total);
	}
}

// normal_sum_backward: ∂/∂y_i = -g·z_i/σ for the chunk's elements, and
// partial[2q], partial[2q+1] = the chunk's Σz and Σz², from which
// normal_sum_backward_finish makes ∂/∂μ = g/σ·Σz and ∂/∂σ = g/σ·(Σz² - n).
template <typename T> __device__ void normal_sum_backward(const NormalSumArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	i64 chunk = (a.n + a.blocks - 1) / a.blocks;
	for (i64 q = blockIdx.x; q < (i64)a.replicas * a.blocks; q += gridDim.x) {
		i64 r = q / a.blocks, lo = (q - r * a.blocks) * chunk, hi = lo + chunk < a.n ? lo + chunk : a.n;
		double g = (double)((const T*)a.gout)[r];
		double mu = (double)((const T*)a.mu)[r * a.rs_mu], sigma = (double)((const T*)a.sigma)[r * a.rs_sigma];
		double sz = 0, szz = 0;
		if (g != 0 && normal_support(mu, sigma)) {
			double inv = 1 / sigma;
			const T* y = (const T*)a.y + r * a.rs_y;
			T* gy = a.gy ? (T*)a.gy + r * a.rs_y : 0;
			T k = (T)(g * inv * inv);
			for (i64 i = lo + threadIdx.x; i < hi; i += blockDim.x) {
				double d = (double)y[i] - mu;
				if (isinf(d) || isnan(d)) continue;  // the density is -∞ there: no partial
				if (gy) gy[i] -= k * (y[i] - (T)mu);
				double z = d * inv;
				sz += z;
				szz += z * z;
			}
		}
		sz = block_sum(sz, sh);
		szz = block_sum(szz, sh);
		if (threadIdx.x == 0) {
			a.partial[2 * q] = sz;
			a.partial[2 * q + 1] = szz;
		}
	}
}

template <typename T> __device__ void normal_sum_backward_finish(const NormalSumArgs& a) {
	for (i64 r = thread_index(); r < a.replicas; r += thread_count()) {
		double g = (double)((const T*)a.gout)[r];
		double mu = (double)((const T*)a.mu)[r * a.rs_mu], sigma = (double)((const T*)a.sigma)[r * a.rs_sigma];
		if (g == 0 || !normal_support(mu, sigma) || (!a.gmu && !a.gsigma)) continue;
		double sz = 0, szz = 0;
		for (int b = 0; b < a.blocks; b++) {
			sz += a.partial[2 * (r * a.blocks + b)];
			szz += a.partial[2 * (r * a.blocks + b) + 1];
		}
		double inv = 1 / sigma;
		if (a.gmu) ((T*)a.gmu)[r * a.rs_mu] += (T)(g * inv * sz);
		if (a.gsigma) ((T*)a.gsigma)[r * a.rs_sigma] += (T)(g * inv * (szz - (double)a.n));
	}
}

// ---------------------------------------------------------------------------
// Filling: the seed of a backward pass (1 per replica) and constants.


template <typename T> __device__ void fill(const FillArgs& a) {
	for (i64 t = thread_index(); t < a.n; t += thread_count()) ((T*)a.p)[t] = (T)a.v;
}

// ---------------------------------------------------------------------------
// The samplers' moves fused with their noise: Langevin's (seed 000's SGLD)
//
//	θ ← θ − η·∇Ũ + √(2ηT)·ξ
//
// and, with a momentum buffer, SGHMC's (Chen, Fox & Guestrin 2014, Eq. 15
// with β̂ = 0; infer.Hamiltonian)
//
//	v ← (1 − α)·v − η·∇Ũ + √(2αηT)·ξ,  θ ← θ + v,
//
// both in the coordinates φ = (θ − c)/s of a diagonal metric when scale
// holds s (infer.Metric): ∇_φ = s⊙∇_θ and θ moves by s⊙Δφ, so the host's
// state, in φ, and the device's, in θ, take the same chain. The momentum
// is kept in φ, as the host keeps it. A replica whose step is 0 (a stopped
// chain) stays put, momentum included.
//
// The noise is Philox4x32-10 (Salmon et al. 2011), a counter-based
// generator: counter (coordinate, replica, step), key the seed, so each
// number depends only on where and when it is used and a run's noise is
// reproducible whatever the launch shape. One thread makes four
// coordinates from one Philox block through two Box-Muller pairs.

__device__ __forceinline__ void philox4x32(unsigned c[4], unsigned k0, unsigned k1) {
	for (int i = 0; i < 10; i++) {
		unsigned lo0 = 0xD2511F53u * c[0], hi0 = __umulhi(0xD2511F53u, c[0]);
		unsigned lo1 = 0xCD9E8D57u * c[2], hi1 = __umulhi(0xCD9E8D57u, c[2]);
		unsigned n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
		c[0] = n0;
		c[1] = lo1;
		c[2] = n2;
		c[3] = lo0;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
}

template <typename T> __device__ void move(const MoveArgs& a) {
	i64 groups = (a.n + 3) / 4;
	for (i64 t = thread_index(); t < groups * a.replicas; t += thread_count()) {
		i64 r = t / groups, first = (t - r * groups) * 4;
		double lr = a.lr[r];
		if (!(lr > 0)) continue;
		double noise = sqrt(2 * lr * a.temp[r] * (a.momentum ? a.friction : 1.0));
		T* theta = (T*)a.theta + r * a.n;
		const T* grad = (const T*)a.grad + r * a.n;
		T* mom = a.momentum ? (T*)a.momentum + r * a.n : 0;
		double z[4] = {0, 0, 0, 0};
		if (noise > 0) {
			u64 coord = (u64)(a.offset + first);
			unsigned c[4] = {(unsigned)coord, (unsigned)(coord >> 32), (unsigned)r, (unsigned)a.step};
			philox4x32(c, (unsigned)a.seed, (unsigned)(a.seed >> 32));
			for (int j = 0; j < 4; j += 2) {
				double u1 = ((double)c[j] + 0.5) * 0x1p-32, u2 = ((double)c[j + 1] + 0.5) * 0x1p-32;
				double rad = sqrt(-2 * log(u1)), ang = 6.283185307179586476925 * u2;
				z[j] = rad * cos(ang);
				z[j + 1] = rad * sin(ang);
			}
		}
		for (int j = 0; j < 4 && first + j < a.n; j++) {
			i64 i = first + j;
			double s = a.scale ? a.scale[i] : 1.0;
			double u = -lr * s * (double)grad[i] + noise * z[j];
			if (mom) {
				u += (1 - a.friction) * (double)mom[i];
				mom[i] = (T)u;
			}
			theta[i] = (T)((double)theta[i] + s * u);
		}
	}
}

// ---------------------------------------------------------------------------

#ifndef INSTANTIATE  // the CPU emulator (emulator/emulator.cpp) has its own
#define INSTANTIATE(name, Args)                                                   \
	extern "C" __global__ void name##_f32(const Args a) { name<float>(a); }  \
	extern "C" __global__ void name##_f64(const Args a) { name<double>(a); }
#endif

INSTANTIATE(ew_forward, EwArgs)
INSTANTIATE(ew_backward, EwArgs)
INSTANTIATE(dot_forward, EwArgs)
INSTANTIATE(dot_backward, EwArgs)
INSTANTIATE(reduce_forward, ReduceArgs)
INSTANTIATE(reduce_backward, ReduceArgs)
INSTANTIATE(rows_forward, RowsArgs)
INSTANTIATE(rows_backward, RowsArgs)
INSTANTIATE(categorical_forward, CategoricalArgs)
INSTANTIATE(categorical_backward, CategoricalArgs)
INSTANTIATE(normal_sum_forward, NormalSumArgs)
INSTANTIATE(normal_sum_backward, NormalSumArgs)
INSTANTIATE(normal_sum_forward_finish, NormalSumArgs)
INSTANTIATE(normal_sum_backward_finish, NormalSumArgs)
INSTANTIATE(fill, FillArgs)
INSTANTIATE(move, MoveArgs)

// The kernels of the other op families, each file with its INSTANTIATE
// lines (the file list is Sources in gen.go, whose hash kernels.ptx
// carries).
#include "shapes.cuh"
#include "layers.cuh"
#include "recurrent.cuh"
