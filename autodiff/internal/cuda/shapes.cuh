// autodiff's shape ops and softmax on the device (transpose, concat,
// slice, softmax): included at the end of kernels.cu, after INSTANTIATE.
// Each kernel follows kernels.cu's rules: templated on T, arithmetic in
// double, grid-stride loops correct for any launch shape (the CPU
// emulator runs every launch as one thread).

// ---------------------------------------------------------------------------
// softmax and log_softmax along one axis of [outer, n, inner] (autodiff's
// softmaxOp): one block per row of n, its threads striding over the row,
// the max and the sum combined in shared memory (block_max, block_sum);
// each element has one writer, the thread of its position.

template <typename T> __device__ void softmax_forward(const SoftmaxArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	i64 per = a.outer * a.inner;
	for (i64 o = blockIdx.x; o < a.rows; o += gridDim.x) {
		i64 r = o / per, q = o - r * per, oo = q / a.inner, ii = q - oo * a.inner;
		i64 base = oo * a.n * a.inner + ii;
		const T* x = (const T*)a.in + r * a.rs_in + base;
		T* y = (T*)a.out + r * a.rs_out + base;
		double m = -INFINITY;
		for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) m = fmax(m, (double)x[j * a.inner]);
		m = block_max(m, sh);
		double ls = 0;  // as the CPU's shiftedLogSum: 0 where m is ±∞
		if (!isinf(m)) {  // m is the block's: every thread takes one branch
			double s = 0;
			for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) s += exp((double)x[j * a.inner] - m);
			ls = log(block_sum(s, sh));
		}
		for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) {
			double v = ((double)x[j * a.inner] - m) - ls;
			y[j * a.inner] = (T)(a.kind ? v : exp(v));
		}
	}
}

// softmax_backward: softmax ∂x_j += y_j (g_j - Σ g·y); log_softmax
// ∂x_j += g_j - e^{y_j} Σ g.
template <typename T> __device__ void softmax_backward(const SoftmaxArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	if (!a.gin) return;
	i64 per = a.outer * a.inner;
	for (i64 o = blockIdx.x; o < a.rows; o += gridDim.x) {
		i64 r = o / per, q = o - r * per, oo = q / a.inner, ii = q - oo * a.inner;
		i64 base = oo * a.n * a.inner + ii;
		const T* y = (const T*)a.out + r * a.rs_out + base;
		const T* g = (const T*)a.gout + r * a.rs_out + base;
		T* gx = (T*)a.gin + r * a.rs_in + base;
		double s = 0;
		for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) {
			double gj = (double)g[j * a.inner];
			s += a.kind ? gj : gj * (double)y[j * a.inner];
		}
		s = block_sum(s, sh);
		for (i64 j = threadIdx.x; j < a.n; j += blockDim.x) {
			double gj = (double)g[j * a.inner], yj = (double)y[j * a.inner];
			gx[j * a.inner] += (T)(a.kind ? gj - exp(yj) * s : yj * (gj - s));
		}
	}
}

// ---------------------------------------------------------------------------
// transpose: result element j of replica r reads the operand at Σ_d c_d·
// strides[d], c its coordinates in the result's dims (axes merged where
// they stay contiguous). A permutation: each operand element has one
// result element, so the backward pass adds without atomics.

__device__ __forceinline__ i64 transpose_offset(const TransposeArgs& a, i64 j) {
	i64 off = 0;
	for (int d = a.rank - 1; d >= 0; d--) {
		i64 c = j % a.dims[d];
		j /= a.dims[d];
		off += c * a.strides[d];
	}
	return off;
}

template <typename T> __device__ void transpose_forward(const TransposeArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, j = t - r * a.n;
		((T*)a.out)[r * a.rs_out + j] = ((const T*)a.in)[r * a.rs_in + transpose_offset(a, j)];
	}
}

template <typename T> __device__ void transpose_backward(const TransposeArgs& a) {
	if (!a.gin) return;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, j = t - r * a.n;
		((T*)a.gin)[r * a.rs_in + transpose_offset(a, j)] += ((const T*)a.gout)[r * a.rs_out + j];
	}
}

