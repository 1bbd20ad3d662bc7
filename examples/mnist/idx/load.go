package idx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Set is a set of labelled images.
type Set struct {
	N          int       // images
	Rows, Cols int       // pixels per image
	Pixels     []float64 // N × Rows·Cols, row-major, in [0, 1]
	Labels     []int     // N classes, 0 to 9
}

// Dim is the number of pixels of an image.
func (s *Set) Dim() int { return s.Rows * s.Cols }

// Head is the first n images (all of them if n ≤ 0 or n ≥ N), sharing s's
// memory.
func (s *Set) Head(n int) *Set {
	if n <= 0 || n >= s.N {
		return s
	}
	h := *s
	h.N, h.Pixels, h.Labels = n, s.Pixels[:n*s.Dim()], s.Labels[:n]
	return &h
}

// Data are a training and a test set.
type Data struct {
	Train, Test *Set
}

// The files' names as distributed, each also accepted with a .gz suffix.
const (
	TrainImages = "train-images-idx3-ubyte"
	TrainLabels = "train-labels-idx1-ubyte"
	TestImages  = "t10k-images-idx3-ubyte"
	TestLabels  = "t10k-labels-idx1-ubyte"
)

// Load reads the four files from the folder dir.
func Load(dir string) (*Data, error) {
	if err := isFolder(dir); err != nil {
		return nil, err
	}
	return LoadFS(os.DirFS(dir), dir)
}

// isFolder checks that dir is a folder, for a message that says so.
func isFolder(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data folder %s: %w", dir, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return fmt.Errorf("data folder %s: not a folder", dir)
	}
	return nil
}

// LoadFS reads the four files from the root of fsys; dir names that root
// in error messages.
func LoadFS(fsys fs.FS, dir string) (*Data, error) { return LoadFirst(fsys, dir, 0, 0) }

// LoadFirst reads the first train training and test test images and
// labels from the root of fsys (all of a set where its count is 0),
// leaving the rest of the files unread.
func LoadFirst(fsys fs.FS, dir string, train, test int) (*Data, error) {
	tr, err := readSet(fsys, dir, TrainImages, TrainLabels, train)
	if err != nil {
		return nil, err
	}
	te, err := readSet(fsys, dir, TestImages, TestLabels, test)
	if err != nil {
		return nil, err
	}
	if te.Rows != tr.Rows || te.Cols != tr.Cols {
		return nil, fmt.Errorf("data folder %s: training images are %d × %d, test images %d × %d", dir, tr.Rows, tr.Cols, te.Rows, te.Cols)
	}
	return &Data{Train: tr, Test: te}, nil
}

func readSet(fsys fs.FS, dir, images, labels string, first int) (*Set, error) {
	var s Set
	err := withFile(fsys, dir, images, func(f fs.File, name string) (err error) {
		s.N, s.Rows, s.Cols, s.Pixels, err = Images(f, name, first)
		return err
	})
	if err != nil {
		return nil, err
	}
	var labelsName string
	err = withFile(fsys, dir, labels, func(f fs.File, name string) (err error) {
		labelsName = name
		s.Labels, err = Labels(f, name, first)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(s.Labels) != s.N {
		return nil, fmt.Errorf("%s has %d labels for %d images", labelsName, len(s.Labels), s.N)
	}
	return &s, nil
}

// withFile opens stem or stem.gz in fsys and calls read with the file and
// its name as shown to the user (within dir).
func withFile(fsys fs.FS, dir, stem string, read func(fs.File, string) error) error {
	for _, name := range []string{stem + ".gz", stem} {
		f, err := fsys.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		shown := filepath.Join(dir, filepath.FromSlash(path.Clean(name)))
		if err != nil {
			return fmt.Errorf("%s: %w", shown, errors.Unwrap(err))
		}
		defer f.Close()
		return read(f, shown)
	}
	return fmt.Errorf("data folder %s has no %s or %s.gz", dir, stem, stem)
}
