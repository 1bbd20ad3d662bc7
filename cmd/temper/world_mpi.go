//go:build mpi

package main

import (
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/mpi"
)

func init() {
	startWorld = func() (infer.Transport, func(), error) {
		w, err := mpi.Init()
		if err != nil {
			return nil, nil, err
		}
		return w, func() { w.Finalize() }, nil
	}
}