// ---------------------------------------------------------------------------
// block_copy: outer rows of width elements, from offset in_off of rows of
// in_row elements to offset out_off of rows of out_row (slice: one launch;
// concat: one launch per operand, into its columns of the result).
// Backward adds the result's gradient back; each operand element has one
// writer.

template <typename T> __device__ void block_copy_forward(const BlockCopyArgs& a) {
	i64 per = a.outer * a.width;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, o = e / a.width, j = e - o * a.width;
		((T*)a.out)[r * a.rs_out + o * a.out_row + a.out_off + j] =
		    ((const T*)a.in)[r * a.rs_in + o * a.in_row + a.in_off + j];
	}
}

template <typename T> __device__ void block_copy_backward(const BlockCopyArgs& a) {
	if (!a.gin) return;
	i64 per = a.outer * a.width;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, o = e / a.width, j = e - o * a.width;
		((T*)a.gin)[r * a.rs_in + o * a.in_row + a.in_off + j] +=
		    ((const T*)a.gout)[r * a.rs_out + o * a.out_row + a.out_off + j];
	}
}

INSTANTIATE(softmax_forward, SoftmaxArgs)
INSTANTIATE(softmax_backward, SoftmaxArgs)
INSTANTIATE(transpose_forward, TransposeArgs)
INSTANTIATE(transpose_backward, TransposeArgs)
INSTANTIATE(block_copy_forward, BlockCopyArgs)
INSTANTIATE(block_copy_backward, BlockCopyArgs)

// ---------------------------------------------------------------------------
// stdlib's densities of vectors along the last axis (dirichlet,
// multi_normal_diag, multi_normal_cholesky) and the simplex transform:
// one thread per result row. An operand reached through an index table
// (broadcast: several rows may read one) takes its gradient by atomic
// adds; so does a Cholesky factor, which every row shares.

template <typename T> __device__ __forceinline__ const T* vec_row(const VecArgs& a, int i, i64 r, i64 b, i64 len) {
	return (const T*)a.in[i] + r * a.rs[i] + (i64)(a.at[i] ? a.at[i][b] : b) * len;
}

// vec_add adds v to element j of operand i's gradient row for result row b.
template <typename T> __device__ __forceinline__ void vec_add(const VecArgs& a, int i, i64 r, i64 b, i64 len, i64 j, double v) {
	T* p = (T*)a.gin[i] + r * a.rs[i] + (i64)(a.at[i] ? a.at[i][b] : b) * len + j;
	if (a.at[i]) atomic_add(p, v);
	else *p += (T)v;
}

// dirichlet: theta (operand 0) and alpha (1), rows of k.
template <typename T> __device__ void dirichlet_forward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* theta = vec_row<T>(a, 0, r, b, a.k);
		const T* alpha = vec_row<T>(a, 1, r, b, a.k);
		double s = 0, tol = sizeof(T) == 4 ? (a.k + 1) * 0x1p-24 : 1e-8;
		bool ok = true;
		for (int j = 0; j < a.k; j++) {
			double p = (double)theta[j];
			ok = ok && p >= 0 && p <= 1;
			s += p;
		}
		ok = ok && fabs(s - 1) <= tol;
		double sum = 0, lp = 0;
		for (int j = 0; ok && j < a.k; j++) {
			double al = (double)alpha[j], th = (double)theta[j];
			if (!(al > 0) || isinf(al) || !(th > 0)) {
				ok = false;
				break;
			}
			sum += al;
			lp += (al - 1) * log(th) - sf_lgamma(al);
		}
		((T*)a.out)[r * a.rs_out + b] = (T)(ok ? lp + sf_lgamma(sum) : -INFINITY);
	}
}

