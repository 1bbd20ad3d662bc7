package cuda

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestPTXCurrent checks that kernels.ptx was generated from the sources as
// they are: its first line carries their hash (gen.sh writes it).
func TestPTXCurrent(t *testing.T) {
	h := sha256.New()
	for _, f := range Sources {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	want := fmt.Sprintf("// source sha256 %x", h.Sum(nil))
	first, _, _ := strings.Cut(PTX, "\n")
	if first != want {
		t.Fatalf("kernels.ptx is stale: its first line is %q, the sources hash to %q; run go generate ./autodiff/internal/cuda (needs nvcc) and commit kernels.ptx", first, want)
	}
	if !strings.Contains(PTX, ".entry ew_forward_f32") {
		t.Fatal("kernels.ptx has no ew_forward_f32 entry")
	}
}
