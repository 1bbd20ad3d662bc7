package cuda

import (
	_ "embed"
)

// PTX is kernels.cu compiled by nvcc for compute capability 7.5, the
// oldest nvcc 13 targets; the driver JIT-compiles it for the GPU it runs
// on (Ampere, Hopper, ...). Its first line is the SHA-256 of the sources it
// was made from, which TestPTXCurrent checks, so a change to kernels.cu,
// args.h or scalar.cuh without regenerating fails the tests (CI has no
// nvcc to regenerate it).
//
//go:generate sh gen.sh
//go:embed kernels.ptx
var PTX string

// Sources are the files kernels.ptx is compiled from, in the order their
// hash is taken.
var Sources = []string{"kernels.cu", "args.h", "scalar.cuh", "shapes.cuh", "layers.cuh", "recurrent.cuh"}
