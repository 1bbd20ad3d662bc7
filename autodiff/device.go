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
	// Langevin moves the Param input n, in every replica r, by
	// x ← x − lr[r]·∂L/∂x + √(2·lr[r]·temperature[r])·ξ, with the gradient
	// of the last ForwardBackward and ξ standard normal from a counter-based
	// stream of (seed, r, step, offset + i) for element i: the SGLD update
	// of a parameter that is coordinates offset, offset+1, ... of the
	// replica's point, so that the parameters of one point get unrelated
	// noise.
	Langevin(n *Node, lr, temperature []float64, seed uint64, step, offset int) error
	// Device describes the device, for messages: "cuda: NVIDIA H100 ...".
	Device() string
	// Close frees the device memory. The program is unusable afterwards.
	Close() error
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
	// scalar μ and σ), "categorical" or "categorical_logit".
	Name string
	// Func is the scalar function of an "elementwise" kernel.
	Func *ScalarFunc
	// Ints are the kernel's sizes: the categories K of a categorical.
	Ints []int
	// Tables are per-element index tables: a categorical's label and row of
	// each result element, nil where they are the element's own index.
	Tables [][]int
}

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
