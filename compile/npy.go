package compile

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
)

// NumPy's binary formats (numpy.lib.format): a .npy file is one array, a
// magic string, a version, a header that is a Python dict literal
// ({'descr': '<f8', 'fortran_order': False, 'shape': (1000, 20), }) and the
// raw elements; a .npz file is a zip of .npy files, one per array, named
// after it (numpy.savez, or savez_compressed with deflate). A .npy file
// binds the data field named after the file (X.npy binds X), a .npz file
// one field per member.

// npyMagic opens every .npy file.
const npyMagic = "\x93NUMPY"

// ReadNPY reads a .npy file as the data field named after the file. A
// large float64 array in C order (64 MB or more, little-endian on a
// little-endian machine) is memory-mapped instead of read (mapNPY, on
// Unix): its values are the file's pages, read from the page cache as the
// model touches them, so that data larger than memory can be sampled.
func ReadNPY(path string) (Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	h, err := readNPYHeader(f, path)
	if err != nil {
		return nil, err
	}
	if h.mappable() {
		if values, ok := mapNPY(f, h.offset, h.size); ok {
			return Data{name: &Value{Shape: h.shape, Values: values, Source: path}}, nil
		}
	}
	v, err := h.read(f, path)
	if err != nil {
		return nil, err
	}
	return Data{name: v}, nil
}

// mapMin is the smallest array ReadNPY maps rather than reads.
var mapMin = 64 << 20

// ReadNPZ reads a .npz file: each member X.npy is the data field X.
func ReadNPZ(path string) (Data, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) file: %v", path, err)
	}
	defer z.Close()
	data := Data{}
	for _, member := range z.File {
		name := strings.TrimSuffix(member.Name, ".npy")
		if name == member.Name {
			return nil, fmt.Errorf("%s: member %q is not a .npy array", path, member.Name)
		}
		r, err := member.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: member %q: %v", path, member.Name, err)
		}
		v, err := readNPY(r, fmt.Sprintf("%s (%s)", path, member.Name))
		r.Close()
		if err != nil {
			return nil, err
		}
		data[name] = v
	}
	return data, nil
}

// npyHeader is what a .npy header says.
var (
	npyDescrRE   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortranRE = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShapeRE   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// npyArray is what a .npy header says, and where the elements begin.
type npyArray struct {
	descr   string
	fortran bool
	shape   []int
	size    int
	offset  int64 // the bytes before the elements
}

// readNPY reads one array from r; source names it in errors.
func readNPY(r io.Reader, source string) (*Value, error) {
	h, err := readNPYHeader(r, source)
	if err != nil {
		return nil, err
	}
	return h.read(r, source)
}

// readNPYHeader reads the magic string, version and header from r.
func readNPYHeader(r io.Reader, source string) (npyArray, error) {
	var h npyArray
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || string(pre[:6]) != npyMagic {
		return h, fmt.Errorf("%s: not a .npy file (no NumPy magic string)", source)
	}
	var headerLen int
	switch major := pre[6]; major {
	case 1:
		var n uint16
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return h, fmt.Errorf("%s: truncated header", source)
		}
		headerLen, h.offset = int(n), 10+int64(n)
	case 2, 3:
		var n uint32
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return h, fmt.Errorf("%s: truncated header", source)
		}
		if n > 1<<20 {
			return h, fmt.Errorf("%s: a header of %d bytes", source, n)
		}
		headerLen, h.offset = int(n), 12+int64(n)
	default:
		return h, fmt.Errorf("%s: .npy format version %d.%d, which temper does not read (1.0 to 3.0)", source, major, pre[7])
	}
	header := make([]byte, headerLen)
	if _, err := io.ReadFull(r, header); err != nil {
		return h, fmt.Errorf("%s: truncated header", source)
	}
	text := string(header)
	descr := npyDescrRE.FindStringSubmatch(text)
	fortran := npyFortranRE.FindStringSubmatch(text)
	shapeText := npyShapeRE.FindStringSubmatch(text)
	if descr == nil || fortran == nil || shapeText == nil {
		return h, fmt.Errorf("%s: a header without descr, fortran_order and shape: %q", source, strings.TrimSpace(text))
	}
	h.descr, h.fortran, h.size = descr[1], fortran[1] == "True", 1
	for _, part := range strings.Split(shapeText[1], ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return h, fmt.Errorf("%s: shape (%s) is not a tuple of sizes", source, shapeText[1])
		}
		if n == 0 {
			return h, fmt.Errorf("%s: the array is empty (shape (%s))", source, shapeText[1])
		}
		if h.size > MaxElements/n {
			return h, fmt.Errorf("%s: shape (%s) has more than %d elements", source, shapeText[1], MaxElements)
		}
		h.size *= n
		h.shape = append(h.shape, n)
	}
	return h, nil
}

// mappable reports whether the elements can be used in place: float64 in
// the machine's byte order, row-major, aligned, and large enough to be
// worth a mapping.
func (h npyArray) mappable() bool {
	little := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	f8 := h.descr == "=f8" || little && h.descr == "<f8" || !little && h.descr == ">f8"
	return f8 && (!h.fortran || len(h.shape) <= 1) && h.offset%8 == 0 && h.size*8 >= mapMin
}