// dirichlet_backward: ∂/∂θ_j = (α_j - 1)/θ_j, ∂/∂α_j = ψ(Σα) - ψ(α_j) + log θ_j.
template <typename T> __device__ void dirichlet_backward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double g = (double)((const T*)a.gout)[r * a.rs_out + b];
		double out = (double)((const T*)a.out)[r * a.rs_out + b];
		if (g == 0 || (isinf(out) && out < 0)) continue;
		const T* theta = vec_row<T>(a, 0, r, b, a.k);
		const T* alpha = vec_row<T>(a, 1, r, b, a.k);
		if (a.gin[0])
			for (int j = 0; j < a.k; j++) vec_add<T>(a, 0, r, b, a.k, j, g * ((double)alpha[j] - 1) / (double)theta[j]);
		if (!a.gin[1]) continue;
		double sum = 0;
		for (int j = 0; j < a.k; j++) sum += (double)alpha[j];
		double psi = sf_digamma(sum);
		for (int j = 0; j < a.k; j++)
			vec_add<T>(a, 1, r, b, a.k, j, g * (psi - sf_digamma((double)alpha[j]) + log((double)theta[j])));
	}
}

// multi_normal_diag: y, mu, sigma (operands 0-2) broadcast to rows of k;
// a.at[i] maps each element of the broadcast (not each row) to operand
// i's element.
__device__ __forceinline__ i64 diag_at(const VecArgs& a, int i, i64 e) { return a.at[i] ? a.at[i][e] : e; }

template <typename T> __device__ void mvn_diag_forward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double lp = 0;
		for (i64 e = b * a.k; e < (b + 1) * a.k; e++) {
			double y = (double)((const T*)a.in[0])[r * a.rs[0] + diag_at(a, 0, e)];
			double m = (double)((const T*)a.in[1])[r * a.rs[1] + diag_at(a, 1, e)];
			double s = (double)((const T*)a.in[2])[r * a.rs[2] + diag_at(a, 2, e)];
			if (!(s > 0) || isinf(s) || isinf(y) || isinf(m)) {
				lp = -INFINITY;
				break;
			}
			double z = (y - m) / s;
			lp += -0.5 * z * z - log(s) - LN_SQRT_2PI;
		}
		((T*)a.out)[r * a.rs_out + b] = (T)lp;
	}
}

template <typename T> __device__ void mvn_diag_backward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double g = (double)((const T*)a.gout)[r * a.rs_out + b];
		double out = (double)((const T*)a.out)[r * a.rs_out + b];
		if (g == 0 || (isinf(out) && out < 0)) continue;
		for (i64 e = b * a.k; e < (b + 1) * a.k; e++) {
			i64 at[3];
			for (int i = 0; i < 3; i++) at[i] = r * a.rs[i] + diag_at(a, i, e);
			double y = (double)((const T*)a.in[0])[at[0]], m = (double)((const T*)a.in[1])[at[1]];
			double s = (double)((const T*)a.in[2])[at[2]], z = (y - m) / s;
			double d[3] = {-z / s, z / s, (z * z - 1) / s};
			for (int i = 0; i < 3; i++) {
				T* gi = (T*)a.gin[i];
				if (!gi) continue;
				if (a.at[i]) atomic_add(gi + at[i], g * d[i]);
				else gi[at[i]] += (T)(g * d[i]);
			}
		}
	}
}

// multi_normal_cholesky: y, mu (rows of k) and L (k × k, operand 2, read
// whole by every row). a.scratch holds 2k doubles per row: z = L⁻¹(y - μ)
// and w = L⁻ᵀz.
template <typename T> __device__ bool mvn_cholesky_solve(const VecArgs& a, i64 t, i64 r, i64 b, double* c) {
	const T* l = (const T*)a.in[2] + r * a.rs[2];
	int k = a.k;
	double ld = 0;
	for (int i = 0; i < k; i++) {
		for (int j = 0; j <= i; j++)
			if (isinf((double)l[i * k + j])) return false;
		double d = (double)l[i * k + i];
		if (!(d > 0)) return false;
		ld += log(d);
	}
	*c = -(double)k * LN_SQRT_2PI - ld;
	const T* y = vec_row<T>(a, 0, r, b, k);
	const T* mu = vec_row<T>(a, 1, r, b, k);
	double* z = a.scratch + t * 2 * k;
	for (int i = 0; i < k; i++) {
		double s = (double)y[i] - (double)mu[i];
		for (int j = 0; j < i; j++) s -= (double)l[i * k + j] * z[j];
		z[i] = s / (double)l[i * k + i];
	}
	return true;
}

