package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/temper-ppl/temper/cmd/temper/internal/mnist"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/examples/logistic"
	"github.com/temper-ppl/temper/lang"
)

// temper bench data measures the data path (issue 21): an N × D table
// (an int outcome y and D real features X, the data of the logistic
// regression of examples/logistic)
// is written as CSV, as NumPy's X.npy and y.npy, and as Parquet, and each
// is loaded as temper check --data loads it (read, bound to the model's
// fields, validated) in a child process of its own, so that each
// format's peak RSS (getrusage's high-water mark) is its own.

// benchDataFormats are the formats and the files of each.
var benchDataFormats = map[string][]string{
	"csv":     {"data.csv"},
	"npy":     {"X.npy", "y.npy"},
	"parquet": {"data.parquet"},
}

// dataLoad is what a child process reports of one load.
type dataLoad struct {
	Format      string    `json:"format"`
	FileMB      float64   `json:"file_mb"`
	DataMB      float64   `json:"data_mb"` // N·(D+1) float64s, the type temper stores data in
	ReadS       float64   `json:"read_s"`  // the files read into arrays
	BindS       float64   `json:"bind_s"`  // bound to the model's fields and validated
	LoadS       float64   `json:"load_s"`  // both
	CPUS        float64   `json:"cpu_s"`   // the child's processor time, user and system, start-up included
	MBPerS      float64   `json:"mb_per_s"`
	PeakRSSMiB  float64   `json:"peak_rss_mib"`
	PeakPerData float64   `json:"peak_rss_per_data"`
	Rows        int       `json:"rows"`
	Cols        int       `json:"cols"`
	Runs        []float64 `json:"load_s_runs,omitempty"`
}

func benchDataCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench data", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int("rows", 1_000_000, "rows `N` of the table")
	cols := fs.Int("cols", 20, "feature columns `D` (the CSV and Parquet files have D + 1 columns with y)")
	formats := fs.String("formats", "csv,npy,parquet", "the formats to load, comma-separated")
	dir := fs.String("dir", "", "a folder for the files, kept; files already there (data.csv, X.npy and y.npy, data.parquet) are reused (default: a temporary folder, removed)")
	repeat := fs.Int("repeat", 1, "loads per format, each in a child process; the median is reported")
	asJSON := fs.Bool("json", false, "a JSON array instead of the table")
	load := fs.String("load", "", "(internal) load the files of this format in this process and print the result as JSON")
	flags, pos := reorderFlags(args, "json")
	if err := fs.Parse(flags); err != nil {
		return badf("temper bench data: %v", err)
	}
	if *load != "" {
		return loadData(stdout, *load, pos)
	}
	if *rows < 1 || *cols < 1 || *repeat < 1 {
		return badf("temper bench data: --rows, --cols and --repeat must be at least 1")
	}
	names := strings.Split(*formats, ",")
	for _, f := range names {
		if benchDataFormats[f] == nil {
			return badf("temper bench data: unknown format %q (csv, npy, parquet)", f)
		}
	}
	folder := *dir
	if folder == "" {
		tmp, err := os.MkdirTemp("", "temper-bench-data-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		folder = tmp
	} else if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	if err := writeBenchData(folder, *rows, *cols, names, stderr, *asJSON); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var results []dataLoad
	for _, f := range names {
		var runs []dataLoad
		for range *repeat {
			r, err := loadInChild(ctx, self, f, folder)
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
		slices.SortFunc(runs, func(a, b dataLoad) int { return cmpFloat(a.LoadS, b.LoadS) })
		r := runs[(len(runs)-1)/2]
		for _, x := range runs {
			r.Runs = append(r.Runs, x.LoadS)
		}
		results = append(results, r)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	fmt.Fprintf(stdout, "temper bench data: %d × %d (y and X), %.0f MB as float64, in %s; each format loaded by a process of its own (as temper check --data loads it), the files in the page cache\n\n", *rows, *cols, results[0].DataMB, folder)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "format\tfile MB\tread s\tbind s\tload s\tCPU s\tMB/s\tpeak RSS MiB\tpeak / data\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.2f\t\n", r.Format, r.FileMB, r.ReadS, r.BindS, r.LoadS, r.CPUS, r.MBPerS, r.PeakRSSMiB, r.PeakPerData)
	}
	return tw.Flush()
}

