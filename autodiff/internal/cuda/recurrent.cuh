// The recurrent layers of stdlib (recurrent.go) on the device: included at
// the end of kernels.cu, after INSTANTIATE. Each kernel follows
// kernels.cu's rules: templated on T, arithmetic in double, grid-stride
// loops correct for any launch shape (the CPU emulator runs every launch
// as one thread).
//
// The lowering (autodiff/device_cuda_recurrent.go) runs the products on
// cuBLAS and these kernels between them: rnn_prepare before the input
// projection, per step a gate kernel after the recurrent product, and
// backward per step a gate-gradient kernel before the product through U,
// then rnn_bias_grad. Every kernel here gives each element it writes one
// thread, so none needs atomics.

// rnn_prepare copies x [B, T, D] to xt [T, B, D] (per replica of x), fills
// every step's gate pre-activations with the bias, and zeroes the initial
// hidden (and, for the LSTM, cell) state.
template <typename T> __device__ void rnn_prepare(const RnnArgs& a) {
	i64 bt = a.batch * a.steps, gh = a.gates * a.h, bh = a.batch * a.h;
	i64 nx = a.xreps * bt * a.d;
	for (i64 e = thread_index(); e < nx; e += thread_count()) {
		i64 r = e / (bt * a.d), q = e - r * bt * a.d;
		i64 row = q / a.d, j = q - row * a.d;  // row = t·B + b of xt
		i64 t = row / a.batch, b = row - t * a.batch;
		((T*)a.xt)[r * a.rs_xt + q] = ((const T*)a.x)[r * a.rs_x + (b * a.steps + t) * a.d + j];
	}
	i64 nz = a.replicas * bt * gh;
	for (i64 e = thread_index(); e < nz; e += thread_count()) {
		i64 r = e / (bt * gh), j = e % gh;
		((T*)a.z)[e] = ((const T*)a.bias)[r * a.rs_bias + j];
	}
	i64 states = (a.steps + 1) * bh;
	for (i64 e = thread_index(); e < a.replicas * bh; e += thread_count()) {
		i64 r = e / bh, q = e - r * bh;
		((T*)a.hidden)[r * states + q] = 0;
		if (a.cells) ((T*)a.cells)[r * states + q] = 0;
	}
}

// rnn_bias_grad adds the column sums of dz (all T·B rows) to the bias's
// gradient, one thread per replica and column, summing step by step.
template <typename T> __device__ void rnn_bias_grad(const RnnArgs& a) {
	i64 gh = a.gates * a.h, rows = a.steps * a.batch;
	for (i64 e = thread_index(); e < a.replicas * gh; e += thread_count()) {
		i64 r = e / gh, j = e - r * gh;
		const T* dz = (const T*)a.dz + r * rows * gh + j;
		double s = 0;
		for (i64 q = 0; q < rows; q++) s += (double)dz[q * gh];
		T* g = (T*)a.gbias + r * a.rs_gbias + j;
		*g = (T)((double)*g + s);
	}
}

// rnn_write_out stores h as the result's element for sequence b, step t
// and unit j of replica r: every step's [B, T, H], or the last's [B, H].
template <typename T>
__device__ __forceinline__ void rnn_write_out(const RnnArgs& a, i64 r, i64 b, i64 j, double h) {
	if (a.seq) ((T*)a.out)[r * a.rs_out + (b * a.steps + a.t) * a.h + j] = (T)h;
	else if (a.t == a.steps - 1) ((T*)a.out)[r * a.rs_out + b * a.h + j] = (T)h;
}

// rnn_grad_out is the result's gradient for sequence b, step t, unit j of
// replica r, 0 where the result does not hold that step.
template <typename T> __device__ __forceinline__ double rnn_grad_out(const RnnArgs& a, i64 r, i64 b, i64 j) {
	if (a.seq) return (double)((const T*)a.gout)[r * a.rs_out + (b * a.steps + a.t) * a.h + j];
	if (a.t == a.steps - 1) return (double)((const T*)a.gout)[r * a.rs_out + b * a.h + j];
	return 0;
}