template <typename T> __device__ void mvn_cholesky_forward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double c, lp = -INFINITY;
		if (mvn_cholesky_solve<T>(a, t, r, b, &c)) {
			const double* z = a.scratch + t * 2 * a.k;
			double q = 0;
			for (int i = 0; i < a.k; i++) q += z[i] * z[i];
			lp = c - 0.5 * q;
			if (lp != lp) lp = -INFINITY;
		}
		((T*)a.out)[r * a.rs_out + b] = (T)lp;
	}
}

// mvn_cholesky_backward: ∂/∂y = -w, ∂/∂μ = w, ∂/∂L = tril(w zᵀ) - diag(1/L_ii).
template <typename T> __device__ void mvn_cholesky_backward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double g = (double)((const T*)a.gout)[r * a.rs_out + b];
		double out = (double)((const T*)a.out)[r * a.rs_out + b];
		double c;
		if (g == 0 || (isinf(out) && out < 0) || !mvn_cholesky_solve<T>(a, t, r, b, &c)) continue;
		int k = a.k;
		const T* l = (const T*)a.in[2] + r * a.rs[2];
		double *z = a.scratch + t * 2 * k, *w = z + k;
		for (int i = k - 1; i >= 0; i--) {
			double s = z[i];
			for (int j = i + 1; j < k; j++) s -= (double)l[j * k + i] * w[j];
			w[i] = s / (double)l[i * k + i];
		}
		for (int i = 0; i < k; i++) {
			if (a.gin[0]) vec_add<T>(a, 0, r, b, k, i, -g * w[i]);
			if (a.gin[1]) vec_add<T>(a, 1, r, b, k, i, g * w[i]);
		}
		if (!a.gin[2]) continue;
		T* gl = (T*)a.gin[2] + r * a.rs[2];
		for (int i = 0; i < k; i++) {
			double gw = g * w[i];
			for (int j = 0; j < i; j++) atomic_add(gl + i * k + j, gw * z[j]);
			atomic_add(gl + i * k + i, gw * z[i] - g / (double)l[i * k + i]);
		}
	}
}

// simplex (kind 0: the value, rows of k; kind 1: the log-Jacobian, one
// per row) from u (operand 0, rows of k - 1) by stick-breaking (stdlib's
// simplexTransform). The backward pass keeps each row's rest_j in
// a.scratch (k doubles per row).
__device__ __forceinline__ double simplex_stick(double u, int j, int km1) { return sf_sigmoid(u - log((double)(km1 - j))); }

template <typename T> __device__ void simplex_forward(const VecArgs& a) {
	int km1 = a.k - 1;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* u = (const T*)a.in[0] + r * a.rs[0] + b * km1;
		double rest = 1, lj = 0;
		if (a.kind == 0) {
			T* x = (T*)a.out + r * a.rs_out + b * a.k;
			for (int j = 0; j < km1; j++) {
				double z = simplex_stick((double)u[j], j, km1);
				x[j] = (T)(rest * z);
				rest -= rest * z;
			}
			x[km1] = (T)rest;
			continue;
		}
		for (int j = 0; j < km1; j++) {
			double z = simplex_stick((double)u[j], j, km1);
			lj += log(z) + log1p(-z) + log(rest);
			rest -= rest * z;
		}
		((T*)a.out)[r * a.rs_out + b] = (T)lj;
	}
}

