// Package checkpoint reads and writes the file in which a run with
// temper.Options.Checkpoint keeps its sampler's state, for temper run
// --resume to continue it. The format is infer.WriteState's; this package
// adds the atomic replacement that keeps the previous file whole through a
// crash.
package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/temper-ppl/temper/infer"
)

// DefaultEvery is how often a run with a checkpoint file writes it when
// temper.Options.CheckpointEvery is 0.
const DefaultEvery = time.Minute

// Read reads the State a run saved with temper.Options.Checkpoint.
func Read(path string) (*infer.State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := infer.ReadState(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// Write writes st to path atomically: to a temporary file in the
// same folder, synced, then renamed over path, so that a crash leaves the
// previous checkpoint whole.
func Write(path string, st *infer.State) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	err = infer.WriteState(tmp, st)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
