//go:build mpi

package mpi

import (
	"fmt"
	"os"
	"testing"
)

var world *World

func TestMain(m *testing.M) {
	w, err := Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	world = w
	code := m.Run()
	w.Finalize()
	os.Exit(code)
}

// TestAllgatherExchange: every process's block lands at its rank, and a
// pair's exchange swaps their blocks (run under mpirun -np 2 or more; one
// process checks the single-process case).
func TestAllgatherExchange(t *testing.T) {
	n, r := world.Size(), world.Rank()
	local := []float64{float64(r), float64(10 * r)}
	all := make([]float64, 2*n)
	if err := world.Allgather(local, all); err != nil {
		t.Fatal(err)
	}
	for p := range n {
		if all[2*p] != float64(p) || all[2*p+1] != float64(10*p) {
			t.Fatalf("rank %d: gathered %v", r, all)
		}
	}
	if n < 2 || r >= n-n%2 {
		return
	}
	peer := r ^ 1
	recv := make([]float64, 2)
	if err := world.Exchange(peer, local, recv); err != nil {
		t.Fatal(err)
	}
	if recv[0] != float64(peer) {
		t.Fatalf("rank %d received %v from %d", r, recv, peer)
	}
}

// BenchmarkRound measures what one exchange round of a split run sends
// (distributed.go): the allgather of every row's energy and variance (16
// rows), and a swap across processes of a state of D parameters (its
// position and gradient, 16·D bytes), between ranks 0 and 1:
//
//	go test -tags mpi -c -o mpi.test ./infer/mpi
//	mpirun -np 2 ./mpi.test -test.run '^$' -test.bench Round -test.benchtime 2000x
//
// with a fixed count (-test.benchtime Nx): every process must make the
// same calls, which timing each one for its own count would break.
func BenchmarkRound(b *testing.B) {
	n, r := world.Size(), world.Rank()
	rows := 16
	local, all := make([]float64, 2*rows/max(1, n)), make([]float64, 2*rows/max(1, n)*n)
	b.Run("allgather16", func(b *testing.B) {
		for b.Loop() {
			if err := world.Allgather(local, all); err != nil {
				b.Fatal(err)
			}
		}
	})
	if n < 2 || r > 1 {
		return
	}
	for _, d := range []int{1_000, 100_000, 1_000_000} {
		send, recv := make([]float64, 2*d), make([]float64, 2*d)
		b.Run(fmt.Sprintf("swap%d", d), func(b *testing.B) {
			for b.Loop() {
				if err := world.Exchange(r^1, send, recv); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(16 * d))
		})
	}
}
