package main

import "github.com/temper-ppl/temper/infer"

// startWorld starts the processes' transport of a build with the tag mpi
// (world_mpi.go) and returns it with the function that ends it; nil in the
// default build, whose runs are one process.
var startWorld func() (infer.Transport, func(), error)
