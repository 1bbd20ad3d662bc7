package compile_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang"
)

// pythonWithNumPy returns a python3 that imports NumPy: the one on PATH,
// else Debian's (a pyenv shim on PATH may lack it). It skips the test when
// there is none, and fails it instead under CI=true, where .ci/run
// installs python3-numpy.
func pythonWithNumPy(t *testing.T) string {
	t.Helper()
	var last error
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if last = exec.Command(py, "-c", "import numpy").Run(); last == nil {
			return py
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("python3 with NumPy is needed (CI=true; .ci/run installs python3-numpy): %v", last)
	}
	t.Skipf("python3 with NumPy is not installed (apt-get install python3-numpy): %v", last)
	return ""
}

// TestNumPyFiles has NumPy itself write arrays of every numeric dtype, in
// C and Fortran order, big- and little-endian, to .npy, .npz and a
// compressed .npz, and reads them back: the values, the shape (row-major)
// and the field names must be NumPy's.
func TestNumPyFiles(t *testing.T) {
	py := pythonWithNumPy(t)
	dir := t.TempDir()
	script := `
import numpy as np, sys
d = sys.argv[1]
x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 8 - 1
np.save(d + "/x.npy", x)
np.save(d + "/xf.npy", np.asfortranarray(x))
np.save(d + "/xbe.npy", x.astype(">f8"))
np.save(d + "/x32.npy", x.astype(np.float32))
for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
    np.save(d + "/k_" + t + ".npy", (np.arange(6) * 3).reshape(2, 3).astype(t))
np.save(d + "/neg.npy", np.array([-5, 7, -128], dtype=np.int8))
np.save(d + "/flag.npy", np.array([True, False, True]))
np.save(d + "/scalar.npy", np.float64(2.5))
np.savez(d + "/both.npz", y=np.array([1, 0, 1], dtype=np.int64), X=x[0])
np.savez_compressed(d + "/packed.npz", y=np.array([1.5, 2.5]))
np.save(d + "/c.npy", np.array([1 + 2j]))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	want := make([]float64, 24)
	for i := range want {
		want[i] = float64(i)/8 - 1
	}
	read := func(name string) compile.Data {
		t.Helper()
		d, err := compile.ReadDataFile(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return d
	}
	for _, name := range []string{"x", "xf", "xbe", "x32"} {
		v := read(name + ".npy")[name]
		if v == nil || !slices.Equal(v.Shape, []int{2, 3, 4}) || !slices.Equal(v.Values, want) {
			t.Errorf("%s.npy: %+v, want shape [2 3 4] and 0/8-1 ... 23/8-1", name, v)
		}
	}
	// Integers up to 4 bytes are kept in their own type (int32 for u2's
	// values would be wider); the 4-byte unsigned and 8-byte ones, which
	// may exceed an int32, as float64s.
	stored := map[string]string{"i1": "int8", "i2": "int16", "i4": "int32", "u1": "uint8", "u2": "uint16", "i8": "<nil>", "u4": "<nil>", "u8": "<nil>"}
	for tp, kind := range stored {
		v := read("k_" + tp + ".npy")["k_"+tp]
		if v == nil || !slices.Equal(v.Shape, []int{2, 3}) || !slices.Equal(v.Float64s(), []float64{0, 3, 6, 9, 12, 15}) {
			t.Errorf("%s: %+v", tp, v)
		}
		if got := fmt.Sprintf("%T", v.Stored); !strings.Contains(got, "["+kind+"]") && !(kind == "<nil>" && v.Stored == nil) {
			t.Errorf("%s is kept as %s, want %s", tp, got, kind)
		}
	}
	if v := read("neg.npy")["neg"]; !slices.Equal(v.Float64s(), []float64{-5, 7, -128}) {
		t.Errorf("int8: %v", v.Float64s())
	}
	if v := read("flag.npy")["flag"]; !slices.Equal(v.Float64s(), []float64{1, 0, 1}) {
		t.Errorf("bool: %v", v.Float64s())
	}
	if v := read("scalar.npy")["scalar"]; len(v.Shape) != 0 || !slices.Equal(v.Values, []float64{2.5}) {
		t.Errorf("scalar: %+v", v)
	}
	both := read("both.npz")
	if y, x := both["y"], both["X"]; y == nil || x == nil || !slices.Equal(y.Float64s(), []float64{1, 0, 1}) || !slices.Equal(x.Shape, []int{3, 4}) || !slices.Equal(x.Values, want[:12]) {
		t.Errorf("both.npz: %v", both)
	}
	if y := read("packed.npz")["y"]; y == nil || !slices.Equal(y.Values, []float64{1.5, 2.5}) {
		t.Errorf("packed.npz: %v", y)
	}
	if _, err := compile.ReadDataFile(filepath.Join(dir, "c.npy"), nil); err == nil || !strings.Contains(err.Error(), "complex numbers") {
		t.Errorf("a complex array: %v", err)
	}
}

// npyBytes builds a version 1.0 .npy file by hand.
func npyBytes(header string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(body)
	return b.Bytes()
}

// TestNumPyErrors: malformed files get errors that say what is wrong, and
// a model bound to .npy data binds it like any other.
func TestNumPyErrors(t *testing.T) {
	dir := t.TempDir()
	f8 := func(xs ...float64) []byte {
		var b bytes.Buffer
		for _, x := range xs {
			binary.Write(&b, binary.LittleEndian, math.Float64bits(x))
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"magic.npy", []byte("not numpy at all"), "not a .npy file"},
		{"short.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8(1, 2)), "needs 24 bytes of elements"},
		{"noshape.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, }", f8(1)), "without descr, fortran_order and shape"},
		{"object.npy", npyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", f8(1)), "Python objects"},
		{"empty.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", nil), "empty"},
		{"huge.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", nil), "more than"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := compile.ReadDataFile(path, nil); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, want an error naming the file and %q", c.name, err, c.want)
		}
	}
	var z bytes.Buffer
	w := zip.NewWriter(&z)
	fw, _ := w.Create("notes.txt")
	fw.Write([]byte("hi"))
	w.Close()
	path := filepath.Join(dir, "mixed.npz")
	os.WriteFile(path, z.Bytes(), 0o644)
	if _, err := compile.ReadDataFile(path, nil); err == nil || !strings.Contains(err.Error(), `member "notes.txt" is not a .npy array`) {
		t.Errorf("a .npz with a text member: %v", err)
	}

	// A model's data from .npy files: y.npy and X.npy bind y and X.
	os.WriteFile(filepath.Join(dir, "y.npy"), npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8(1, 2, 3)), 0o644)
	os.WriteFile(filepath.Join(dir, "X.npy"), npyBytes("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }", f8(1, 2, 3, 4, 5, 6)), 0o644)
	d, err := compile.ReadAll([]string{filepath.Join(dir, "y.npy"), filepath.Join(dir, "X.npy")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x := d["X"]; !slices.Equal(x.Values, []float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("Fortran-ordered X read as %v, want rows (1, 4), (2, 5), (3, 6)", x.Values)
	}
	m, err := tryCompileData(`data { N: int  y: real[N]  X: real[N, 2] }
param { b: real[2] }
model { for n in plate(N) { y[n] ~ normal(dot(X[n], b), 1) } }`, d)
	if err != nil || m.NumData() != 3 {
		t.Errorf("a model on .npy data: %v", err)
	}
}

// tryCompileData is tryCompile with data already read.
func tryCompileData(src string, d compile.Data) (*compile.Model, error) {
	f, err := lang.Parse("test.ppl", []byte(src))
	if err != nil {
		return nil, err
	}
	if _, err := lang.Check(f, compile.Env()); err != nil {
		return nil, err
	}
	return compile.Compile(f, d)
}

// BenchmarkReadNPY reads a 100,000 × 20 float64 .npy file (16 MB),
// reporting MB/s of the file.
func BenchmarkReadNPY(b *testing.B) {
	const rows, cols = 100000, 20
	body := make([]byte, 8*rows*cols)
	for i := range rows * cols {
		binary.LittleEndian.PutUint64(body[8*i:], math.Float64bits(float64(i)))
	}
	path := filepath.Join(b.TempDir(), "X.npy")
	raw := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 20), }", body)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for range b.N {
		if _, err := compile.ReadDataFile(path, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNumPyMapped: a float64 array in C order is memory-mapped (here with
// the size threshold lowered) and gives the values of one read, and a
// model compiled on it the same energy; a float32 or Fortran-ordered one is
// read. (On a system without mmap every array is read.)
func TestNumPyMapped(t *testing.T) {
	defer compile.SetMapMin(0)()
	dir := t.TempDir()
	xs := make([]float64, 600)
	for i := range xs {
		xs[i] = float64(i%37)/10 - 1.5
	}
	var body bytes.Buffer
	for _, x := range xs {
		binary.Write(&body, binary.LittleEndian, math.Float64bits(x))
	}
	// NumPy pads the header so that the elements start at a multiple of 64.
	header := "{'descr': '<f8', 'fortran_order': False, 'shape': (300, 2), }"
	header += strings.Repeat(" ", 64-(10+len(header)+1)%64) + "\n"
	os.WriteFile(filepath.Join(dir, "X.npy"), npyBytes(header, body.Bytes()), 0o644)
	os.WriteFile(filepath.Join(dir, "F.npy"), npyBytes(strings.Replace(header, "False", "True", 1), body.Bytes()), 0o644)
	d, err := compile.ReadAll([]string{filepath.Join(dir, "X.npy"), filepath.Join(dir, "F.npy")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x := d["X"]; !slices.Equal(x.Values, xs) || !slices.Equal(x.Shape, []int{300, 2}) {
		t.Fatalf("X: shape %v, values differ from the file's", x.Shape)
	}
	if runtime.GOOS != "windows" && !compile.IsMapped(d["X"]) {
		t.Error("a C-ordered float64 array was read, not mapped")
	}
	if compile.IsMapped(d["F"]) {
		t.Error("a Fortran-ordered array was mapped")
	}
	src := `data { N: int  X: real[N, 2] }
param { b: real[2] }
model { for n in plate(N) { target += -0.5 * square(dot(X[n], b) - 1) } }`
	read := compile.Data{"X": &compile.Value{Shape: []int{300, 2}, Values: slices.Clone(xs), Source: "copy"}}
	var energies []float64
	for _, data := range []compile.Data{{"X": d["X"]}, read} {
		m, err := tryCompileData(src, data)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := m.Evaluator(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		e, g, v := make([]float64, 1), make([]float64, 2), make([]float64, 1)
		if err := ev.Evaluate([]float64{0.3, -0.7}, nil, e, g, v); err != nil {
			t.Fatal(err)
		}
		energies = append(energies, e[0])
	}
	if energies[0] != energies[1] {
		t.Errorf("energy %v on the mapped data, %v on a copy", energies[0], energies[1])
	}
}

// TestChunkedPass: a pass over every row of a large data set is made in
// parts of consecutive rows (here parts of 100 rows of 1,003, the last of
// 3), whose energies and gradients, weighted by their share of the rows,
// add up to one pass's to rounding (1e-12 relative), for two replicas at
// different points; the int outcome is kept as uint8 (int<lower=0,
// upper=1>).
func TestChunkedPass(t *testing.T) {
	const n = 1003
	x, y := make([][]float64, n), make([]int, n)
	for i := range n {
		x[i] = []float64{math.Sin(float64(i)), math.Cos(3 * float64(i))}
		y[i] = i % 3 % 2
	}
	data, err := compile.FromGo(map[string]any{"X": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	src := `data { N: int  X: real[N, 2]  y: int<lower=0, upper=1>[N] }
param { a: real  b: real[2] }
model {
  a ~ normal(0, 1)
  b ~ normal(0, 1)
  for n in plate(N) { y[n] ~ bernoulli_logit(a + dot(X[n], b)) }
}`
	m, err := tryCompileData(src, data)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.2, -0.5, 0.9, -1, 0.3, 0.1}
	pass := func() ([]float64, []float64) {
		ev, err := m.Evaluator(2, 0)
		if err != nil {
			t.Fatal(err)
		}
		e, g, v := make([]float64, 2), make([]float64, 6), make([]float64, 2)
		if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
			t.Fatal(err)
		}
		return e, g
	}
	e1, g1 := pass()
	restore := compile.SetChunkRows(100)
	e2, g2 := pass()
	restore()
	for i := range e1 {
		if math.Abs(e2[i]-e1[i]) > 1e-12*math.Abs(e1[i]) {
			t.Errorf("replica %d: energy %v in parts, %v in one pass", i, e2[i], e1[i])
		}
	}
	for i := range g1 {
		if math.Abs(g2[i]-g1[i]) > 1e-12*(1+math.Abs(g1[i])) {
			t.Errorf("gradient %d: %v in parts, %v in one pass", i, g2[i], g1[i])
		}
	}
}

// TestNarrowInts: int fields are kept in the narrowest type their
// declaration allows (both bounds given), else int32 where the values fit
// it and int64 where not; reals stay float64; the values are unchanged.
func TestNarrowInts(t *testing.T) {
	data, err := compile.FromGo(map[string]any{
		"a": []int{0, 1, 1}, "b": []int{200, 0, 255}, "c": []int{-3, 30000, 7}, "d": []int{1, 2, 3},
		"e": []float64{1 << 40, 0, -5}, "x": []float64{0.5, 1, 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := tryCompileData(`data { N: int  a: int<lower=0, upper=1>[N]  b: int<lower=0, upper=255>[N]  c: int<lower=-5, upper=40000>[N]
  d: int[N]  e: int[N]  x: real[N] }
param { mu: real }
model { for n in plate(N) { x[n] ~ normal(mu + a[n] + b[n] + c[n] + d[n] + e[n], 1) } }`, data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "int8", "b": "uint8", "c": "int32", "d": "int32", "e": "int64", "x": "float64"}
	for name, typ := range want {
		if got := compile.StoredType(m, name); !strings.Contains(got, typ) {
			t.Errorf("%s is kept as %s, want %s", name, got, typ)
		}
	}
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, g, v := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	if err := ev.Evaluate([]float64{0}, nil, e, g, v); err != nil {
		t.Fatal(err)
	}
	// x - (a+b+c+d+e): rows -0.5-201-(-3)... computed here in float64.
	sums := []float64{0 + 200 - 3 + 1 + (1 << 40), 1 + 0 + 30000 + 2 + 0, 1 + 255 + 7 + 3 - 5}
	xs := []float64{0.5, 1, 2}
	want0 := 0.0
	for i, s := range sums {
		r := xs[i] - s
		want0 += 0.5*r*r + 0.5*math.Log(2*math.Pi)
	}
	if math.Abs(e[0]-want0) > 1e-9*want0 {
		t.Errorf("energy %v, want %v", e[0], want0)
	}
}
