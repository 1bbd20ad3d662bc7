package fashionmnist_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	fashionmnist "github.com/temper-ppl/temper/examples/fashion-mnist"
)

// TestSubset reads the shipped subset: 1,024 training and 500 test images
// with labels 1-10, every class present, pixels in [0, 1]; asking for more
// images than a file holds is an error naming the file.
func TestSubset(t *testing.T) {
	d, err := fashionmnist.Load("", 1024, 500)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*fashionmnist.Set{d.Train, d.Test} {
		if len(s.Pixels) != s.N*784 || len(s.Labels) != s.N {
			t.Fatalf("%d images: %d pixels, %d labels", s.N, len(s.Pixels), len(s.Labels))
		}
		for _, p := range s.Pixels {
			if p < 0 || p > 1 {
				t.Fatalf("pixel %v", p)
			}
		}
		for k := 1; k <= 10; k++ {
			if !slices.Contains(s.Labels, k) {
				t.Errorf("no image of class %d among %d", k, s.N)
			}
		}
	}
	if _, err := fashionmnist.Load("", 1025, 500); err == nil || !strings.Contains(err.Error(), "train-images-idx3-ubyte.gz holds 1024 items") {
		t.Errorf("1,025 training images of 1,024: %v", err)
	}
	if _, err := fashionmnist.Load(t.TempDir(), 10, 10); err == nil || !strings.Contains(err.Error(), "train-images-idx3-ubyte.gz") {
		t.Errorf("an empty folder: %v", err)
	}
}

// TestPermuteLabels: 20% of the rows take part in the shuffle, so at most
// that share of labels changes (a row may draw its own label back), most
// of them do, and every class keeps its count; 0% changes nothing.
func TestPermuteLabels(t *testing.T) {
	d, err := fashionmnist.Load("", 1024, 1)
	if err != nil {
		t.Fatal(err)
	}
	labels := d.Train.Labels
	if got := fashionmnist.PermuteLabels(labels, 0, 1); !slices.Equal(got, labels) {
		t.Error("0% permuted changed labels")
	}
	got := fashionmnist.PermuteLabels(labels, 0.2, 1)
	changed := 0
	for i := range labels {
		if got[i] != labels[i] {
			changed++
		}
	}
	// 205 rows shuffled; about 10% of them keep their class by chance.
	if changed > 205 || changed < 150 {
		t.Errorf("%d of %d labels changed, want about 185", changed, len(labels))
	}
	count := func(ls []int) (c [11]int) {
		for _, l := range ls {
			c[l]++
		}
		return c
	}
	if count(got) != count(labels) {
		t.Errorf("class counts %v, were %v", count(got), count(labels))
	}
	if again := fashionmnist.PermuteLabels(labels, 0.2, 1); !slices.Equal(again, got) {
		t.Error("the same seed permuted differently")
	}
}

// TestComparison runs the comparison of the gallery pages smaller: the
// six samplers on the shipped subset (1,024 training and 500 test images,
// 20% of the labels permuted), an LSTM of 16 units for 16 epochs (3 rungs
// for the replica-exchange samplers), at the paper's step on the mean
// loss. Each sampler's model average must classify well above chance
// (10%; with 500 images its standard error is 1.3 points, so 15% is
// nearly 4 of them above), and each run must save its draws and
// result.json. The CNN takes one SGHMC run at the CNN page's step on the
// mean loss (5e-6 on 10,240 rows is 5e-5 on 1,024).
func TestComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s")
	}
	common := []string{"--train", "1024", "--test", "500", "--hidden", "16", "--epochs", "16", "--draws", "4", "--permuted", "0.2", "--threads", "2"}
	type run struct {
		label string
		args  []string
	}
	var runs []run
	for _, s := range fashionmnist.Samplers(fashionmnist.PaperStep(1024), 3, 8) {
		runs = append(runs, run{s.Label, append(slices.Clone(common), s.Args...)})
	}
	runs = append(runs, run{"CNN, SGHMC", []string{"--model", "cnn", "--channels", "4", "--train", "1024", "--test", "500",
		"--epochs", "6", "--draws", "4", "--sampler", "sghmc", "--set", "lr=5e-5", "--threads", "2"}})
	for _, r := range runs {
		dir := t.TempDir()
		var stdout, stderr strings.Builder
		if err := fashionmnist.Main(context.Background(), append(r.args, "--out", dir), &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", r.label, err, stderr.String())
		}
		raw, err := os.ReadFile(filepath.Join(dir, fashionmnist.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		var o fashionmnist.Outcome
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: accuracy %.3f, NLL %.3f, %d draws, %d replicas, %.1f s", r.label, o.Accuracy, o.NLL, o.Draws, o.Replicas, o.Seconds)
		if o.Accuracy < 0.15 || o.Draws < 2 {
			t.Errorf("%s: accuracy %.3f of the model average over %d draws, want above 0.15 (chance: 0.10)", r.label, o.Accuracy, o.Draws)
		}
		if o.NLL >= 2.35 { // log 10 = 2.30 is a uniform guess
			t.Errorf("%s: NLL %.3f, no better than a uniform guess", r.label, o.NLL)
		}
		for _, f := range []string{"draws.csv", "summary.csv", "diagnostics.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", r.label, err)
			}
		}
	}
}

// TestMainErrors: bad flags are errors, not panics.
func TestMainErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--model", "mlp"},
		{"--permuted", "1.5"},
		{"--epochs", "0"},
		{"--train", "100"}, // fewer images than a minibatch of 128
		{"--sampler", "nosuch"},
		{"extra"},
	} {
		var so, se strings.Builder
		if err := fashionmnist.Main(context.Background(), args, &so, &se); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
