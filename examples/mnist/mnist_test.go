package mnist_test

import (
	"compress/gzip"
	"encoding/binary"
	"io/fs"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/examples/mnist"
)

// TestSubset checks the shipped files' headers: 2,000 training and 500
// test images of 28 × 28 pixels with as many labels.
func TestSubset(t *testing.T) {
	want := map[string][]uint32{
		"train-images-idx3-ubyte.gz": {0x803, 2000, 28, 28},
		"train-labels-idx1-ubyte.gz": {0x801, 2000},
		"t10k-images-idx3-ubyte.gz":  {0x803, 500, 28, 28},
		"t10k-labels-idx1-ubyte.gz":  {0x801, 500},
	}
	for name, head := range want {
		f, err := mnist.Subset().Open(name)
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := make([]uint32, len(head))
		if err := binary.Read(z, binary.BigEndian, got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range head {
			if got[i] != head[i] {
				t.Errorf("%s: header %v, want %v", name, got, head)
				break
			}
		}
		f.Close()
	}
	files, _ := fs.Glob(mnist.Subset(), "*")
	if len(files) != len(want) {
		t.Errorf("the subset holds %v", files)
	}
}

// TestModel compiles model.ppl on two blank images: the network has 79,510
// parameters, W1, b1, W2 and b2 in that order.
func TestModel(t *testing.T) {
	x := [][]float64{make([]float64, 784), make([]float64, 784)}
	m, err := temper.Compile("model.ppl", mnist.Model, map[string]any{"H": 100, "K": 10, "X": x, "label": []int{1, 10}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 79510 {
		t.Errorf("%d parameters, want 79510", m.Dim())
	}
	var names []string
	for _, p := range m.Params() {
		names = append(names, p.Name)
	}
	if len(names) != 4 || names[0] != "W1" || names[1] != "b1" || names[2] != "W2" || names[3] != "b2" {
		t.Errorf("parameters %v", names)
	}
}
