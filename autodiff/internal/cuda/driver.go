//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Ptr is a device address (CUdeviceptr).
type Ptr = Addr

// Device is one GPU with its primary context, the kernels module and a
// cuBLAS handle.
type Device struct {
	Name       string
	Capability [2]int // compute capability, major and minor
	Memory     uint64 // bytes

	ctx     uintptr
	module  uintptr
	cublas  uintptr
	kernels map[string]uintptr
}

// The driver and cuBLAS entry points, resolved once by load.
var (
	loadOnce sync.Once
	loadErr  error

	cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute,
	cuDeviceTotalMem, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease, cuCtxSetCurrent,
	cuModuleLoadDataEx, cuModuleUnload, cuModuleGetFunction, cuMemAlloc, cuMemFree,
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuMemsetD8, cuLaunchKernel, cuCtxSynchronize,
	cuGetErrorString uintptr

	cublasCreate, cublasDestroy, cublasSgemmBatched, cublasDgemmBatched uintptr
)

// libcuda is the driver (TEMPER_LIBCUDA names another file: a driver
// outside the loader's path, or the tests' CPU emulator,
// emulator/emulator.cpp); libcublas's soname carries the toolkit's major
// version, so several are tried, newest first. TEMPER_CUBLAS names the file
// where it lies outside the loader's path (a CUDA toolkit's lib64, or the
// nvidia-cublas wheel PyTorch installs).
var (
	libcudaNames   = []string{"libcuda.so.1", "libcuda.so"}
	libcublasNames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
		"/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12",
		"/usr/local/cuda/lib64/libcublas.so"}
)

func dlopenFirst(names []string) (uintptr, error) {
	var errs []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, nil
		}
		errs = append(errs, err.Error())
	}
	return 0, errors.New(strings.Join(errs, "; "))
}

func load() error {
	loadOnce.Do(func() {
		driverNames := libcudaNames
		if p := os.Getenv("TEMPER_LIBCUDA"); p != "" {
			driverNames = []string{p}
		}
		drv, err := dlopenFirst(driverNames)
		if err != nil {
			loadErr = fmt.Errorf("no NVIDIA driver (libcuda.so.1) could be loaded: %v", err)
			return
		}
		names := libcublasNames
		if p := os.Getenv("TEMPER_CUBLAS"); p != "" {
			names = []string{p}
		}
		blas, err := dlopenFirst(names)
		if err != nil {
			loadErr = fmt.Errorf("cuBLAS could not be loaded (set TEMPER_CUBLAS to the path of libcublas.so): %v", err)
			return
		}
		syms := []struct {
			lib  uintptr
			name string
			fn   *uintptr
		}{
			{drv, "cuInit", &cuInit}, {drv, "cuDeviceGetCount", &cuDeviceGetCount},
			{drv, "cuDeviceGet", &cuDeviceGet}, {drv, "cuDeviceGetName", &cuDeviceGetName},
			{drv, "cuDeviceGetAttribute", &cuDeviceGetAttribute}, {drv, "cuDeviceTotalMem_v2", &cuDeviceTotalMem},
			{drv, "cuDevicePrimaryCtxRetain", &cuDevicePrimaryCtxRetain},
			{drv, "cuDevicePrimaryCtxRelease_v2", &cuDevicePrimaryCtxRelease},
			{drv, "cuCtxSetCurrent", &cuCtxSetCurrent}, {drv, "cuModuleLoadDataEx", &cuModuleLoadDataEx},
			{drv, "cuModuleUnload", &cuModuleUnload}, {drv, "cuModuleGetFunction", &cuModuleGetFunction},
			{drv, "cuMemAlloc_v2", &cuMemAlloc}, {drv, "cuMemFree_v2", &cuMemFree},
			{drv, "cuMemcpyHtoD_v2", &cuMemcpyHtoD}, {drv, "cuMemcpyDtoH_v2", &cuMemcpyDtoH},
			{drv, "cuMemcpyDtoD_v2", &cuMemcpyDtoD}, {drv, "cuMemsetD8_v2", &cuMemsetD8},
			{drv, "cuLaunchKernel", &cuLaunchKernel}, {drv, "cuCtxSynchronize", &cuCtxSynchronize},
			{drv, "cuGetErrorString", &cuGetErrorString},
			{blas, "cublasCreate_v2", &cublasCreate}, {blas, "cublasDestroy_v2", &cublasDestroy},
			{blas, "cublasSgemmBatched", &cublasSgemmBatched}, {blas, "cublasDgemmBatched", &cublasDgemmBatched},
		}
		for _, s := range syms {
			p, err := purego.Dlsym(s.lib, s.name)
			if err != nil {
				loadErr = fmt.Errorf("%s not found: %v", s.name, err)
				return
			}
			*s.fn = p
		}
	})
	return loadErr
}

