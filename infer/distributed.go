package infer

import (
	"errors"
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Transport connects the processes of one run (Open MPI, in a build with
// the tag mpi: package infer/mpi). The rows of the State (chain-major,
// chain c's level l at row c·Levels + l) are split into Size equal
// contiguous blocks, process Rank owning block Rank: it moves and
// evaluates those rows alone. Every process keeps the whole ladder state
// and decides every exchange round itself, from the energies and their
// variances, which cross each iteration (two numbers a row); a swap
// between rows of two processes sends the two states between them; the
// draws' columns cross when a draw is kept. Since every row has its own
// random stream, the draws are those of the one-process run, bit for bit.
type Transport interface {
	// Rank is this process's number, from 0; Size the number of processes.
	Rank() int
	Size() int
	// Allgather sets all to every process's local block in rank order;
	// the blocks have one length.
	Allgather(local, all []float64) error
	// Exchange sends send to process peer and receives its send into
	// recv, of the same length.
	Exchange(peer int, send, recv []float64) error
}

// errDistributed wraps what a distributed run cannot do (yet).
var errDistributed = errors.New("a run split across processes")

// distributed is a stochastic-gradient kernel's share of a run split
// across processes: its rows [lo, hi), and the buffers of what crosses.
type distributed struct {
	tr       Transport
	lo, hi   int
	shared   []float64 // each row's energy and variance, all rows
	local    []float64 // this process's block of them
	send     []float64 // a row's θ and gradient
	recv     []float64
	draws    []float64 // every row's columns of a kept draw
	drawsOut []float64 // this process's block of them
}

// newDistributed checks that a run can be split and sets up this
// process's share of its rows.
func newDistributed(tr Transport, s Sampler, o Options, rows, d int) (*distributed, error) {
	n := tr.Size()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{errDistributed}, args...)...)
	}
	switch {
	case rows%n != 0:
		return nil, bad("%d processes cannot share %d chains × %d replicas = %d rows evenly; use a process count that divides %d", n, o.Chains, max(1, s.Replicas), rows, rows)
	case o.Resume != nil || o.Checkpoint != nil:
		return nil, bad("checkpoints are not split across processes yet; run without --checkpoint and --resume")
	}
	switch s.Exchange.(type) {
	case *Barker:
		return nil, bad("the Barker exchange test grows a minibatch over both states of a pair; run renhd in one process")
	case *Metropolis:
		if two, _ := twoEstimators(s.Exchange); two {
			return nil, bad("m_resgld's second estimator is not split across processes; run it in one process")
		}
	}
	per := rows / n
	return &distributed{tr: tr, lo: tr.Rank() * per, hi: (tr.Rank() + 1) * per,
		shared: make([]float64, 2*rows), local: make([]float64, 2*per),
		send: make([]float64, 2*d), recv: make([]float64, 2*d)}, nil
}

// owns reports whether row r is this process's.
func (dp *distributed) owns(r int) bool { return dp == nil || r >= dp.lo && r < dp.hi }

// owner is the process of row r.
func (dp *distributed) owner(r int) int { return r / (dp.hi - dp.lo) }

// share gives every process every row's energy and variance after this
// process evaluated its own. A local row whose position (or, with grad,
// gradient) is not finite shares a NaN energy, so that every process
// stops or restarts it alike.
func (dp *distributed) share(st *State, grad bool) error {
	d := st.Dim
	for r := dp.lo; r < dp.hi; r++ {
		e := st.Energy[r]
		if !kernel.AllFinite(row(st.Theta, r, d)) || grad && !kernel.AllFinite(row(st.Grad, r, d)) {
			e = math.NaN()
		}
		dp.local[2*(r-dp.lo)], dp.local[2*(r-dp.lo)+1] = e, st.Variance[r]
	}
	if err := dp.tr.Allgather(dp.local, dp.shared); err != nil {
		return err
	}
	for r := range st.Energy {
		st.Energy[r], st.Variance[r] = dp.shared[2*r], dp.shared[2*r+1]
	}
	return nil
}

// move copies row from's position and gradient into row to (with the
// energy and variance every process holds), sending them when the two
// rows are on different processes; each process calls it for every
// move, in the same order, so that the sends pair up.
func (dp *distributed) move(st *State, from, to int) error {
	d := st.Dim
	switch a, b := dp.owns(from), dp.owns(to); {
	case a && b:
		copy(row(st.Theta, to, d), row(st.Theta, from, d))
		copy(row(st.Grad, to, d), row(st.Grad, from, d))
	case a:
		copy(dp.send[:d], row(st.Theta, from, d))
		copy(dp.send[d:], row(st.Grad, from, d))
		if err := dp.tr.Exchange(dp.owner(to), dp.send, dp.recv); err != nil {
			return err
		}
	case b:
		if err := dp.tr.Exchange(dp.owner(from), dp.send, dp.recv); err != nil {
			return err
		}
		copy(row(st.Theta, to, d), dp.recv[:d])
		copy(row(st.Grad, to, d), dp.recv[d:])
	}
	st.Energy[to], st.Variance[to] = st.Energy[from], st.Variance[from]
	return nil
}

// swap exchanges two rows' states (State.swapRows), across processes
// where they live apart.
func (dp *distributed) swap(st *State, a, b int) error {
	switch ownA, ownB := dp.owns(a), dp.owns(b); {
	case ownA && ownB:
		st.swapRows(a, b)
		return nil
	case ownA || ownB:
		d := st.Dim
		mine, other := a, b
		if ownB {
			mine, other = b, a
		}
		copy(dp.send[:d], row(st.Theta, mine, d))
		copy(dp.send[d:], row(st.Grad, mine, d))
		if err := dp.tr.Exchange(dp.owner(other), dp.send, dp.recv); err != nil {
			return err
		}
		copy(row(st.Theta, mine, d), dp.recv[:d])
		copy(row(st.Grad, mine, d), dp.recv[d:])
	}
	st.Energy[a], st.Energy[b] = st.Energy[b], st.Energy[a]
	st.Variance[a], st.Variance[b] = st.Variance[b], st.Variance[a]
	return nil
}

// gather gives every process every row's columns of a kept draw, each
// process computing its own rows' with constrain.
func (dp *distributed) gather(rows, cols int, constrain func(r int, dst []float64)) ([]float64, error) {
	if dp.draws == nil {
		dp.draws, dp.drawsOut = make([]float64, rows*cols), make([]float64, (dp.hi-dp.lo)*cols)
	}
	for r := dp.lo; r < dp.hi; r++ {
		constrain(r, dp.drawsOut[(r-dp.lo)*cols:(r-dp.lo+1)*cols])
	}
	return dp.draws, dp.tr.Allgather(dp.drawsOut, dp.draws)
}
