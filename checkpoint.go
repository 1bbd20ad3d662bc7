package temper

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/checkpoint"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// fingerprint names the model, its data and the sampler, for a checkpoint
// to be continued only by the run that wrote it: the model's fingerprint
// (modelFingerprint), the sampler by its preset and every setting.
func (m *Model) fingerprint(s infer.Sampler, settings map[string]string) string {
	return fmt.Sprintf("model %s\nsampler %s", m.modelFingerprint(), describeSampler(s, settings))
}

// modelFingerprint names the model and its data by the columns, the sizes
// and the exact log density at a fixed point (which any change of the
// model block or of a data value moves), in hex.
func (m *Model) modelFingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d %d\n", strings.Join(m.Columns(), ","), m.Dim(), m.NumData())
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = 0.1 * math.Sin(float64(i+1))
	}
	lp, err := m.LogDensity(theta, nil)
	if err != nil {
		fmt.Fprintf(h, "%v", err)
	}
	binary.Write(h, binary.LittleEndian, math.Float64bits(lp))
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// checkpointing sets the infer options that resume from and write the
// checkpoint files of opts: a resumed run writes its checkpoint to the
// file it resumed from unless told another.
func (m *Model) checkpointing(run *infer.Options, opts Options, s infer.Sampler, settings map[string]string) error {
	if opts.Resume == "" && opts.Checkpoint == "" {
		return nil
	}
	run.Fingerprint = m.fingerprint(s, settings)
	if opts.Resume != "" {
		st, err := checkpoint.Read(opts.Resume)
		if err != nil {
			return err
		}
		if st.Fingerprint != run.Fingerprint {
			return fmt.Errorf("%s: %w", opts.Resume, fingerprintMismatch(st.Fingerprint, run.Fingerprint))
		}
		run.Resume = st
	}
	path := cmp.Or(opts.Checkpoint, opts.Resume)
	run.Checkpoint = func(st *infer.State) error { return checkpoint.Write(path, st) }
	run.CheckpointEvery = cmp.Or(opts.CheckpointEvery, checkpoint.DefaultEvery)
	return nil
}

// fingerprintMismatch says which part of two fingerprints differs.
func fingerprintMismatch(saved, now string) error {
	a, b := strings.Split(saved, "\n"), strings.Split(now, "\n")
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		if strings.HasPrefix(a[i], "sampler ") && strings.HasPrefix(b[i], "sampler ") {
			return fmt.Errorf("%w: it was written by the sampler %s; this run's is %s", infer.ErrBadCheckpoint, a[i][len("sampler "):], b[i][len("sampler "):])
		}
		break
	}
	return fmt.Errorf("%w: it was written by a run of another model or other data", infer.ErrBadCheckpoint)
}

