#!/bin/sh
# Regenerates kernels.ptx from kernels.cu (go generate runs it). It needs
# nvcc from a CUDA toolkit (12 or 13); the result is committed, so neither
# building temper nor CI needs one.
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -ptx -arch=compute_75 -O3 --fmad=false -o kernels.ptx.tmp kernels.cu
{
	printf '// source sha256 %s\n' "$(cat kernels.cu args.h scalar.cuh shapes.cuh layers.cuh recurrent.cuh | sha256sum | cut -d' ' -f1)"
	cat kernels.ptx.tmp
} >kernels.ptx
rm kernels.ptx.tmp
