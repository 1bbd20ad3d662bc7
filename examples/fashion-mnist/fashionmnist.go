// Package fashionmnist is seed 001's Fashion-MNIST experiment (Section
// 4.2, Table 1) at a reduced size: Bayesian neural networks, an LSTM that
// reads the image row by row (lstm.ppl) and a small CNN (cnn.ppl), sampled
// by RENHD and the baselines, each scored by the test accuracy and NLL of
// its model average (the posterior-mean predictive over the kept draws),
// with 0% or 20% of the training labels permuted.
//
// temper run cannot read the IDX files Fashion-MNIST is distributed in,
// so this package reads them, binds them through the embedding API and
// runs one sampler per call (Run); the command in ./run and the gallery
// pages call it with the flags of Main.
package fashionmnist

import (
	"embed"
	"io/fs"
)

// The models: LSTM is seed 001's network (lstm.ppl), CNN a small
// convolutional one (cnn.ppl).
var (
	//go:embed lstm.ppl
	LSTM string
	//go:embed cnn.ppl
	CNN string
)

//go:embed data/*.gz
var data embed.FS

// Subset is the shipped subset of Fashion-MNIST: the first 1,000 training
// and 500 test images and their labels, as the four gzipped IDX files of
// the original distribution at the root of the file system.
func Subset() fs.FS {
	sub, err := fs.Sub(data, "data")
	if err != nil { // the pattern above is fixed, so this cannot happen
		panic(err)
	}
	return sub
}

// SubsetDir is where the subset lies in the repository.
const SubsetDir = "examples/fashion-mnist/data"
