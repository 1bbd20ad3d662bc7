package fashionmnist

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
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

// The files' names as Zalando distributes them, gzipped, the same as
// MNIST's.
const (
	trainImages = "train-images-idx3-ubyte.gz"
	trainLabels = "train-labels-idx1-ubyte.gz"
	testImages  = "t10k-images-idx3-ubyte.gz"
	testLabels  = "t10k-labels-idx1-ubyte.gz"
)

// Load reads the first train training and the first test test images of
// the four files in dir, or of the shipped subset (Subset) when dir is
// empty. Asking for more images than the files hold is an error.
func Load(dir string, train, test int) (*Data, error) {
	fsys, shown := Subset(), SubsetDir
	if dir != "" {
		fsys, shown = os.DirFS(dir), dir
	}
	tr, err := readSet(fsys, shown, trainImages, trainLabels, train)
	if err != nil {
		return nil, err
	}
	te, err := readSet(fsys, shown, testImages, testLabels, test)
	if err != nil {
		return nil, err
	}
	return &Data{Train: tr, Test: te}, nil
}

// readSet reads the first n images and labels of one pair of IDX files.
func readSet(fsys fs.FS, dir, images, labels string, n int) (*Set, error) {
	raw, err := readIDX(fsys, dir, images, 0x803, []int{28, 28}, n)
	if err != nil {
		return nil, err
	}
	s := &Set{N: n, Pixels: make([]float64, len(raw)), Labels: make([]int, n)}
	for i, b := range raw {
		s.Pixels[i] = float64(b) / 255
	}
	if raw, err = readIDX(fsys, dir, labels, 0x801, nil, n); err != nil {
		return nil, err
	}
	for i, b := range raw {
		if b > 9 {
			return nil, fmt.Errorf("%s: label %d of item %d is not a class 0-9", filepath.Join(dir, labels), b, i+1)
		}
		s.Labels[i] = int(b) + 1
	}
	return s, nil
}

// readIDX reads the first n items of a gzipped IDX file of unsigned bytes
// (magic 0x801 for labels, 0x803 for images) whose items have the shape
// item.
func readIDX(fsys fs.FS, dir, name string, magic uint32, item []int, n int) ([]byte, error) {
	shown := filepath.Join(dir, name)
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("Fashion-MNIST: %s: %w", shown, errors.Unwrap(err))
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", shown, err)
	}
	head := make([]uint32, 2+len(item))
	if err := binary.Read(z, binary.BigEndian, head); err != nil {
		return nil, fmt.Errorf("%s: truncated IDX header: %v", shown, err)
	}
	if head[0] != magic {
		return nil, fmt.Errorf("%s: magic number %#08x, want %#08x", shown, head[0], magic)
	}
	size := 1
	for i, d := range item {
		if int(head[2+i]) != d {
			return nil, fmt.Errorf("%s: items of shape %v, want %v", shown, head[2:], item)
		}
		size *= d
	}
	if n <= 0 || n > int(head[1]) {
		return nil, fmt.Errorf("%s holds %d items: cannot read %d", shown, head[1], n)
	}
	buf := make([]byte, n*size)
	if _, err := io.ReadFull(z, buf); err != nil {
		return nil, fmt.Errorf("%s: truncated after its header's %d items: %v", shown, head[1], err)
	}
	return buf, nil
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