template <typename T> __device__ void simplex_backward(const VecArgs& a) {
	if (!a.gin[0]) return;
	int km1 = a.k - 1;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* u = (const T*)a.in[0] + r * a.rs[0] + b * km1;
		T* gu = (T*)a.gin[0] + r * a.rs[0] + b * km1;
		double* rests = a.scratch + t * a.k;
		double cur = 1;
		for (int j = 0; j < km1; j++) {
			rests[j] = cur;
			cur -= cur * simplex_stick((double)u[j], j, km1);
		}
		const T* gx = (const T*)a.gout + r * a.rs_out + (a.kind == 0 ? b * a.k : b);
		double g = (double)gx[0], restBar = a.kind == 0 ? (double)gx[km1] : 0;
		for (int j = km1 - 1; j >= 0; j--) {
			double z = simplex_stick((double)u[j], j, km1), rest = rests[j], dz, drest;
			if (a.kind == 0) {
				dz = (double)gx[j] * rest;
				drest = (double)gx[j] * z;
			} else {
				dz = g * (1 / z - 1 / (1 - z));
				drest = g / rest;
			}
			double zBar = dz - restBar * rest;
			restBar = drest + restBar * (1 - z);
			gu[j] += (T)(zBar * z * (1 - z));
		}
	}
}

INSTANTIATE(dirichlet_forward, VecArgs)
INSTANTIATE(dirichlet_backward, VecArgs)
INSTANTIATE(mvn_diag_forward, VecArgs)
INSTANTIATE(mvn_diag_backward, VecArgs)
INSTANTIATE(mvn_cholesky_forward, VecArgs)
INSTANTIATE(mvn_cholesky_backward, VecArgs)
INSTANTIATE(simplex_forward, VecArgs)
INSTANTIATE(simplex_backward, VecArgs)

// corr_cholesky (kind 0: the value, k × k per row; kind 1: the
// log-Jacobian) from u (operand 0, rows of k(k-1)/2, the strictly lower
// triangle row-major) by stdlib's choleskyCorrTransform: L_ij =
// tanh(u_ij)·e^{-a_ij}, a_ij = Σ_{j'<j} log cosh u_ij', L_ii = e^{-a_ii}.
// The backward pass keeps a row's a_ij in a.scratch (k doubles per row).
__device__ __forceinline__ double log_cosh(double u) {
	double a = fabs(u);
	return a + log1p(exp(-2 * a)) - 0.69314718055994530942;
}

__device__ __forceinline__ i64 strict_index(int i, int j) { return (i64)i * (i - 1) / 2 + j; }

template <typename T> __device__ void corr_cholesky_forward(const VecArgs& a) {
	int k = a.k;
	i64 free = (i64)k * (k - 1) / 2;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* u = (const T*)a.in[0] + r * a.rs[0] + b * free;
		if (a.kind == 1) {
			double s = 0;
			for (int i = 1; i < k; i++)
				for (int j = 0; j < i; j++) s -= (double)(i - j + 1) * log_cosh((double)u[strict_index(i, j)]);
			((T*)a.out)[r * a.rs_out + b] = (T)s;
			continue;
		}
		T* x = (T*)a.out + r * a.rs_out + b * k * k;
		for (int i = 0; i < k; i++) {
			double acc = 0;
			for (int j = 0; j < i; j++) {
				double v = (double)u[strict_index(i, j)];
				x[i * k + j] = (T)(tanh(v) * exp(-acc));
				acc += log_cosh(v);
			}
			x[i * k + i] = (T)exp(-acc);
			for (int j = i + 1; j < k; j++) x[i * k + j] = 0;
		}
	}
}

template <typename T> __device__ void corr_cholesky_backward(const VecArgs& a) {
	if (!a.gin[0]) return;
	int k = a.k;
	i64 free = (i64)k * (k - 1) / 2;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		const T* u = (const T*)a.in[0] + r * a.rs[0] + b * free;
		T* gu = (T*)a.gin[0] + r * a.rs[0] + b * free;
		if (a.kind == 1) {
			double g = (double)((const T*)a.gout)[r * a.rs_out + b];
			for (int i = 1; i < k; i++)
				for (int j = 0; j < i; j++) {
					i64 p = strict_index(i, j);
					gu[p] += (T)(-g * (double)(i - j + 1) * tanh((double)u[p]));
				}
			continue;
		}
		const T* x = (const T*)a.out + r * a.rs_out + b * k * k;
		const T* gx = (const T*)a.gout + r * a.rs_out + b * k * k;
		double* acc = a.scratch + t * k;
		for (int i = 1; i < k; i++) {
			acc[0] = 0;
			for (int j = 1; j < i; j++) acc[j] = acc[j - 1] + log_cosh((double)u[strict_index(i, j - 1)]);
			double tail = (double)gx[i * k + i] * (double)x[i * k + i];
			for (int j = i - 1; j >= 0; j--) {
				i64 p = strict_index(i, j);
				double th = tanh((double)u[p]);
				gu[p] += (T)((double)gx[i * k + j] * (1 - th * th) * exp(-acc[j]) - th * tail);
				tail += (double)gx[i * k + j] * (double)x[i * k + j];
			}
		}
	}
}

