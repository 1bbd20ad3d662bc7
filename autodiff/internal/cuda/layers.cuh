// The layers of stdlib (conv.go, norm.go) on the device: included at the
// end of kernels.cu, after INSTANTIATE. Each kernel follows kernels.cu's
// rules: templated on T, arithmetic in double, grid-stride loops correct
// for any launch shape (the CPU emulator runs every launch as one thread).

// ---------------------------------------------------------------------------
// conv2d (stdlib's conv2dOp) by im2col and cuBLAS: images [B, H, W, C]
// channels last, filters [KH, KW, C, F], a result row of F per output pixel.
// The lowering runs conv_im2col into a scratch matrix [B·OH·OW, KH·KW·C]
// (per replica of x), conv_bias to set the result to the bias, and a batched
// GEMM adding the columns times the filters. Backward, ∂W += colsᵀ·∂out and
// ∂cols = ∂out·Wᵀ are GEMMs; conv_col2im gathers ∂cols back to ∂x, one
// thread per element of x, and conv_bias_backward sums ∂out's rows into ∂b.

__device__ __forceinline__ i64 conv_rows(const ConvArgs& a) { return a.batch * a.oh * a.ow; }
__device__ __forceinline__ i64 conv_patch(const ConvArgs& a) { return (i64)a.kh * a.kw * a.channels; }

// conv_im2col: one thread per element of cols, a.total = reps of x × rows ×
// patch; element (row, (ky, kx, c)) is the pixel the window of output pixel
// row reads at tap (ky, kx), channel c, or 0 in the padding.
template <typename T> __device__ void conv_im2col(const ConvArgs& a) {
	i64 k = conv_patch(a), per = conv_rows(a) * k, pix = (i64)a.oh * a.ow;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, row = e / k, q = e - row * k;
		i64 i = row / pix, p = row - i * pix, oy = p / a.ow, ox = p - oy * a.ow;
		i64 ky = q / ((i64)a.kw * a.channels), rem = q - ky * a.kw * a.channels, kx = rem / a.channels,
		    ch = rem - kx * a.channels;
		i64 iy = oy * a.stride - a.padding + ky, ix = ox * a.stride - a.padding + kx;
		T v = 0;
		if (iy >= 0 && iy < a.height && ix >= 0 && ix < a.width)
			v = ((const T*)a.x)[r * a.rs_x + ((i * a.height + iy) * a.width + ix) * a.channels + ch];
		((T*)a.cols)[t] = v;
	}
}

// conv_bias sets every row of the result to the bias: a.total = reps of the
// result × rows × F.
template <typename T> __device__ void conv_bias(const ConvArgs& a) {
	i64 per = conv_rows(a) * a.filters;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, f = (t - r * per) % a.filters;
		((T*)a.out)[t] = ((const T*)a.b)[r * a.rs_b + f];
	}
}

// conv_col2im adds to each element of ∂x (a.total = reps × B·H·W·C) the
// entries of ∂cols copied from it: the taps (ky, kx) and output pixels
// (oy, ox) with oy·s − p + ky = iy and ox·s − p + kx = ix. One writer per
// element, no atomics.
template <typename T> __device__ void conv_col2im(const ConvArgs& a) {
	i64 k = conv_patch(a), img = (i64)a.height * a.width * a.channels, per = a.batch * img;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, i = e / img, q = e - i * img;
		i64 iy = q / ((i64)a.width * a.channels), rem = q - iy * a.width * a.channels, ix = rem / a.channels,
		    ch = rem - ix * a.channels;
		const T* cols = (const T*)a.cols + r * a.rs_cols;
		double s = 0;
		for (int ky = 0; ky < a.kh; ky++) {
			i64 dy = iy + a.padding - ky;
			if (dy < 0 || dy % a.stride != 0 || dy / a.stride >= a.oh) continue;
			i64 oy = dy / a.stride;
			for (int kx = 0; kx < a.kw; kx++) {
				i64 dx = ix + a.padding - kx;
				if (dx < 0 || dx % a.stride != 0 || dx / a.stride >= a.ow) continue;
				i64 row = (i * a.oh + oy) * a.ow + dx / a.stride;
				s += (double)cols[row * k + ((i64)ky * a.kw + kx) * a.channels + ch];
			}
		}
		((T*)a.gx)[r * a.rs_x + e] += (T)s;
	}
}

// conv_bias_backward: one block per (replica, filter), ∂b += the sum of
// ∂out's column over the rows.
template <typename T> __device__ void conv_bias_backward(const ConvArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	i64 rows = conv_rows(a);
	for (i64 o = blockIdx.x; o < a.total; o += gridDim.x) {
		i64 r = o / a.filters, f = o - r * a.filters;
		const T* g = (const T*)a.gout + r * a.rs_out + f;
		double s = 0;
		for (i64 j = threadIdx.x; j < rows; j += blockDim.x) s += (double)g[j * a.filters];
		s = block_sum(s, sh);
		if (threadIdx.x == 0) ((T*)a.gb)[r * a.rs_b + f] += (T)s;
	}
}

