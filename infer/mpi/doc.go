// Package mpi is a Transport of package infer on Open MPI, so that one
// run's replicas split across processes and machines (mpirun -np 4
// temper run MODEL --replicas 16): a thin cgo binding to the five calls
// a split run needs (MPI_Init_thread, MPI_Comm_rank, MPI_Comm_size,
// MPI_Allgather and MPI_Sendrecv on MPI_COMM_WORLD, doubles only).
//
// It is built only with the tag mpi (go build -tags mpi, with cgo and
// Debian's libopenmpi-dev), so that temper's default build stays pure Go;
// without the tag the package is this comment alone.
package mpi