// benchDataChild is set in the environment of the child processes, for a
// test binary (whose TestMain runs the command) to know it is one.
const benchDataChild = "TEMPER_BENCH_DATA_CHILD"

// loadInChild runs temper bench data --load FORMAT in a new process.
func loadInChild(ctx context.Context, self, format, dir string) (dataLoad, error) {
	args := []string{"bench", "data", "--load", format}
	for _, name := range benchDataFormats[format] {
		args = append(args, filepath.Join(dir, name))
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), benchDataChild+"=1")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return dataLoad{}, fmt.Errorf("loading %s in a child process: %v: %s", format, err, errOut.String())
	}
	var r dataLoad
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("loading %s: the child process said %q: %v", format, out, err)
	}
	return r, nil
}

// loadData is the child's side: the files read and bound as temper check
// --data reads and binds them, timed, with the process's peak RSS.
func loadData(stdout io.Writer, format string, paths []string) error {
	f, err := lang.Parse("examples/logistic/model.ppl", []byte(logistic.Model))
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		return err
	}
	start := time.Now()
	data, err := compile.ReadAll(paths, compile.DataDecls(f))
	if err != nil {
		return badf("temper bench data: %v", err)
	}
	read := time.Since(start)
	m, err := compile.Compile(f, data)
	if err != nil {
		return badf("temper bench data: %v", err)
	}
	total := time.Since(start)
	r := dataLoad{Format: format, ReadS: read.Seconds(), LoadS: total.Seconds(), BindS: (total - read).Seconds()}
	r.Rows = m.NumData()
	r.Cols = len(data["X"].Values) / max(1, r.Rows)
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			r.FileMB += float64(info.Size()) / 1e6
		}
	}
	r.DataMB = float64(r.Rows*(r.Cols+1)*8) / 1e6
	r.MBPerS = r.FileMB / r.LoadS
	if d, ok := mnist.CPUTime(); ok {
		r.CPUS = d.Seconds()
	}
	if b, ok := ownPeakRSS(); ok {
		r.PeakRSSMiB = float64(b) / (1 << 20)
		r.PeakPerData = float64(b) / (r.DataMB * 1e6)
	}
	runtime.KeepAlive(m)
	return json.NewEncoder(stdout).Encode(r)
}

// ownPeakRSS is the high-water mark of this process's resident set. On
// Linux it is VmHWM of /proc/self/status, the mark of the process's own
// address space: getrusage's ru_maxrss would not do in a child, since
// Linux carries the address space's mark over execve, and Go starts a
// child sharing the parent's address space until it execs, so that the
// child would report the parent's peak (the bench's generated table).
// Elsewhere it is getrusage's.
func ownPeakRSS() (int64, bool) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return mnist.PeakRSS()
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err == nil {
				return n * 1024, true
			}
		}
	}
	return mnist.PeakRSS()
}

// writeBenchData writes the table in each format whose files are not in
// dir yet: y ~ Bernoulli(1/2) and X ~ N(0, 1) rounded to five decimals,
// so that the CSV's text ("-1.23456") reads back to the float64s the
// binary files hold, and every format holds the same data.
func writeBenchData(dir string, rows, cols int, formats []string, stderr io.Writer, quiet bool) error {
	var y []int32
	var x []float64
	for _, f := range formats {
		missing := false
		for _, name := range benchDataFormats[f] {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				missing = true
			}
		}
		if !missing {
			continue
		}
		if x == nil {
			y, x = benchTable(rows, cols)
		}
		start := time.Now()
		var err error
		switch f {
		case "csv":
			err = writeBenchCSV(filepath.Join(dir, "data.csv"), y, x, cols)
		case "npy":
			err = writeBenchNPY(dir, y, x, cols)
		case "parquet":
			err = writeBenchParquet(filepath.Join(dir, "data.parquet"), y, x, cols)
		}
		if err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(stderr, "wrote the %s files in %.1fs\n", f, time.Since(start).Seconds())
		}
	}
	return nil
}

// benchTable draws the table, in parts on every core, each part from a
// stream of its own so that the table does not depend on the cores.
func benchTable(rows, cols int) ([]int32, []float64) {
	y, x := make([]int32, rows), make([]float64, rows*cols)
	const part = 1 << 16
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range next {
				rng := rand.New(rand.NewPCG(21, uint64(p)))
				for r := p * part; r < min(rows, (p+1)*part); r++ {
					y[r] = int32(rng.IntN(2))
					for j := range cols {
						x[r*cols+j] = math.Round(rng.NormFloat64()*1e5) / 1e5
					}
				}
			}
		})
	}
	for p := 0; p*part < rows; p++ {
		next <- p
	}
	close(next)
	wg.Wait()
	return y, x
}

