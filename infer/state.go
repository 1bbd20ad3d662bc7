package infer

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/temper-ppl/temper/infer/exchange"
)

// State is everything a run needs to continue (DESIGN.md section 6): the
// replicas' positions with what the last evaluation found there, their
// auxiliary variables, every random stream's position, each chain's
// ladder, exchange test, scheme and round-trip bookkeeping, and the chains
// that have stopped. It is plain data: a checkpoint is a State written
// with WriteState, and Run continues one given as Options.Resume exactly
// where it was, so that a run resumed from a checkpoint makes the same
// draws, bit for bit, as one that never stopped.
//
// Rows are numbered chain-major: row r is chain r/Levels at level
// r%Levels (level 0: the target). Between two iterations the rows hold
// the state at which the last iteration's gradient was taken and its
// draw recorded; the swaps its exchange round decided are in each
// ladder's Pending and reach the rows at the start of the next Step.
type State struct {
	// Fingerprint names the model, data and sampler the State belongs to
	// (Options.Fingerprint); Resume refuses a State of another.
	Fingerprint string
	Seed        uint64
	// Done counts the iterations made, burn-in included.
	Done int
	// Burn and ScheduleIterations are fixed by the run that started the
	// State: draws are numbered from the end of its burn-in, and a
	// cyclical schedule keeps its K when the run is resumed for longer.
	Burn, ScheduleIterations int

	Chains, Levels, Dim int
	// FirstChain is the number (from 0) in the whole run of the State's
	// first chain: a run of one chain of many (Options.Chain) numbers its
	// random streams, draws and failures as that chain's.
	FirstChain int
	// Theta, Grad: rows × Dim; Energy, Variance: one per row.
	Theta, Grad, Energy, Variance []float64
	// Aux holds each row's auxiliary variables, AuxLen values a row
	// (Dynamics.AuxLen): momenta, thermostats, preconditioners.
	Aux    []float64
	AuxLen int
	// Streams is the position of each row's random stream (seed, row+1),
	// rows numbered in the whole run (FirstChain).
	Streams []uint64
	// Batches deals the minibatches; nil for full-batch runs.
	Batches *BatchState
	// Ladders are each chain's exchange state; nil without exchange.
	Ladders []*LadderState
	// LadderTuning is a tuned ladder's rounds (Ladder.Tuned), pooled over
	// the chains.
	LadderTuning *exchange.Tuning
	// Evidence sums the likelihood's energies of a power-path ladder's
	// levels for log Z (package exchange); nil on any other run.
	Evidence *exchange.Sums
	// Power is every row's prior and likelihood parts on a stochastic-
	// gradient power-path ladder (sgpower.go), which a swap re-levels the
	// rows from: kept, so that a resumed run's first swaps are the
	// uninterrupted run's.
	Power *PowerRows
	// Second and ExchangeBatch are the side estimators of m-reSGLD and of
	// the Barker test; nil when the exchange test has none.
	Second, ExchangeBatch *SideState

	// Metric and Tuning are what the warm-up of an automatic step size
	// found; Theta is then in the metric's coordinates φ.
	Metric *Metric
	Tuning *Tuning
	// ControlVariate is the centre of the control-variate gradient, when
	// the run uses it.
	ControlVariate *ControlVariate

	// Exact is the step size, metric and adaptation of every chain of an
	// exact sampler (exact.go); nil for the others.
	Exact *ExactState

	// Failures are the chains that stopped, in the order they did;
	// Restarts the hottest levels restarted from their neighbours.
	Failures []Failure
	Restarts []Failure
}

// BatchState is the minibatch dealer of every row: a permutation of the
// data's rows and the position reached in it; with Blocks > 0 (batches of
// contiguous blocks, Options.BatchBlocks) no permutation, each Perms[r]
// nil.
type BatchState struct {
	Perms  [][]int
	Pos    []int
	Blocks int
}

// LadderState is one chain's replica-exchange state.
type LadderState struct {
	// Values are the levels' temperatures (temperature ladders) or step
	// sizes (step-size ladders).
	Values []float64
	// Test is the exchange test's own state: the deterministic test's
	// buffer, Metropolis's running variance.
	Test TestState
	// Open are the pairs' gates of DEO_W (a pair swaps at most once per
	// window).
	Open  []bool
	Trips exchange.RoundTrips
	// Rng draws the scheme's and the tests' coins.
	Rng *rand.PCG
	// Pending are the pairs the last round swapped, in order, which the
	// next Step applies to the rows.
	Pending []int
	// Report counts what the ladder has done over the whole run.
	Report ExchangeReport
}

// TestState is what an exchange test learns over a run.
type TestState struct {
	Started bool
	Buffer  float64      // the deterministic test's correction buffer C
	Running [][2]float64 // per pair and estimator: Metropolis's running σ̂²
	Seen    []int
}

// SideState is a side estimator's dealer: per row, a permutation of the
// data's rows continued round after round, and a random stream.
type SideState struct {
	Perms [][]int
	Rngs  []*rand.PCG
}

// Failure says where a chain (or one replica of its ladder) stopped being
// finite.
type Failure struct {
	Chain, Replica int // from 0, Chain in the whole run (State.FirstChain); Replica is the level
	Iteration      int // from 1, burn-in included
	// What went bad: "energy" or "parameter N" (the unconstrained
	// coordinate, from 1), and the value it took.
	What  string
	Value float64
}

