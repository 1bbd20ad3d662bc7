// Package cuda holds temper's CUDA kernels (kernels.cu, with the
// elementwise functions of scalar.cuh and the argument structs of args.h),
// the tables that tie them to the Go op set, and a thin binding to the
// NVIDIA driver API and cuBLAS (build tag cuda), loaded at run time with
// purego: building it needs neither cgo nor the CUDA toolkit, and a binary
// built with -tags cuda runs on a machine without a GPU (Open then reports
// why none is usable). The kernels are PTX text compiled from kernels.cu
// (gen.go) and embedded, which the driver compiles for the GPU it finds.
//
// A Device is used from one goroutine at a time; every call makes its
// context current on the calling OS thread first (Enter), so goroutines may
// move between threads between calls.
package cuda