// ---------------------------------------------------------------------------
// max_pool2d and avg_pool2d (stdlib's poolOp): window × window windows
// stride apart, no padding, channel by channel. A replicated result has a
// replicated operand, so both are indexed by the replica's tensor size.

// go_max is Go's max of two floats, as the CPU's forward pass takes it: NaN
// if either is, +0 over −0.
template <typename T> __device__ __forceinline__ T go_max(T x, T y) {
	if (x != x) return x;
	if (y != y) return y;
	if (x == y) return x == 0 ? x + y : x;  // −0 + +0 is +0
	return x > y ? x : y;
}

// pool_forward: one thread per result element (a.total = reps × B·OH·OW·C).
template <typename T> __device__ void pool_forward(const PoolArgs& a) {
	i64 c = a.channels, per = a.batch * a.oh * a.ow * c, img = (i64)a.height * a.width * c;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, ch = e % c, o = e / c, pix = (i64)a.oh * a.ow;
		i64 i = o / pix, p = o - i * pix, oy = p / a.ow, ox = p - oy * a.ow;
		const T* x = (const T*)a.in + r * (a.batch * img) + i * img + ((oy * a.stride) * a.width + ox * a.stride) * c + ch;
		T m = x[0];
		double s = 0;
		for (int ky = 0; ky < a.window; ky++)
			for (int kx = 0; kx < a.window; kx++) {
				T v = x[((i64)ky * a.width + kx) * c];
				if (a.is_max) m = go_max(m, v);
				else s += (double)v;
			}
		((T*)a.out)[t] = a.is_max ? m : (T)(s / ((double)a.window * a.window));
	}
}

// max_pool_backward: one thread per result element; the gradient goes to
// the first element of the window (in the forward pass's order, row by
// row) equal to the maximum, as the CPU's. Windows overlap when the stride
// is below the window, and then the adds are atomic.
template <typename T> __device__ void max_pool_backward(const PoolArgs& a) {
	i64 c = a.channels, per = a.batch * a.oh * a.ow * c, img = (i64)a.height * a.width * c;
	bool overlap = a.stride < a.window;
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, ch = e % c, o = e / c, pix = (i64)a.oh * a.ow;
		i64 i = o / pix, p = o - i * pix, oy = p / a.ow, ox = p - oy * a.ow;
		i64 base = r * (a.batch * img) + i * img + ((oy * a.stride) * a.width + ox * a.stride) * c + ch;
		T y = ((const T*)a.out)[t], g = ((const T*)a.gout)[t];
		bool done = false;
		for (int ky = 0; ky < a.window && !done; ky++)
			for (int kx = 0; kx < a.window && !done; kx++) {
				i64 at = base + ((i64)ky * a.width + kx) * c;
				if (((const T*)a.in)[at] == y) {
					if (overlap) atomic_add((T*)a.gin + at, (double)g);
					else ((T*)a.gin)[at] += g;
					done = true;
				}
			}
	}
}

// avg_pool_backward: one thread per element of ∂x (a.total = reps ×
// B·H·W·C), adding ∂out/window² of every window that covers it.
template <typename T> __device__ void avg_pool_backward(const PoolArgs& a) {
	i64 c = a.channels, img = (i64)a.height * a.width * c, per = a.batch * img;
	double scale = 1 / ((double)a.window * a.window);
	for (i64 t = thread_index(); t < a.total; t += thread_count()) {
		i64 r = t / per, e = t - r * per, i = e / img, q = e - i * img;
		i64 iy = q / ((i64)a.width * c), rem = q - iy * a.width * c, ix = rem / c, ch = rem - ix * c;
		const T* g = (const T*)a.gout + r * (a.batch * a.oh * a.ow * c) + i * ((i64)a.oh * a.ow * c) + ch;
		// the windows oy with oy·s ≤ iy < oy·s + window, and so along x
		i64 oy0 = iy < a.window ? 0 : (iy - a.window) / a.stride + 1, oy1 = iy / a.stride;
		i64 ox0 = ix < a.window ? 0 : (ix - a.window) / a.stride + 1, ox1 = ix / a.stride;
		if (oy1 >= a.oh) oy1 = a.oh - 1;
		if (ox1 >= a.ow) ox1 = a.ow - 1;
		double s = 0;
		for (i64 oy = oy0; oy <= oy1; oy++)
			for (i64 ox = ox0; ox <= ox1; ox++) s += (double)g[(oy * a.ow + ox) * c];
		((T*)a.gin)[t] += (T)(s * scale);
	}
}

// ---------------------------------------------------------------------------
// layer_norm (stdlib's layerNormOp) over rows of d: one block per row,
// moments in double by two passes as the CPU's. ε is stdlib's layerNormEps.

#define LAYER_NORM_EPS 1e-5