// lstm_step_forward activates step t's gates (i, f, g, o, whose
// pre-activations hold x_t·W + h_{t-1}·U + b) in place and sets c_t,
// tanh(c_t) and h_t: one thread per replica, sequence and unit.
template <typename T> __device__ void lstm_step_forward(const RnnArgs& a) {
	i64 H = a.h, bh = a.batch * H, gh = 4 * H, t = a.t;
	i64 rs_z = a.steps * a.batch * gh, rs_c = a.steps * bh, rs_s = (a.steps + 1) * bh;
	for (i64 e = thread_index(); e < a.replicas * bh; e += thread_count()) {
		i64 r = e / bh, q = e - r * bh, b = q / H, j = q - b * H;
		T* z = (T*)a.z + r * rs_z + (t * a.batch + b) * gh;
		T i = (T)sf_sigmoid((double)z[j]), f = (T)sf_sigmoid((double)z[H + j]);
		T g = (T)tanh((double)z[2 * H + j]), o = (T)sf_sigmoid((double)z[3 * H + j]);
		z[j] = i;
		z[H + j] = f;
		z[2 * H + j] = g;
		z[3 * H + j] = o;
		T* cells = (T*)a.cells + r * rs_s;
		T c = (T)((double)f * (double)cells[t * bh + q] + (double)i * (double)g);
		cells[(t + 1) * bh + q] = c;
		T tc = (T)tanh((double)c);
		((T*)a.rec)[r * rs_c + t * bh + q] = tc;
		double h = (double)o * (double)tc;
		((T*)a.hidden)[r * rs_s + (t + 1) * bh + q] = (T)h;
		rnn_write_out<T>(a, r, b, j, h);
	}
}

// lstm_step_backward: with δh the gradient of h_t (the result's, plus
// step t+1's through U, which the product after this kernel leaves in dh)
// and δc that of c_t from step t+1,
//
//	δo = δh⊙tanh(c_t),  δc ← δc + δh⊙o⊙(1 − tanh²(c_t)),
//	δi = δc⊙g,  δg = δc⊙i,  δf = δc⊙c_{t−1},  δc_{t−1} = δc⊙f,
//
// each times its σ's or tanh's derivative into dz, and δc_{t-1} into dc.
template <typename T> __device__ void lstm_step_backward(const RnnArgs& a) {
	i64 H = a.h, bh = a.batch * H, gh = 4 * H, t = a.t;
	i64 rs_z = a.steps * a.batch * gh, rs_c = a.steps * bh, rs_s = (a.steps + 1) * bh;
	for (i64 e = thread_index(); e < a.replicas * bh; e += thread_count()) {
		i64 r = e / bh, q = e - r * bh, b = q / H, j = q - b * H;
		const T* z = (const T*)a.z + r * rs_z + (t * a.batch + b) * gh;
		T* dz = (T*)a.dz + r * rs_z + (t * a.batch + b) * gh;
		double i = (double)z[j], f = (double)z[H + j], g = (double)z[2 * H + j], o = (double)z[3 * H + j];
		double tc = (double)((const T*)a.rec)[r * rs_c + t * bh + q];
		double cprev = (double)((const T*)a.cells)[r * rs_s + t * bh + q];
		double dh = (double)((const T*)a.dh)[e] + rnn_grad_out<T>(a, r, b, j);
		double dc = (double)((const T*)a.dc)[e] + dh * o * (1 - tc * tc);
		dz[j] = (T)(dc * g * i * (1 - i));
		dz[H + j] = (T)(dc * cprev * f * (1 - f));
		dz[2 * H + j] = (T)(dc * i * (1 - g * g));
		dz[3 * H + j] = (T)(dh * tc * o * (1 - o));
		((T*)a.dc)[e] = (T)(dc * f);
	}
}

