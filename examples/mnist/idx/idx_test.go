package idx

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idx is an IDX file: the magic number, the sizes, then the bytes.
func idx(magic uint32, sizes []uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	binary.Write(&b, binary.BigEndian, sizes)
	b.Write(data)
	return b.Bytes()
}

func gz(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeSet writes n images of 2 × 3 pixels (pixel j of image i is
// 10·i + j) and their labels (i mod 10) under dir with the given prefix
// names; gzipped ones get the .gz suffix.
func writeSet(t *testing.T, dir, images, labels string, n int, zip bool) {
	t.Helper()
	pix := make([]byte, 0, n*6)
	lab := make([]byte, 0, n)
	for i := range n {
		for j := range 6 {
			pix = append(pix, byte(10*i+j))
		}
		lab = append(lab, byte(i%10))
	}
	files := map[string][]byte{
		images: idx(imagesMagic, []uint32{uint32(n), 2, 3}, pix),
		labels: idx(labelsMagic, []uint32{uint32(n)}, lab),
	}
	for name, raw := range files {
		if zip {
			name, raw = name+".gz", gz(t, raw)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadRawAndGzip(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, TrainImages, TrainLabels, 12, true) // gzipped
	writeSet(t, dir, TestImages, TestLabels, 4, false)   // raw
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train.N != 12 || d.Test.N != 4 || d.Train.Rows != 2 || d.Train.Cols != 3 || d.Train.Dim() != 6 {
		t.Fatalf("sizes: train %d × %d × %d, test %d", d.Train.N, d.Train.Rows, d.Train.Cols, d.Test.N)
	}
	// Pixel j of image i was 10·i + j out of 255.
	for _, c := range []struct{ i, j int }{{0, 0}, {3, 5}, {11, 2}} {
		got, want := d.Train.Pixels[c.i*6+c.j], float64(10*c.i+c.j)/255
		if got != want {
			t.Errorf("train pixel %d of image %d = %v, want %v", c.j, c.i, got, want)
		}
	}
	if d.Train.Labels[11] != 1 || d.Test.Labels[3] != 3 {
		t.Errorf("labels: train %v, test %v", d.Train.Labels, d.Test.Labels)
	}
	h := d.Train.Head(5)
	if h.N != 5 || len(h.Pixels) != 30 || len(h.Labels) != 5 || d.Train.N != 12 {
		t.Errorf("Head(5): N %d, %d pixels, %d labels", h.N, len(h.Pixels), len(h.Labels))
	}
	if d.Train.Head(0) != d.Train || d.Train.Head(50) != d.Train {
		t.Error("Head(0) and Head(more than N) should be the whole set")
	}
}

// TestErrors checks that each kind of bad file is named, with what is wrong.
func TestErrors(t *testing.T) {
	good := idx(imagesMagic, []uint32{2, 2, 3}, make([]byte, 12))
	noise := make([]byte, 2400) // compresses poorly, so that half the stream is half the pixels
	for i := range noise {
		noise[i] = byte(i * i * 7919 >> 3)
	}
	big := idx(imagesMagic, []uint32{400, 2, 3}, noise)
	cases := []struct {
		name string
		file []byte // the training images file
		want string
	}{
		{"bad magic", idx(labelsMagic, []uint32{2, 2, 3}, make([]byte, 12)), "bad magic number 0x00000801: not an IDX image file (want 0x00000803)"},
		{"truncated body", good[:len(good)-5], "truncated: the header announces 2 images of 2 × 3 (12 bytes), the file holds 7"},
		{"truncated gzip", gz(t, good)[:30], "after the 2 images of 2 × 3: unexpected end of file"},
		{"truncated gzip body", gz(t, big)[:len(gz(t, big))/2], "truncated: the header announces 400 images of 2 × 3 (2400 bytes)"},
		{"truncated header", good[:9], "truncated IDX header"},
		{"trailing bytes", append(good, 1, 2), "more data than the header's 2 images"},
		{"empty", nil, "truncated IDX header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSet(t, dir, TrainImages, TrainLabels, 2, false)
			writeSet(t, dir, TestImages, TestLabels, 2, false)
			if err := os.WriteFile(filepath.Join(dir, TrainImages), c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), TrainImages) {
				t.Fatalf("got %v, want an error naming %s and saying %q", err, TrainImages, c.want)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "nowhere")); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing folder: %v", err)
	}
	writeSet(t, dir, TrainImages, TrainLabels, 2, true)
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "has no t10k-images-idx3-ubyte or t10k-images-idx3-ubyte.gz") {
		t.Errorf("missing test images: %v", err)
	}
}

func TestMismatch(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, TrainImages, TrainLabels, 3, false)
	writeSet(t, dir, TestImages, TestLabels, 2, false)
	lab := idx(labelsMagic, []uint32{2}, []byte{1, 2})
	if err := os.WriteFile(filepath.Join(dir, TrainLabels), lab, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "has 2 labels for 3 images") {
		t.Errorf("label count: %v", err)
	}
	lab = idx(labelsMagic, []uint32{3}, []byte{1, 12, 2})
	if err := os.WriteFile(filepath.Join(dir, TrainLabels), lab, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "label 12 of item 2 is not a class 0-9") {
		t.Errorf("bad label: %v", err)
	}
}

// TestLoadFirst reads the first images of each set, which leaves the rest
// unread (a file's trailing bytes then pass unseen), and refuses more
// images than a file holds.
func TestLoadFirst(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, TrainImages, TrainLabels, 5, true)
	writeSet(t, dir, TestImages, TestLabels, 3, false)
	d, err := LoadFirst(os.DirFS(dir), dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train.N != 2 || len(d.Train.Pixels) != 12 || len(d.Train.Labels) != 2 || d.Test.N != 3 {
		t.Fatalf("read %d training images (%d pixels, %d labels) and %d test images, want 2 (12, 2) and 3",
			d.Train.N, len(d.Train.Pixels), len(d.Train.Labels), d.Test.N)
	}
	if d.Train.Pixels[11] != 15.0/255 || d.Train.Labels[1] != 1 {
		t.Errorf("image 2's last pixel %v and label %d, want 15/255 and 1", d.Train.Pixels[11], d.Train.Labels[1])
	}
	if _, err := LoadFirst(os.DirFS(dir), dir, 6, 1); err == nil || !strings.Contains(err.Error(), "holds 5 items: cannot read 6") {
		t.Errorf("six of five images: %v", err)
	}
}