// call runs a driver function and turns its CUresult into an error.
// Arguments that are pointers converted to uintptr at the call site are
// kept on the heap and alive for the call (go:uintptrescapes, as for
// purego.SyscallN itself): without it a pointer to a caller's stack
// variable could go stale when the stack grows on the way to the driver.
//
//go:uintptrescapes
func call(what string, fn uintptr, args ...uintptr) error {
	r, _, _ := purego.SyscallN(fn, args...)
	if r == 0 {
		return nil
	}
	return driverError(what, r)
}

func driverError(what string, code uintptr) error {
	var msg *byte
	if cuGetErrorString != 0 {
		purego.SyscallN(cuGetErrorString, code, uintptr(unsafe.Pointer(&msg)))
	}
	text := "unknown error"
	if msg != nil {
		text = goString(msg)
	}
	return fmt.Errorf("cuda: %s: %s (CUresult %d)", what, text, code)
}

func goString(p *byte) string {
	var b []byte
	for ptr := unsafe.Pointer(p); *(*byte)(ptr) != 0; ptr = unsafe.Add(ptr, 1) {
		b = append(b, *(*byte)(ptr))
	}
	return string(b)
}

// Open initialises the driver and opens device ordinal (TEMPER_CUDA_DEVICE
// picks it from the command line), loading the kernels: the embedded PTX,
// or the file TEMPER_CUDA_PTX names (to try a kernels.cu change without a
// rebuild).
func Open(ordinal int) (*Device, error) {
	if err := load(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := call("cuInit", cuInit, 0); err != nil {
		return nil, err
	}
	var count int32
	if err := call("cuDeviceGetCount", cuDeviceGetCount, uintptr(unsafe.Pointer(&count))); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, errors.New("cuda: the driver found no GPU")
	}
	if ordinal < 0 || ordinal >= int(count) {
		return nil, fmt.Errorf("cuda: no device %d: the driver found %d", ordinal, count)
	}
	var dev int32
	if err := call("cuDeviceGet", cuDeviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal)); err != nil {
		return nil, err
	}
	d := &Device{kernels: map[string]uintptr{}}
	name := make([]byte, 256)
	if err := call("cuDeviceGetName", cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), 256, uintptr(dev)); err != nil {
		return nil, err
	}
	d.Name = goString(&name[0])
	for i, attr := range []uintptr{75, 76} { // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR
		var v int32
		if err := call("cuDeviceGetAttribute", cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), attr, uintptr(dev)); err != nil {
			return nil, err
		}
		d.Capability[i] = int(v)
	}
	if err := call("cuDeviceTotalMem", cuDeviceTotalMem, uintptr(unsafe.Pointer(&d.Memory)), uintptr(dev)); err != nil {
		return nil, err
	}
	if err := call("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), uintptr(dev)); err != nil {
		return nil, err
	}
	if err := call("cuCtxSetCurrent", cuCtxSetCurrent, d.ctx); err != nil {
		return nil, err
	}
	ptx := PTX
	if p := os.Getenv("TEMPER_CUDA_PTX"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		ptx = string(b)
	}
	if err := d.loadModule(ptx); err != nil {
		return nil, err
	}
	if err := blasStatus("cublasCreate", cublasCreate, uintptr(unsafe.Pointer(&d.cublas))); err != nil {
		return nil, err
	}
	return d, nil
}

// loadModule JIT-compiles the PTX for this GPU, returning the JIT's log
// with its error.
func (d *Device) loadModule(ptx string) error {
	src := append([]byte(ptx), 0)
	logBuf := make([]byte, 16<<10)
	// CU_JIT_ERROR_LOG_BUFFER (5) and CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES (6).
	opts := []int32{5, 6}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf))}
	err := call("cuModuleLoadDataEx", cuModuleLoadDataEx, uintptr(unsafe.Pointer(&d.module)),
		uintptr(unsafe.Pointer(&src[0])), uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&vals[0])))
	runtime.KeepAlive(logBuf)
	if err != nil {
		return fmt.Errorf("%v\n%s", err, strings.TrimRight(goString(&logBuf[0]), "\x00\n"))
	}
	return nil
}

// Close releases the module, the cuBLAS handle and the context.
func (d *Device) Close() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	purego.SyscallN(cuCtxSetCurrent, d.ctx)
	if d.cublas != 0 {
		purego.SyscallN(cublasDestroy, d.cublas)
	}
	if d.module != 0 {
		purego.SyscallN(cuModuleUnload, d.module)
	}
}

