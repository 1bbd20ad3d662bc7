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
