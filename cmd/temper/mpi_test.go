package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// requireMPI returns mpirun when Open MPI and its headers are here (Debian's
// openmpi-bin and libopenmpi-dev); the test skips otherwise, and fails
// under CI=true, where .ci/run installs them.
func requireMPI(t *testing.T) string {
	t.Helper()
	mpirun, err := exec.LookPath("mpirun")
	if err == nil {
		err = exec.Command("pkg-config", "--exists", "ompi-c").Run()
	}
	if err != nil {
		missingTool(t, fmt.Sprintf("Open MPI is needed (apt-get install openmpi-bin libopenmpi-dev pkg-config): %v", err))
	}
	return mpirun
}

// TestMPIRunsMatch builds temper with the tag mpi and runs the cosine2d
// example (DEO with a 16-level step-size ladder and synthetic noise) in
// one process and under mpirun with 2 and 4 processes over loopback: the
// draws and the summary must be the one-process run's, byte for byte (the
// guarantee Pigeons.jl gives), as each replica keeps its own random stream
// and every process decides every swap from the same energies.
func TestMPIRunsMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds temper with cgo and runs mpirun; skipped with -short")
	}
	mpirun := requireMPI(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "temper-mpi")
	if out, err := exec.Command("go", "build", "-tags", "mpi", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	model := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	runArgs := func(out string) []string {
		return []string{"run", model, "--iters", "2000", "--out", out, "--quiet"}
	}
	one := filepath.Join(dir, "one")
	if out, err := exec.Command(bin, runArgs(one)...).CombinedOutput(); err != nil {
		t.Fatalf("one process: %v\n%s", err, out)
	}
	for _, n := range []int{2, 4} {
		out := filepath.Join(dir, "np"+strconv.Itoa(n))
		args := []string{"--oversubscribe", "-np", strconv.Itoa(n)}
		if os.Geteuid() == 0 {
			args = append(args, "--allow-run-as-root")
		}
		cmd := exec.Command(mpirun, append(append(args, bin), runArgs(out)...)...)
		cmd.Env = append(os.Environ(), "OMPI_MCA_btl=self,vader,tcp", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mpirun -np %d: %v\n%s", n, err, msg)
		}
		// The run was split, not made whole by every process.
		if raw, err := os.ReadFile(filepath.Join(out, "diagnostics.json")); err != nil || !bytes.Contains(raw, []byte(fmt.Sprintf(`"processes": %d`, n))) {
			t.Fatalf("mpirun -np %d: diagnostics.json does not record %d processes (%v)", n, n, err)
		}
		for _, f := range []string{"draws.csv", "draws_1.csv", "summary.csv"} {
			a, err1 := os.ReadFile(filepath.Join(one, f))
			b, err2 := os.ReadFile(filepath.Join(out, f))
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", f, err1, err2)
			}
			if f == "draws_1.csv" { // its timing lines differ; compare the draws
				a, b = withoutComments(a), withoutComments(b)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("mpirun -np %d: %s differs from the one-process run's", n, f)
			}
		}
	}
}

// withoutComments drops a CSV's # lines.
func withoutComments(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