// Enter locks the goroutine to its thread and makes the device's context
// current there; Exit undoes the lock. Every other method must run
// between the two.
func (d *Device) Enter() error {
	runtime.LockOSThread()
	if err := call("cuCtxSetCurrent", cuCtxSetCurrent, d.ctx); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	return nil
}

// Exit ends what Enter began.
func (d *Device) Exit() { runtime.UnlockOSThread() }

// Kernel returns the kernel named name from the module.
func (d *Device) Kernel(name string) (uintptr, error) {
	if f, ok := d.kernels[name]; ok {
		return f, nil
	}
	cname := append([]byte(name), 0)
	var f uintptr
	if err := call("cuModuleGetFunction "+name, cuModuleGetFunction, uintptr(unsafe.Pointer(&f)), d.module, uintptr(unsafe.Pointer(&cname[0]))); err != nil {
		return 0, err
	}
	d.kernels[name] = f
	return f, nil
}

// Alloc returns bytes of device memory.
func (d *Device) Alloc(bytes int) (Ptr, error) {
	var p Ptr
	if bytes == 0 {
		return 0, nil
	}
	err := call(fmt.Sprintf("cuMemAlloc of %d bytes", bytes), cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
	return p, err
}

// Free releases memory from Alloc.
func (d *Device) Free(p Ptr) {
	if p != 0 {
		purego.SyscallN(cuMemFree, uintptr(p))
	}
}

// Upload copies bytes from host memory at src to dst.
func (d *Device) Upload(dst Ptr, src unsafe.Pointer, bytes int) error {
	if bytes == 0 {
		return nil
	}
	return call("cuMemcpyHtoD", cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// Download copies bytes from src to host memory at dst, after the work
// queued before it has finished; a kernel's failure surfaces here.
func (d *Device) Download(dst unsafe.Pointer, src Ptr, bytes int) error {
	if bytes == 0 {
		return nil
	}
	return call("cuMemcpyDtoH", cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes))
}

// Copy copies bytes between device buffers.
func (d *Device) Copy(dst, src Ptr, bytes int) error {
	if bytes == 0 {
		return nil
	}
	return call("cuMemcpyDtoD", cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// Zero sets bytes of device memory to zero bits (0.0 in either float type).
func (d *Device) Zero(p Ptr, bytes int) error {
	if bytes == 0 {
		return nil
	}
	return call("cuMemsetD8", cuMemsetD8, uintptr(p), 0, uintptr(bytes))
}

// Sync waits for the queued work and reports its first error.
func (d *Device) Sync() error { return call("cuCtxSynchronize", cuCtxSynchronize) }

// Launch queues kernel f on grid × block threads with one argument: the
// struct args points to, which must stay unchanged until the launch
// returns (the driver copies it).
func (d *Device) Launch(f uintptr, grid, block [3]uint32, shared int, args unsafe.Pointer) error {
	params := [1]unsafe.Pointer{args}
	return call("cuLaunchKernel", cuLaunchKernel, f,
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(shared), 0, uintptr(unsafe.Pointer(&params[0])), 0)
}

// Gemm is a batch of column-major products C_i = α·op(A_i)·op(B_i) + β·C_i
// through cuBLAS's pointer-array interface: a, b and c are device arrays
// of batch pointers (the strided interface takes 18 arguments, more than a
// call through purego can pass). f32 picks single precision.
func (d *Device) Gemm(f32, transA, transB bool, m, n, k int, alpha float64, a Ptr, lda int, b Ptr, ldb int, beta float64, c Ptr, ldc, batch int) error {
	op := func(t bool) uintptr {
		if t {
			return 1 // CUBLAS_OP_T
		}
		return 0
	}
	fn, al, be := cublasDgemmBatched, unsafe.Pointer(&alpha), unsafe.Pointer(&beta)
	if f32 {
		a32, b32 := float32(alpha), float32(beta)
		fn, al, be = cublasSgemmBatched, unsafe.Pointer(&a32), unsafe.Pointer(&b32)
	}
	return blasStatus("cublasGemmBatched", fn, d.cublas, op(transA), op(transB), uintptr(m), uintptr(n), uintptr(k),
		uintptr(al), uintptr(a), uintptr(lda), uintptr(b), uintptr(ldb), uintptr(be), uintptr(c), uintptr(ldc), uintptr(batch))
}

//go:uintptrescapes
func blasStatus(what string, fn uintptr, args ...uintptr) error {
	r, _, _ := purego.SyscallN(fn, args...)
	if r != 0 {
		return fmt.Errorf("cuda: %s: cuBLAS status %d", what, r)
	}
	return nil
}
