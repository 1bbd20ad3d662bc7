package fashionmnist

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/temper-ppl/temper/examples/mnist/idx"
)

// Set is a set of labelled 28 × 28 images.
type Set struct {
	N      int
	Pixels []float64 // N × 784, row-major, scaled to [0, 1]
	Labels []int     // N labels, 1 to 10 (the IDX files' 0-9 plus 1)
}

// Data are a training and a test set.
type Data struct {
	Train, Test *Set
}

// Load reads the first train training and the first test test images of
// the four IDX files in dir (the names Zalando distributes them under,
// MNIST's, raw or gzipped), or of the shipped subset (Subset) when dir is
// empty. Asking for more images than the files hold, or for none, is an
// error.
func Load(dir string, train, test int) (*Data, error) {
	if train <= 0 || test <= 0 {
		return nil, fmt.Errorf("Fashion-MNIST: %d training and %d test images: need at least one of each", train, test)
	}
	fsys, shown := Subset(), SubsetDir
	if dir != "" {
		fsys, shown = os.DirFS(dir), dir
	}
	d, err := idx.LoadFirst(fsys, shown, train, test)
	if err != nil {
		return nil, fmt.Errorf("Fashion-MNIST: %w", err)
	}
	if d.Train.Rows != 28 || d.Train.Cols != 28 {
		return nil, fmt.Errorf("Fashion-MNIST: %s holds images of %d × %d pixels, not 28 × 28", shown, d.Train.Rows, d.Train.Cols)
	}
	return &Data{Train: oneBased(d.Train), Test: oneBased(d.Test)}, nil
}

// oneBased is s with its labels counted from 1, as the models' categorical
// takes them.
func oneBased(s *idx.Set) *Set {
	out := &Set{N: s.N, Pixels: s.Pixels, Labels: make([]int, s.N)}
	for i, l := range s.Labels {
		out.Labels[i] = l + 1
	}
	return out
}

// PermuteLabels returns a copy of labels in which a fraction of the rows,
// drawn at random, have their labels shuffled among themselves: seed 001's
// "random permutation applied to a percentage of the training labels"
// (Section 4.2), which makes the labels noisier without changing how many
// of each class there are. The paper permutes anew at every epoch; this
// permutation is drawn once, from seed, for the whole run (the samplers
// draw their minibatches inside temper, which has no hook between
// epochs).
func PermuteLabels(labels []int, fraction float64, seed uint64) []int {
	out := append([]int(nil), labels...)
	k := int(fraction*float64(len(labels)) + 0.5)
	if k < 2 {
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rows := rng.Perm(len(labels))[:k] // the rows whose labels move
	moved := make([]int, k)
	for i, r := range rows {
		moved[i] = labels[r]
	}
	rng.Shuffle(k, func(i, j int) { moved[i], moved[j] = moved[j], moved[i] })
	for i, r := range rows {
		out[r] = moved[i]
	}
	return out
}