// gru_step_forward activates step t's gates in place: r and z from their
// pre-activations x_t·W + b plus h_{t-1}·U (in a.r, the product of this
// step, for t > 0), the candidate n = tanh(x_t·W_n + b_n + r⊙(h_{t−1}·U_n))
// with the recurrent term kept in rec, and h_t = (1 − z)⊙n + z⊙h_{t−1}.
template <typename T> __device__ void gru_step_forward(const RnnArgs& a) {
	i64 H = a.h, bh = a.batch * H, gh = 3 * H, t = a.t;
	i64 rs_z = a.steps * a.batch * gh, rs_c = a.steps * bh, rs_s = (a.steps + 1) * bh;
	for (i64 e = thread_index(); e < a.replicas * bh; e += thread_count()) {
		i64 r = e / bh, q = e - r * bh, b = q / H, j = q - b * H;
		T* z = (T*)a.z + r * rs_z + (t * a.batch + b) * gh;
		T zr = z[j], zz = z[H + j], nrec = 0;
		if (t > 0) {
			const T* rr = (const T*)a.r + r * bh * gh + b * gh;
			zr = (T)((double)zr + (double)rr[j]);
			zz = (T)((double)zz + (double)rr[H + j]);
			nrec = rr[2 * H + j];
		}
		T rg = (T)sf_sigmoid((double)zr), u = (T)sf_sigmoid((double)zz);
		T n = (T)tanh((double)(T)((double)z[2 * H + j] + (double)rg * (double)nrec));
		z[j] = rg;
		z[H + j] = u;
		z[2 * H + j] = n;
		((T*)a.rec)[r * rs_c + t * bh + q] = nrec;
		T* hidden = (T*)a.hidden + r * rs_s;
		double h = (1 - (double)u) * (double)n + (double)u * (double)hidden[t * bh + q];
		hidden[(t + 1) * bh + q] = (T)h;
		rnn_write_out<T>(a, r, b, j, h);
	}
}

// gru_step_backward: with δh the gradient of h_t (the result's, plus what
// dh holds: δh_t⊙z of step t+1 plus its product through U),
//
//	δn = δh⊙(1 − z),  δz = δh⊙(h_{t−1} − n),  δa_n = δn⊙(1 − n²),
//	δr = δa_n⊙(h_{t−1}·U_n),
//
// the input pre-activations' gradients (δr, δz, δa_n)⊙σ' into dz, the
// recurrent ones (the candidate's scaled by r) into dzh, and δh⊙z into dh,
// to which the product through Uᵀ after this kernel adds.
template <typename T> __device__ void gru_step_backward(const RnnArgs& a) {
	i64 H = a.h, bh = a.batch * H, gh = 3 * H, t = a.t;
	i64 rs_z = a.steps * a.batch * gh, rs_c = a.steps * bh, rs_s = (a.steps + 1) * bh;
	for (i64 e = thread_index(); e < a.replicas * bh; e += thread_count()) {
		i64 r = e / bh, q = e - r * bh, b = q / H, j = q - b * H;
		i64 row = r * rs_z + (t * a.batch + b) * gh;
		const T* z = (const T*)a.z + row;
		T *dx = (T*)a.dz + row, *dr = (T*)a.dzh + row;
		double rg = (double)z[j], u = (double)z[H + j], n = (double)z[2 * H + j];
		double nrec = (double)((const T*)a.rec)[r * rs_c + t * bh + q];
		double hprev = (double)((const T*)a.hidden)[r * rs_s + t * bh + q];
		double dh = (double)((const T*)a.dh)[e] + rnn_grad_out<T>(a, r, b, j);
		double dan = dh * (1 - u) * (1 - n * n);
		double dar = dan * nrec * rg * (1 - rg);
		double dau = dh * (hprev - n) * u * (1 - u);
		dx[j] = (T)dar;
		dx[H + j] = (T)dau;
		dx[2 * H + j] = (T)dan;
		dr[j] = (T)dar;
		dr[H + j] = (T)dau;
		dr[2 * H + j] = (T)(dan * rg);
		((T*)a.dh)[e] = (T)(dh * u);
	}
}

INSTANTIATE(rnn_prepare, RnnArgs)
INSTANTIATE(rnn_bias_grad, RnnArgs)
INSTANTIATE(lstm_step_forward, RnnArgs)
INSTANTIATE(lstm_step_backward, RnnArgs)
INSTANTIATE(gru_step_forward, RnnArgs)
INSTANTIATE(gru_step_backward, RnnArgs)