// layer_norm_moments sets the mean and 1/√(σ² + ε) of a row of d values.
template <typename T>
__device__ void layer_norm_moments(const T* x, i64 d, double* sh, double* mean, double* inv) {
	double s = 0;
	for (i64 j = threadIdx.x; j < d; j += blockDim.x) s += (double)x[j];
	double m = block_sum(s, sh) / (double)d;
	double ss = 0;
	for (i64 j = threadIdx.x; j < d; j += blockDim.x) {
		double v = (double)x[j] - m;
		ss += v * v;
	}
	ss = block_sum(ss, sh);
	*mean = m;
	*inv = 1 / sqrt(ss / (double)d + LAYER_NORM_EPS);
}

template <typename T> __device__ void layer_norm_forward(const LayerNormArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < a.replicas * a.rows; o += gridDim.x) {
		i64 r = o / a.rows, row = o - r * a.rows;
		const T* x = (const T*)a.x + r * a.rs_x + row * a.d;
		const T* gamma = (const T*)a.gamma + r * a.rs_gamma;
		const T* beta = (const T*)a.beta + r * a.rs_beta;
		T* out = (T*)a.out + r * a.rs_out + row * a.d;
		double mean, inv;
		layer_norm_moments(x, a.d, sh, &mean, &inv);
		for (i64 j = threadIdx.x; j < a.d; j += blockDim.x) {
			T xh = (T)(((double)x[j] - mean) * inv);
			out[j] = (T)((double)xh * (double)gamma[j] + (double)beta[j]);
		}
	}
}

// layer_norm_backward: per row, ∂x += (g − mean(g) − x̂·mean(g⊙x̂))/√(σ² + ε)
// with g = ∂y⊙γ, and the row's mean and 1/√(σ² + ε) stored in a.stats for
// layer_norm_params.
template <typename T> __device__ void layer_norm_backward(const LayerNormArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < a.replicas * a.rows; o += gridDim.x) {
		i64 r = o / a.rows, row = o - r * a.rows;
		const T* x = (const T*)a.x + r * a.rs_x + row * a.d;
		const T* gamma = (const T*)a.gamma + r * a.rs_gamma;
		const T* dy = (const T*)a.gout + r * a.rs_out + row * a.d;
		double mean, inv;
		layer_norm_moments(x, a.d, sh, &mean, &inv);
		if (a.stats && threadIdx.x == 0) {
			((double*)a.stats)[2 * o] = mean;
			((double*)a.stats)[2 * o + 1] = inv;
		}
		if (!a.gx) continue;
		double sg = 0, sgx = 0;
		for (i64 j = threadIdx.x; j < a.d; j += blockDim.x) {
			double g = (double)dy[j] * (double)gamma[j];
			sg += g;
			sgx += g * (((double)x[j] - mean) * inv);
		}
		sg = block_sum(sg, sh) / (double)a.d;
		sgx = block_sum(sgx, sh) / (double)a.d;
		T* gx = (T*)a.gx + r * a.rs_x + row * a.d;
		for (i64 j = threadIdx.x; j < a.d; j += blockDim.x) {
			double xh = ((double)x[j] - mean) * inv, g = (double)dy[j] * (double)gamma[j];
			gx[j] += (T)((g - sg - xh * sgx) * inv);
		}
	}
}

// layer_norm_params: one block per (replica, j), its threads striding over
// the rows: ∂γ_j += Σ_rows ∂y·x̂ and ∂β_j += Σ_rows ∂y, with the moments
// layer_norm_backward stored.
template <typename T> __device__ void layer_norm_params(const LayerNormArgs& a) {
	__shared__ double sh[REDUCE_THREADS];
	for (i64 o = blockIdx.x; o < a.replicas * a.d; o += gridDim.x) {
		i64 r = o / a.d, j = o - r * a.d;
		const double* st = (const double*)a.stats + 2 * r * a.rows;
		const T* x = (const T*)a.x + r * a.rs_x + j;
		const T* dy = (const T*)a.gout + r * a.rs_out + j;
		double sgamma = 0, sbeta = 0;
		for (i64 row = threadIdx.x; row < a.rows; row += blockDim.x) {
			double g = (double)dy[row * a.d], xh = ((double)x[row * a.d] - st[2 * row]) * st[2 * row + 1];
			sgamma += g * (double)(T)xh;
			sbeta += g;
		}
		sgamma = block_sum(sgamma, sh);
		sbeta = block_sum(sbeta, sh);
		if (threadIdx.x != 0) continue;
		if (a.ggamma) ((T*)a.ggamma)[r * a.rs_gamma + j] += (T)sgamma;
		if (a.gbeta) ((T*)a.gbeta)[r * a.rs_beta + j] += (T)sbeta;
	}
}

INSTANTIATE(conv_im2col, ConvArgs)
INSTANTIATE(conv_bias, ConvArgs)
INSTANTIATE(conv_col2im, ConvArgs)
INSTANTIATE(conv_bias_backward, ConvArgs)
INSTANTIATE(pool_forward, PoolArgs)
INSTANTIATE(max_pool_backward, PoolArgs)
INSTANTIATE(avg_pool_backward, PoolArgs)
INSTANTIATE(layer_norm_forward, LayerNormArgs)
INSTANTIATE(layer_norm_backward, LayerNormArgs)
INSTANTIATE(layer_norm_params, LayerNormArgs)