// resumeDrawsFile readies the draws file at path (as a run of opts wrote
// it) for the run that resumes opts.Resume: it keeps the rows up to the
// checkpoint's iteration (a run killed after its last checkpoint wrote
// draws that the resumed run makes again), adds the comments to the
// header, and returns a writer that appends after them, with the rows
// kept (Result.prepend puts them in the summaries). The file is rewritten
// atomically. A missing one is started afresh only where the checkpoint's
// run kept no draws yet, and one that stops before the draws it kept is
// refused: the gap would be silent. Close the writer at the end.
func (m *Model) resumeDrawsFile(path string, opts Options, comments ...string) (*runfiles.Writer, *draws.Table, error) {
	opts = opts.withDefaults()
	s, settings, err := opts.sampler()
	if err != nil {
		return nil, nil, err
	}
	st, err := checkpoint.Read(opts.Resume)
	if err != nil {
		return nil, nil, err
	}
	if fp := m.fingerprint(s, settings); st.Fingerprint != fp { // the run's own refusal, before the file's
		return nil, nil, fmt.Errorf("%s: %w", opts.Resume, fingerprintMismatch(st.Fingerprint, fp))
	}
	header := drawsHeader(m, s, settings, opts, comments)
	old, err := draws.ReadFileLenient(path)
	due := st.Done - st.Burn // the checkpoint's run had kept draws up to this iteration
	if _, cyclical := s.Schedule.(infer.Staged); cyclical {
		due = 0 // its exploration stages keep none: the last kept draw is not due's
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && due > 0:
		return nil, nil, fmt.Errorf("%s does not exist, and the run being resumed kept draws up to its iteration %d: they would be missing from the file; resume into the output folder the checkpoint's run wrote", path, due)
	case errors.Is(err, fs.ErrNotExist):
		old = &draws.Table{Columns: header.Columns, Values: make([][]float64, len(header.Columns))}
	case err != nil:
		return nil, nil, err
	case !slices.Equal(old.Columns, header.Columns):
		return nil, nil, fmt.Errorf("%s has the columns %s, this run writes %s: it was written by another model or sampler", path, strings.Join(old.Columns, ","), strings.Join(header.Columns, ","))
	default:
		last := 0
		for _, it := range old.Iter {
			last = max(last, it)
		}
		if due-last >= max(1, opts.Thin) {
			return nil, nil, fmt.Errorf("%s stops at iteration %d, and the run being resumed kept draws up to its iteration %d: the draws between would be missing; resume into the output folder the checkpoint's run wrote, or from a checkpoint of this file's run", path, last, due)
		}
		header.Comments = append(old.Comments, comments...)
	}
	header.Comments = append(header.Comments, fmt.Sprintf("resumed from %s after iteration %d", opts.Resume, st.Done))
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*runfiles.Writer, *draws.Table, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, nil, err
	}
	w, err := runfiles.NewWriter(tmp, header, opts.KeepAll, len(s.StatNames()))
	if err != nil {
		return fail(err)
	}
	// The draws numbered up to the checkpoint's last iteration (from 1 at
	// the end of burn-in) are its run's.
	kept := &draws.Table{Comments: header.Comments, Columns: old.Columns, Values: make([][]float64, len(old.Columns))}
	values := make([]float64, len(old.Columns))
	for r, it := range old.Iter {
		if it > st.Done-st.Burn {
			continue
		}
		for j := range values {
			values[j] = old.Values[j][r]
			kept.Values[j] = append(kept.Values[j], values[j])
		}
		kept.Chain, kept.Iter = append(kept.Chain, old.Chain[r]), append(kept.Iter, it)
		if err := w.WriteRow(old.Chain[r], it, values); err != nil {
			return fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	w.Own(tmp)
	return w, kept, nil
}

// prepend puts the target level's draws of t, a draws file of an earlier
// part of the same run (resumeDrawsFile), before the draws of r, so that
// the summaries, diagnostics and judgement are of the whole run.
func (r *Result) prepend(t *draws.Table) {
	r.stats, r.grouped = nil, nil
	if r.All == nil {
		t = t.Where("replica__", 1)
	}
	cols := make([]int, len(r.Columns))
	for j, name := range r.Columns {
		cols[j] = t.Index(name)
	}
	cycle := t.Index("cycle__")
	statCols := make([]int, len(r.StatColumns))
	for j, name := range r.StatColumns {
		statCols[j] = t.Index(name)
	}
	old, oldStats := make([][][]float64, len(r.Draws)), make([][][]float64, len(r.Draws))
	var oldCycles [][]int
	if r.Cycle != nil && cycle >= 0 {
		oldCycles = make([][]int, len(r.Draws))
	}
	var iters []int
	for row, chain := range t.Chain {
		c := chain - 1 - r.FirstChain
		if c < 0 || c >= len(old) {
			continue
		}
		v := make([]float64, len(cols))
		for j, k := range cols {
			if k >= 0 {
				v[j] = t.Values[k][row]
			}
		}
		old[c] = append(old[c], v)
		if r.Stats != nil {
			s := make([]float64, len(statCols))
			for j, k := range statCols {
				if k >= 0 {
					s[j] = t.Values[k][row]
				}
			}
			oldStats[c] = append(oldStats[c], s)
		}
		if oldCycles != nil {
			oldCycles[c] = append(oldCycles[c], int(t.Values[cycle][row])-1)
		}
		if it := t.Iter[row] - 1; len(iters) == 0 || it > iters[len(iters)-1] {
			iters = append(iters, it)
		}
	}
	for c := range r.Draws {
		r.Draws[c] = append(old[c], r.Draws[c]...)
		if oldCycles != nil {
			r.Cycle[c] = append(oldCycles[c], r.Cycle[c]...)
		}
		if r.Stats != nil {
			r.Stats[c] = append(oldStats[c], r.Stats[c]...)
		}
		if r.All != nil {
			r.All[c][0] = r.Draws[c]
		}
	}
	r.Iters = append(iters, r.Iters...)
	r.judge()
}
