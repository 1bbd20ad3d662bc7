package autodiff

import (
	"fmt"
	"slices"
	"strings"
)

// DeviceProgram is a graph compiled for an accelerator: the Program of
// the CPU with its values and gradients in the device's memory. Inputs
// are written and outputs read through the host, converted from and to
// float64; everything between stays on the device.
type DeviceProgram interface {
	// Set copies data into the input n, as Program.Set.
	Set(n *Node, data []float64) error
	// SetIndices sets the rows ix selects, as Program.SetIndices.
	SetIndices(ix *Indices, rows []int) error
	// Forward evaluates every op; ForwardBackward then differentiates loss,
	// a scalar output, with respect to every Param input, as Program's.
	Forward() error
	ForwardBackward(loss *Node) error
	// Read copies the value of n into dst (Value's layout); ReadGrad its
	// gradient, zeros where none flows.
	Read(n *Node, dst []float64) error
	ReadGrad(n *Node, dst []float64) error
	// Move takes one step of a sampler's dynamics for the Param input n,
	// with the gradient of the last ForwardBackward (see DeviceMove).
	Move(n *Node, m *DeviceMove) error
	// SetGrad sets the gradient of the Param input n where the next Move
	// reads it (a resumed run's, say), until the next ForwardBackward.
	SetGrad(n *Node, data []float64) error
	// Momentum copies the momentum of n's SGHMC moves (Friction > 0) into
	// dst (Value's layout; zeros before any); SetMomentum sets it.
	Momentum(n *Node, dst []float64) error
	SetMomentum(n *Node, src []float64) error
	// SwapReplicas exchanges replicas a and b of the Param input n, value
	// and gradient (a ladder's swap); CopyReplica copies replica src onto
	// dst, value and gradient, and clears dst's momentum (a ladder's
	// hottest level restarting from its neighbour).
	SwapReplicas(n *Node, a, b int) error
	CopyReplica(n *Node, dst, src int) error
	// Device describes the device, for messages: "cuda: NVIDIA H100 ...".
	Device() string
	// Close frees the device memory. The program is unusable afterwards.
	Close() error
}

// DeviceMove is one step of a sampler's dynamics for one parameter, in
// every replica r: Langevin's
//
//	θ ← θ − η_r·∇ + √(2·η_r·T_r)·ξ
//
// or, with Friction α > 0, SGHMC's, whose momentum v stays on the device,
//
//	v ← (1 − α)·v − η_r·∇ + √(2·α·η_r·T_r)·ξ,  θ ← θ + v,
//
// with ∇ the gradient of the last ForwardBackward and ξ standard normal
// from a counter-based stream of (Seed, r, Step, Offset + i) for element i:
// the parameter is coordinates Offset, Offset+1, ... of the replica's
// point, so the parameters of one point get unrelated noise. With Scale,
// the dynamics run in the coordinates φ = (θ − c)/s of a diagonal metric
// (∇_φ = s⊙∇, θ moves by s⊙Δφ, v is in φ). A replica whose η_r is 0 stays
// put.
type DeviceMove struct {
	LR, Temperature []float64 // per replica
	Friction        float64
	// Scale is s, one per element of the parameter, or nil. A program
	// uploads it when the slice changes: pass the same slice, unchanged,
	// for every move of a run.
	Scale  []float64
	Seed   uint64
	Step   int
	Offset int
}

// DeviceOp is implemented by ops defined outside this package (stdlib's
// densities) that an accelerator backend can run: DeviceKernel names the
// backend's kernel and gives what it needs besides the operands. An op
// that is neither one of this package's nor a DeviceOp is refused when a
// graph is compiled for a device, with an error naming it.
type DeviceOp interface {
	DeviceKernel() DeviceKernel
}

// DeviceKernel describes an op to a backend.
type DeviceKernel struct {
	// Name is the kernel: "elementwise" (Func applied to the operands
	// broadcast together), "normal_sum" (Σ normal_lpdf(y | μ, σ) for
	// scalar μ and σ), "categorical" or "categorical_logit", "dirichlet",
	// "multi_normal_diag", "multi_normal_cholesky", "lkj_corr_cholesky",
	// or a constrained type's transform by its name ("simplex",
	// "simplex_log_jacobian", "cholesky_factor_corr", ...).
	Name string
	// Func is the scalar function of an "elementwise" kernel.
	Func *ScalarFunc
	// Ints are the kernel's sizes: the categories K of a categorical, the
	// vectors' K of the other vector kernels (then, for a transform, its
	// rows).
	Ints []int
	// Tables are per-element index tables, one per operand: a categorical's
	// label and row of each result element (multi_normal_diag's: each
	// operand's element for each element of the broadcast), nil where they
	// are the element's own index.
	Tables [][]int
}

// DeviceProfile is, under TEMPER_CUDA_PROFILE=1 in a build with -tags
// cuda, the time the process's device programs spent in each kind of step
// (kernel or product), each step timed between two synchronisations of
// the device, so a profiled run is slower than a plain one; "" otherwise.
func DeviceProfile() string {
	if deviceProfile == nil {
		return ""
	}
	return deviceProfile()
}

var deviceProfile func() string

// deviceCompilers are the backends this binary was built with, by name;
// the cuda build tag adds "cuda".
var deviceCompilers = map[string]func(g *Graph, float32 bool, outputs []*Node) (DeviceProgram, error){}

// Devices lists the accelerator backends of this build, sorted.
func Devices() []string {
	var names []string
	for n := range deviceCompilers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CompileOn compiles the graph for the named device ("cuda"), in float32
// or float64. An op the device has no kernel for is an error naming it.
func (g *Graph) CompileOn(device string, float32 bool, outputs ...*Node) (DeviceProgram, error) {
	c, ok := deviceCompilers[device]
	if !ok {
		return nil, UnknownDeviceError(device)
	}
	if g.hostOnly {
		return nil, fmt.Errorf("autodiff: this graph was built for the CPU only (SetHostOnly); build it again for %s", device)
	}
	return c(g, float32, outputs)
}

// UnknownDeviceError is the error for a device this build cannot use:
// for "cuda" without the build tag, it says how to get one that can.
func UnknownDeviceError(device string) error {
	if device == "cuda" {
		return fmt.Errorf("this temper was built without CUDA support: build it with `go build -tags cuda ./cmd/temper` " +
			"(no CUDA toolkit or cgo needed; the NVIDIA driver and cuBLAS are loaded when it runs)")
	}
	known := append([]string{"cpu"}, Devices()...)
	return fmt.Errorf("unknown device %q: this build has %s", device, strings.Join(known, ", "))
}