// read decodes the elements that follow the header in r, a megabyte at a
// time, into row-major float64s; an array of integers (or booleans) is
// kept in its own type (Value.Stored: int8 ... int64, bool as uint8),
// which binding narrows further where the field's declaration allows.
func (h npyArray) read(r io.Reader, source string) (*Value, error) {
	dec, err := npyDecoder(h.descr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	v := &Value{Shape: h.shape, Source: source}
	switch kind, width := h.descr[1], h.descr[2:]; {
	case kind == 'i' && width == "1":
		v.Stored, err = readNPYAs[int8](h, dec, r)
	case kind == 'u' && width == "1", kind == 'b':
		v.Stored, err = readNPYAs[uint8](h, dec, r)
	case kind == 'i' && width == "2":
		v.Stored, err = readNPYAs[int16](h, dec, r)
	case kind == 'u' && width == "2":
		v.Stored, err = readNPYAs[uint16](h, dec, r)
	case kind == 'i' && width == "4":
		v.Stored, err = readNPYAs[int32](h, dec, r)
	default: // floats, and the 4- and 8-byte ints that exceed an int32 or int64 as float64 (refused at binding where not whole)
		var f ad.StoredSlice[float64]
		f, err = readNPYAs[float64](h, dec, r)
		v.Values = f
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the shape %v needs %d bytes of elements, and the file ends before", source, h.shape, h.size*dec.width)
	}
	return v, nil
}

// readNPYAs decodes the elements into E, in row-major order.
func readNPYAs[E ad.Element](h npyArray, dec npyElement, r io.Reader) (ad.StoredSlice[E], error) {
	out := make(ad.StoredSlice[E], h.size)
	chunk := make([]byte, max(1, (1<<20)/dec.width)*dec.width)
	for done := 0; done < h.size; {
		n := min(len(chunk)/dec.width, h.size-done)
		if _, err := io.ReadFull(r, chunk[:n*dec.width]); err != nil {
			return nil, err
		}
		for i := range n {
			out[done+i] = E(dec.at(chunk[i*dec.width:]))
		}
		done += n
	}
	if h.fortran && len(h.shape) > 1 {
		out = columnToRowMajor(out, h.shape)
	}
	return out, nil
}

// npyElement decodes one element of a dtype.
type npyElement struct {
	width int
	at    func(b []byte) float64
}

// npyDecoder returns the decoder of a dtype descr ('<f8', '|u1', '>i4',
// '|b1'): the numeric types, either byte order. Complex, object, string and
// datetime arrays are refused, naming the type.
func npyDecoder(descr string) (npyElement, error) {
	if len(descr) < 2 {
		return npyElement{}, fmt.Errorf("dtype %q is not one temper reads", descr)
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch descr[0] {
	case '<', '|', '=':
	case '>':
		order = binary.BigEndian
	default:
		return npyElement{}, fmt.Errorf("dtype %q is not one temper reads", descr)
	}
	kind, width := descr[1], descr[2:]
	switch kind {
	case 'f':
		switch width {
		case "8":
			return npyElement{8, func(b []byte) float64 { return math.Float64frombits(order.Uint64(b)) }}, nil
		case "4":
			return npyElement{4, func(b []byte) float64 { return float64(math.Float32frombits(order.Uint32(b))) }}, nil
		}
	case 'i':
		switch width {
		case "1":
			return npyElement{1, func(b []byte) float64 { return float64(int8(b[0])) }}, nil
		case "2":
			return npyElement{2, func(b []byte) float64 { return float64(int16(order.Uint16(b))) }}, nil
		case "4":
			return npyElement{4, func(b []byte) float64 { return float64(int32(order.Uint32(b))) }}, nil
		case "8":
			return npyElement{8, func(b []byte) float64 { return float64(int64(order.Uint64(b))) }}, nil
		}
	case 'u':
		switch width {
		case "1":
			return npyElement{1, func(b []byte) float64 { return float64(b[0]) }}, nil
		case "2":
			return npyElement{2, func(b []byte) float64 { return float64(order.Uint16(b)) }}, nil
		case "4":
			return npyElement{4, func(b []byte) float64 { return float64(order.Uint32(b)) }}, nil
		case "8":
			return npyElement{8, func(b []byte) float64 { return float64(order.Uint64(b)) }}, nil
		}
	case 'b':
		if width == "1" {
			return npyElement{1, func(b []byte) float64 {
				if b[0] != 0 {
					return 1
				}
				return 0
			}}, nil
		}
	}
	what := map[byte]string{'c': "complex numbers", 'O': "Python objects", 'U': "strings", 'S': "strings", 'M': "dates", 'm': "time deltas", 'V': "records"}[kind]
	if what == "" {
		what = "a type temper does not read"
	}
	return npyElement{}, fmt.Errorf("dtype %q holds %s: temper reads numbers (float, int, uint, bool)", descr, what)
}

// columnToRowMajor reorders a Fortran-ordered (column-major) array of the
// given shape into C (row-major) order.
func columnToRowMajor[S ~[]E, E any](x S, shape []int) S {
	out := make(S, len(x))
	rank := len(shape)
	idx := make([]int, rank)
	for i := range x { // i walks the column-major order: the first axis fastest
		flat := 0
		for d := range rank {
			flat = flat*shape[d] + idx[d]
		}
		out[flat] = x[i]
		for d := 0; d < rank; d++ {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