// lkj_corr_cholesky: L (operand 0, k × k matrices) and eta (operand 1,
// one per matrix), stdlib's lkjOp.
template <typename T> __device__ bool lkj_terms(const VecArgs& a, i64 r, i64 b, double* weighted, double* plain, double* eta) {
	int k = a.k;
	*eta = (double)((const T*)a.in[1])[r * a.rs[1] + (a.at[1] ? a.at[1][b] : b)];
	if (!(*eta > 0) || isinf(*eta)) return false;
	const T* l = vec_row<T>(a, 0, r, b, (i64)k * k);
	*weighted = 0;
	*plain = 0;
	for (int i = 0; i < k; i++) {
		for (int j = 0; j <= i; j++) {
			double v = (double)l[i * k + j];
			if (isinf(v) || v != v) return false;
		}
		double d = (double)l[i * k + i];
		if (!(d > 0)) return false;
		if (i > 0) {
			double ld = log(d);
			*weighted += ((double)(k - i - 3) + 2 * *eta) * ld;
			*plain += ld;
		}
	}
	return true;
}

template <typename T> __device__ void lkj_forward(const VecArgs& a) {
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double w, pl, eta, v = -INFINITY;
		if (lkj_terms<T>(a, r, b, &w, &pl, &eta)) {
			double logc = 0;
			for (int i = 1; i < a.k; i++) {
				double fi = i, bb = eta + (double)(i - 1) / 2;
				logc += fi * ((2 * eta - 2 + fi) * 0.69314718055994530942 + 2 * sf_lgamma(bb) - sf_lgamma(2 * bb));
			}
			v = w - logc;
		}
		((T*)a.out)[r * a.rs_out + b] = (T)v;
	}
}

// lkj_backward: ∂/∂L_ii = (k - i - 3 + 2η)/L_ii (0-based i ≥ 1), ∂/∂η =
// 2 Σ_{i≥1} log L_ii - ∂ log C/∂η.
template <typename T> __device__ void lkj_backward(const VecArgs& a) {
	int k = a.k;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / a.n, b = t - r * a.n;
		double g = (double)((const T*)a.gout)[r * a.rs_out + b];
		double out = (double)((const T*)a.out)[r * a.rs_out + b];
		double w, pl, eta;
		if (g == 0 || (isinf(out) && out < 0) || !lkj_terms<T>(a, r, b, &w, &pl, &eta)) continue;
		if (a.gin[0]) {
			const T* l = vec_row<T>(a, 0, r, b, (i64)k * k);
			for (int i = 1; i < k; i++)
				vec_add<T>(a, 0, r, b, (i64)k * k, i * k + i, g * ((double)(k - i - 3) + 2 * eta) / (double)l[i * k + i]);
		}
		if (a.gin[1]) {
			double de = 0;
			for (int i = 1; i < k; i++) {
				double fi = i, bb = eta + (double)(i - 1) / 2;
				de += fi * (2 * 0.69314718055994530942 + 2 * sf_digamma(bb) - 2 * sf_digamma(2 * bb));
			}
			vec_add<T>(a, 1, r, b, 1, 0, g * (2 * pl - de));
		}
	}
}

INSTANTIATE(corr_cholesky_forward, VecArgs)
INSTANTIATE(corr_cholesky_backward, VecArgs)
INSTANTIATE(lkj_forward, VecArgs)
INSTANTIATE(lkj_backward, VecArgs)