// writeBenchCSV writes y, x1, ..., xD, the rows formatted in parts on
// every core and written in order.
func writeBenchCSV(path string, y []int32, x []float64, cols int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("y")
	for j := range cols {
		fmt.Fprintf(w, ",x%d", j+1)
	}
	w.WriteByte('\n')
	const part = 1 << 14
	parts := (len(y) + part - 1) / part
	workers := runtime.GOMAXPROCS(0)
	bufs := make([]chan []byte, parts)
	for p := range bufs {
		bufs[p] = make(chan []byte, 1)
	}
	sem := make(chan struct{}, 2*workers)
	go func() {
		for p := range parts {
			sem <- struct{}{}
			go func() {
				var b []byte
				for r := p * part; r < min(len(y), (p+1)*part); r++ {
					b = strconv.AppendInt(b, int64(y[r]), 10)
					for _, v := range x[r*cols : (r+1)*cols] {
						b = append(b, ',')
						b = strconv.AppendFloat(b, v, 'f', -1, 64)
					}
					b = append(b, '\n')
				}
				bufs[p] <- b
			}()
		}
	}()
	for p := range parts {
		b := <-bufs[p]
		<-sem
		if _, err := w.Write(b); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(w.Flush(), f.Close())
}

// writeBenchNPY writes X.npy (float64, C order: the layout temper maps
// rather than reads) and y.npy (int32).
func writeBenchNPY(dir string, y []int32, x []float64, cols int) error {
	write := func(name, descr string, shape string, n int, put func(b []byte, i int) []byte, size int) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
		pad := 64 - (10+len(header)+1)%64 // the data starts on a 64-byte boundary, as NumPy aligns it
		header += strings.Repeat(" ", pad) + "\n"
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString("\x93NUMPY\x01\x00")
		binary.Write(w, binary.LittleEndian, uint16(len(header)))
		w.WriteString(header)
		b := make([]byte, 0, 1<<16)
		for i := range n {
			if b = put(b, i); len(b)+size > cap(b) {
				w.Write(b)
				b = b[:0]
			}
		}
		w.Write(b)
		return errors.Join(w.Flush(), f.Close())
	}
	if err := write("X.npy", "<f8", fmt.Sprintf("(%d, %d)", len(y), cols), len(x), func(b []byte, i int) []byte {
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(x[i]))
	}, 8); err != nil {
		return err
	}
	return write("y.npy", "<i4", fmt.Sprintf("(%d,)", len(y)), len(y), func(b []byte, i int) []byte {
		return binary.LittleEndian.AppendUint32(b, uint32(y[i]))
	}, 4)
}

// writeBenchParquet writes y (INT32) and x01, ..., xD (DOUBLE) with
// parquet-go in row groups of 2^20 rows, Snappy-compressed (pyarrow's
// default codec).
func writeBenchParquet(path string, y []int32, x []float64, cols int) error {
	group := parquet.Group{"y": parquet.Leaf(parquet.Int32Type)}
	names := make([]string, cols)
	for j := range cols {
		names[j] = fmt.Sprintf("x%0*d", len(strconv.Itoa(cols)), j+1) // zero-padded: the schema orders columns by name, y last
		group[names[j]] = parquet.Leaf(parquet.DoubleType)
	}
	schema := parquet.NewSchema("bench", group)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewWriter(f, schema, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(1<<20))
	yCol := cols // the leaves in name order: x01 ... xD, y
	batch := make([]parquet.Row, 1024)
	for start := 0; start < len(y); start += len(batch) {
		n := min(len(batch), len(y)-start)
		for i := range n {
			r := start + i
			row := batch[i][:0]
			for j, v := range x[r*cols : (r+1)*cols] {
				row = append(row, parquet.DoubleValue(v).Level(0, 0, j))
			}
			batch[i] = append(row, parquet.Int32Value(y[r]).Level(0, 0, yCol))
		}
		if _, err := w.WriteRows(batch[:n]); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(w.Close(), f.Close())
}