func (f Failure) String() string {
	return fmt.Sprintf("chain %d replica %d at iteration %d: %s is %v", f.Chain+1, f.Replica+1, f.Iteration, f.What, f.Value)
}

// row is row r's slice of a rows × n array.
func row(x []float64, r, n int) []float64 { return x[r*n : (r+1)*n] }

// failed reports whether chain c (of the State's, from 0) has stopped.
func (st *State) failed(c int) bool {
	for _, f := range st.Failures {
		if f.Chain == st.FirstChain+c {
			return true
		}
	}
	return false
}

// Running is the number of chains that have not stopped.
func (st *State) Running() int { return st.Chains - len(st.Failures) }

// checkpointMagic opens a checkpoint file; the format version follows.
const checkpointMagic = "temper checkpoint\n"

// checkpointVersion changes whenever State changes shape.
const checkpointVersion = 1

// ErrBadCheckpoint is wrapped by ReadState's errors for a file that is not
// a checkpoint temper can continue.
var ErrBadCheckpoint = errors.New("not a temper checkpoint, or a damaged one")

// WriteState writes st as a checkpoint: a header, the State in gob, and a
// SHA-256 of the encoding, so that a damaged file is refused rather than
// resumed.
func WriteState(w io.Writer, st *State) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(st); err != nil {
		return fmt.Errorf("encoding the run's state: %w", err)
	}
	sum := sha256.Sum256(body.Bytes())
	if _, err := fmt.Fprintf(w, "%sversion %d\n", checkpointMagic, checkpointVersion); err != nil {
		return err
	}
	if _, err := w.Write(body.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(sum[:])
	return err
}

// ReadState reads a checkpoint that WriteState wrote.
func ReadState(r io.Reader) (*State, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("%sversion %d\n", checkpointMagic, checkpointVersion)
	switch {
	case bytes.HasPrefix(raw, []byte(checkpointMagic)) && !bytes.HasPrefix(raw, []byte(header)):
		return nil, fmt.Errorf("%w: a checkpoint of another version of temper (want %q)", ErrBadCheckpoint, header[len(checkpointMagic):len(header)-1])
	case !bytes.HasPrefix(raw, []byte(header)) || len(raw) < len(header)+sha256.Size:
		return nil, fmt.Errorf("%w: it does not start with %q", ErrBadCheckpoint, checkpointMagic[:len(checkpointMagic)-1])
	}
	body := raw[len(header) : len(raw)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], raw[len(raw)-sha256.Size:]) {
		return nil, fmt.Errorf("%w: its checksum does not match (truncated or changed)", ErrBadCheckpoint)
	}
	st := new(State)
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(st); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	return st, nil
}

// chain is chain c's part of the State (c from 0, of its chains), as the
// State of a run of that chain alone (Options.Chain): its rows, streams,
// minibatch dealers, ladder, side estimators and control-variate centres;
// the warm-up's metric and tuning are shared.
func (st *State) chain(c int) *State {
	lo, hi := c*st.Levels, (c+1)*st.Levels
	out := *st
	out.Chains, out.FirstChain = 1, st.FirstChain+c
	rows := func(x []float64, n int) []float64 { return slices.Clone(x[lo*n : hi*n]) }
	out.Theta, out.Grad = rows(st.Theta, st.Dim), rows(st.Grad, st.Dim)
	out.Energy, out.Variance = rows(st.Energy, 1), rows(st.Variance, 1)
	out.Aux = rows(st.Aux, st.AuxLen)
	out.Streams = slices.Clone(st.Streams[lo:hi])
	if b := st.Batches; b != nil {
		out.Batches = &BatchState{Perms: slices.Clone(b.Perms[lo:hi]), Pos: slices.Clone(b.Pos[lo:hi]), Blocks: b.Blocks}
	}
	if st.Ladders != nil {
		out.Ladders = slices.Clone(st.Ladders[c : c+1])
	}
	side := func(s *SideState) *SideState {
		if s == nil {
			return nil
		}
		o := &SideState{Rngs: slices.Clone(s.Rngs[lo:hi])}
		if s.Perms != nil {
			o.Perms = slices.Clone(s.Perms[lo:hi])
		}
		return o
	}
	out.Second, out.ExchangeBatch = side(st.Second), side(st.ExchangeBatch)
	if cv := st.ControlVariate; cv != nil {
		out.ControlVariate = &ControlVariate{Centers: rows(cv.Centers, st.Dim), Energies: rows(cv.Energies, 1), Grads: rows(cv.Grads, st.Dim)}
	}
	mine := func(f Failure) bool { return f.Chain != out.FirstChain }
	out.Failures = slices.DeleteFunc(slices.Clone(st.Failures), mine)
	out.Restarts = slices.DeleteFunc(slices.Clone(st.Restarts), mine)
	return &out
}

// seedMismatch refuses a checkpoint started with another seed than the
// run's: errors.Is finds ErrBadCheckpoint in it, but it says what differs
// and what to do rather than calling the checkpoint damaged.
func seedMismatch(saved, now uint64) error {
	return checkpointMismatch{fmt.Sprintf("the checkpoint's run was started with seed %d, this run has seed %d: leave the seed out (temper run takes the checkpoint's), or give %d", saved, now, saved)}
}

type checkpointMismatch struct{ msg string }

func (e checkpointMismatch) Error() string { return e.msg }
func (e checkpointMismatch) Unwrap() error { return ErrBadCheckpoint }
