// Package mnist holds the Bayesian networks of temper bench (the MLP, the
// LSTM and the CNN) and the MNIST subset shipped with them, embedded so
// that the temper command finds them from any folder.
package mnist

import (
	"embed"
	"io/fs"
)

// Model is the source of model.ppl.
//
//go:embed model.ppl
var Model string

// LSTM is the source of lstm.ppl.
//
//go:embed lstm.ppl
var LSTM string

// CNN is the source of cnn.ppl.
//
//go:embed cnn.ppl
var CNN string

//go:embed data/*.gz
var data embed.FS

// Subset is the shipped subset of MNIST: the first 2,000 training and 500
// test images and their labels, as the four gzipped IDX files of the
// original distribution at the root of the file system.
func Subset() fs.FS {
	sub, err := fs.Sub(data, "data")
	if err != nil { // the pattern above is fixed, so this cannot happen
		panic(err)
	}
	return sub
}

// SubsetDir is where the subset lies in the repository.
const SubsetDir = "examples/mnist/data"
