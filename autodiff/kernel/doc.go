// Package kernel provides fast row-major GEMM for float32 and float64.
package kernel

//go:generate go run -C asm . -out ../gemm_amd64.s -stubs ../gemm_stubs_amd64.go -pkg kernel -tables ../gemm_tables_amd64.go
