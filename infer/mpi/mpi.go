//go:build mpi

package mpi

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdlib.h>

static int temper_init(int *provided) {
	int initialized = 0;
	MPI_Initialized(&initialized);
	if (initialized) {
		*provided = MPI_THREAD_FUNNELED;
		return MPI_SUCCESS;
	}
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
}
static int temper_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int temper_size(int *n) { return MPI_Comm_size(MPI_COMM_WORLD, n); }
static int temper_allgather(double *local, int n, double *all) {
	return MPI_Allgather(local, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int temper_sendrecv(double *send, double *recv, int n, int peer) {
	return MPI_Sendrecv(send, n, MPI_DOUBLE, peer, 7, recv, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static int temper_finalize(void) { return MPI_Finalize(); }
static int temper_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// World is the processes of MPI_COMM_WORLD, as an infer.Transport. MPI is
// called from one goroutine only (MPI_THREAD_FUNNELED): Init locks it to
// its thread, and the run that uses World must call it from there.
type World struct{ rank, size int }

// Init starts MPI (once per process) and returns the world. Under mpirun
// each process gets its rank; run alone, the world is one process.
func Init() (*World, error) {
	runtime.LockOSThread()
	var provided C.int
	if rc := C.temper_init(&provided); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("mpi: MPI_Init_thread failed (code %d)", int(rc))
	}
	var r, n C.int
	if rc := C.temper_rank(&r); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("mpi: MPI_Comm_rank failed (code %d)", int(rc))
	}
	if rc := C.temper_size(&n); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("mpi: MPI_Comm_size failed (code %d)", int(rc))
	}
	return &World{rank: int(r), size: int(n)}, nil
}

// Rank is this process's number, from 0.
func (w *World) Rank() int { return w.rank }

// Size is the number of processes.
func (w *World) Size() int { return w.size }

// Allgather sets all to every process's local block in rank order.
func (w *World) Allgather(local, all []float64) error {
	if len(all) != len(local)*w.size {
		return fmt.Errorf("mpi: allgather of %d values a process into %d for %d processes", len(local), len(all), w.size)
	}
	if len(local) == 0 {
		return nil
	}
	if rc := C.temper_allgather((*C.double)(unsafe.Pointer(&local[0])), C.int(len(local)), (*C.double)(unsafe.Pointer(&all[0]))); rc != C.MPI_SUCCESS {
		return fmt.Errorf("mpi: MPI_Allgather failed (code %d)", int(rc))
	}
	return nil
}

// Exchange sends send to peer and receives its block into recv.
func (w *World) Exchange(peer int, send, recv []float64) error {
	if len(send) != len(recv) || len(send) == 0 {
		return fmt.Errorf("mpi: exchange of %d values for %d", len(send), len(recv))
	}
	if rc := C.temper_sendrecv((*C.double)(unsafe.Pointer(&send[0])), (*C.double)(unsafe.Pointer(&recv[0])), C.int(len(send)), C.int(peer)); rc != C.MPI_SUCCESS {
		return fmt.Errorf("mpi: MPI_Sendrecv with process %d failed (code %d)", peer, int(rc))
	}
	return nil
}

// Finalize ends MPI; call it once, after the run, from Init's goroutine.
func (w *World) Finalize() error {
	if rc := C.temper_finalize(); rc != C.MPI_SUCCESS {
		return fmt.Errorf("mpi: MPI_Finalize failed (code %d)", int(rc))
	}
	return nil
}

// Abort stops every process of the world with the exit code given, where
// one process fails and the others would wait for it forever.
func (w *World) Abort(code int) { C.temper_abort(C.int(code)) }
