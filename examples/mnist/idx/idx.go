// Package idx reads labelled images from the IDX files MNIST and
// Fashion-MNIST are distributed in, for temper bench and the examples.
//
// The four files (train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte) may be raw or gzipped
// (a .gz suffix, detected by content rather than by name). Pixels are
// scaled from 0-255 to [0, 1], as the PyTorch peers of the benchmark scale
// them, so that both sample the same posterior.
package idx

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The magic numbers of the IDX files MNIST uses: unsigned bytes, with three
// dimensions (images) or one (labels).
const (
	imagesMagic = 0x00000803
	labelsMagic = 0x00000801
)

// Classes is the number of classes of both data sets; a label is in
// 0 ≤ label < Classes.
const Classes = 10

// maxItems bounds the item count of a header, so that a corrupt header is
// reported rather than answered by a huge allocation.
const maxItems = 1 << 24

// Images reads an IDX image file (magic 0x803) from r, gzipped or not: n
// images of rows × cols pixels, row-major, scaled to [0, 1]. With first > 0
// it reads only the first images, which the file must hold, and leaves the
// rest unread; otherwise all of them, and nothing may follow. name is the
// file's name in error messages.
func Images(r io.Reader, name string, first int) (n, rows, cols int, pixels []float64, err error) {
	br, err := open(r, name)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	head, err := header(br, name, imagesMagic, 3)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	n, rows, cols = head[0], head[1], head[2]
	if rows == 0 || cols == 0 || rows*cols > 1<<16 {
		return 0, 0, 0, nil, fmt.Errorf("%s: images of %d × %d pixels", name, rows, cols)
	}
	if n, err = limit(name, n, first); err != nil {
		return 0, 0, 0, nil, err
	}
	raw, err := body(br, name, n*rows*cols, fmt.Sprintf("%d images of %d × %d", n, rows, cols), first == 0)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	pixels = make([]float64, len(raw))
	for i, b := range raw {
		pixels[i] = float64(b) / 255
	}
	return n, rows, cols, pixels, nil
}

// Labels reads an IDX label file (magic 0x801) from r, gzipped or not, all
// of it or the first labels as Images reads images; each label must be a
// class, 0 to 9.
func Labels(r io.Reader, name string, first int) ([]int, error) {
	br, err := open(r, name)
	if err != nil {
		return nil, err
	}
	head, err := header(br, name, labelsMagic, 1)
	if err != nil {
		return nil, err
	}
	n, err := limit(name, head[0], first)
	if err != nil {
		return nil, err
	}
	raw, err := body(br, name, n, fmt.Sprintf("%d labels", n), first == 0)
	if err != nil {
		return nil, err
	}
	labels := make([]int, len(raw))
	for i, b := range raw {
		if int(b) >= Classes {
			return nil, fmt.Errorf("%s: label %d of item %d is not a class 0-9", name, b, i+1)
		}
		labels[i] = int(b)
	}
	return labels, nil
}

// open returns r decompressed if it starts with the gzip magic bytes.
func open(r io.Reader, name string) (*bufio.Reader, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return bufio.NewReader(zr), nil
	}
	return br, nil
}

// header reads and checks the magic number, then the dims sizes.
func header(r io.Reader, name string, magic uint32, dims int) ([]int, error) {
	words := make([]uint32, 1+dims)
	if err := binary.Read(r, binary.BigEndian, words); err != nil {
		return nil, fmt.Errorf("%s: truncated IDX header (%d bytes expected): %v", name, 4*len(words), readErr(err))
	}
	if words[0] != magic {
		what := "image"
		if magic == labelsMagic {
			what = "label"
		}
		return nil, fmt.Errorf("%s: bad magic number %#08x: not an IDX %s file (want %#08x)", name, words[0], what, magic)
	}
	out := make([]int, dims)
	for i, w := range words[1:] {
		if w > maxItems {
			return nil, fmt.Errorf("%s: implausible IDX header size %d", name, w)
		}
		out[i] = int(w)
	}
	return out, nil
}

// limit is the items to read of the held: first, which must be at most
// held, or all when first is 0.
func limit(name string, held, first int) (int, error) {
	switch {
	case first < 0:
		return 0, fmt.Errorf("%s: cannot read the first %d items", name, first)
	case first > held:
		return 0, fmt.Errorf("%s holds %d items: cannot read %d", name, held, first)
	case first > 0:
		return first, nil
	}
	return held, nil
}

// body reads exactly n bytes and, when whole, checks that nothing follows
// them: a truncated file, or one longer than its header says, is an error.
func body(r io.Reader, name string, n int, what string, whole bool) ([]byte, error) {
	buf := make([]byte, n)
	got, err := io.ReadFull(r, buf)
	if err != nil {
		return nil, fmt.Errorf("%s: truncated: the header announces %s (%d bytes), the file holds %d: %v", name, what, n, got, readErr(err))
	}
	if !whole {
		return buf, nil
	}
	var extra [1]byte
	switch k, err := r.Read(extra[:]); {
	case k > 0:
		return nil, fmt.Errorf("%s: more data than the header's %s", name, what)
	case err != nil && err != io.EOF: // a gzip stream's checksum and size come last
		return nil, fmt.Errorf("%s: after the %s: %v", name, what, readErr(err))
	}
	return buf, nil
}

// readErr names an early end of the data plainly.
func readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("unexpected end of file")
	}
	return err
}
