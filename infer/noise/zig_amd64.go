//go:build !purego

package noise

import "golang.org/x/sys/cpu"

func init() {
	// VPMULLQ, VCVTQQ2PD and KMOVB are AVX512DQ.
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL {
		zigVec = true
	}
}
