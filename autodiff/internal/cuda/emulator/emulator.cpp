// A CPU stand-in for the NVIDIA driver and cuBLAS: the entry points
// autodiff/internal/cuda loads (driver.go), with kernels.cu compiled as
// C++ for the host. A test that sets TEMPER_CUDA_EMULATOR=1 (see
// autodiff/gputest) builds this file with the host's C++ compiler and
// loads it in place of libcuda.so.1 and libcublas.so, so the CUDA backend's
// lowering and kernels run, and are checked against the CPU programs, on
// a machine without a GPU, CI's included.
//
// Every launch runs as one block of one thread: the kernels' grid-stride
// loops then visit every element in order, block reductions reduce one
// value, and atomics are plain adds. So a kernel must be correct for any
// launch shape (every kernel of kernels.cu is), and what only many threads
// show (races, a reduction's tree) is left to a run on a GPU. Fresh device
// memory is filled with NaN bits, so a kernel that reads what nothing wrote
// shows it.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct emu_dim3 {
	unsigned x, y, z;
};
static emu_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static const emu_dim3 blockDim = {1, 1, 1}, gridDim = {1, 1, 1};

static inline void __syncthreads() {}
static inline float atomicAdd(float* p, float v) {
	float old = *p;
	*p = old + v;
	return old;
}
static inline double atomicAdd(double* p, double v) {
	double old = *p;
	*p = old + v;
	return old;
}
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }

using std::fmax;
using std::fmin;

// kernels.cu's INSTANTIATE, made to register a host trampoline per kernel:
// cuLaunchKernel passes the argument struct by pointer.
struct emu_kernel {
	const char* name;
	void (*run)(const void* args);
	emu_kernel* next;
};
static emu_kernel* emu_kernels;
struct emu_register {
	explicit emu_register(emu_kernel* k) {
		k->next = emu_kernels;
		emu_kernels = k;
	}
};
#define INSTANTIATE(name, Args)                                                             \
	static void name##_run_f32(const void* a) { name<float>(*(const Args*)a); }          \
	static void name##_run_f64(const void* a) { name<double>(*(const Args*)a); }         \
	static emu_kernel name##_k32 = {#name "_f32", name##_run_f32, 0};                    \
	static emu_kernel name##_k64 = {#name "_f64", name##_run_f64, 0};                    \
	static emu_register name##_r32(&name##_k32), name##_r64(&name##_k64);

#include "kernels.cu"

template <typename T>
static void gemm_batched(int ta, int tb, int m, int n, int k, T alpha, const T* const* A, int lda, const T* const* B,
                         int ldb, T beta, T* const* C, int ldc, int batch) {
	for (int q = 0; q < batch; q++) {
		const T *a = A[q], *b = B[q];
		T* c = C[q];
		for (int j = 0; j < n; j++) {
			for (int i = 0; i < m; i++) {
				double s = 0;
				for (int l = 0; l < k; l++) {
					double x = ta ? a[l + (size_t)i * lda] : a[i + (size_t)l * lda];
					double y = tb ? b[j + (size_t)l * ldb] : b[l + (size_t)j * ldb];
					s += x * y;
				}
				T* out = c + i + (size_t)j * ldc;
				*out = beta == 0 ? (T)(alpha * s) : (T)(alpha * s + beta * *out);
			}
		}
	}
}

typedef int CUresult;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_FOUND = 500 };

extern "C" {

CUresult cuInit(unsigned) { return OK; }
CUresult cuDeviceGetCount(int* n) {
	*n = 1;
	return OK;
}
CUresult cuDeviceGet(int* d, int ordinal) {
	*d = ordinal;
	return ordinal == 0 ? OK : INVALID_VALUE;
}
CUresult cuDeviceGetName(char* name, int len, int) {
	strncpy(name, "temper's CPU emulator", len);
	return OK;
}
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
	*v = attr == 75 ? 7 : 5;  // compute capability 7.5, what the PTX targets
	return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
	*bytes = (size_t)1 << 34;
	return OK;
}
static int emu_context;
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
	*ctx = &emu_context;
	return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return OK; }
CUresult cuCtxSetCurrent(void*) { return OK; }
CUresult cuCtxSynchronize() { return OK; }
static int emu_module;
CUresult cuModuleLoadDataEx(void** module, const void*, unsigned, int*, void**) {
	*module = &emu_module;
	return OK;
}
CUresult cuModuleUnload(void*) { return OK; }
CUresult cuModuleGetFunction(void** f, void*, const char* name) {
	for (emu_kernel* k = emu_kernels; k; k = k->next) {
		if (strcmp(k->name, name) == 0) {
			*f = (void*)k;
			return OK;
		}
	}
	return NOT_FOUND;
}
CUresult cuMemAlloc_v2(uint64_t* p, size_t bytes) {
	void* m = malloc(bytes);
	if (!m) return OUT_OF_MEMORY;
	memset(m, 0xff, bytes);  // NaN in float and double: unwritten memory shows
	*p = (uint64_t)(uintptr_t)m;
	return OK;
}
CUresult cuMemFree_v2(uint64_t p) {
	free((void*)(uintptr_t)p);
	return OK;
}
CUresult cuMemcpyHtoD_v2(uint64_t dst, const void* src, size_t n) {
	memcpy((void*)(uintptr_t)dst, src, n);
	return OK;
}
CUresult cuMemcpyDtoH_v2(void* dst, uint64_t src, size_t n) {
	memcpy(dst, (const void*)(uintptr_t)src, n);
	return OK;
}
CUresult cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t n) {
	memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n);
	return OK;
}
CUresult cuMemsetD8_v2(uint64_t p, unsigned char v, size_t n) {
	memset((void*)(uintptr_t)p, v, n);
	return OK;
}
CUresult cuLaunchKernel(void* f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                        void** params, void**) {
	((emu_kernel*)f)->run(params[0]);
	return OK;
}
CUresult cuGetErrorString(CUresult, const char** s) {
	*s = "emulator error";
	return OK;
}

// cuBLAS: the batched products, column-major, C = α·op(A)·op(B) + β·C; a
// β of 0 leaves C unread, as cuBLAS does.
int cublasCreate_v2(void** h) {
	*h = &emu_context;
	return 0;
}
int cublasDestroy_v2(void*) { return 0; }

int cublasSgemmBatched(void*, int ta, int tb, int m, int n, int k, const float* alpha, const float* const* A, int lda,
                       const float* const* B, int ldb, const float* beta, float* const* C, int ldc, int batch) {
	gemm_batched<float>(ta, tb, m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc, batch);
	return 0;
}
int cublasDgemmBatched(void*, int ta, int tb, int m, int n, int k, const double* alpha, const double* const* A, int lda,
                       const double* const* B, int ldb, const double* beta, double* const* C, int ldc, int batch) {
	gemm_batched<double>(ta, tb, m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc, batch);
	return 0;
}

}  // extern "C"
