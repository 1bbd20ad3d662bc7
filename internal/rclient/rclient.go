// Package rclient finds R for the tests that check temper against R's
// packages (rstan, posterior, loo, bridgesampling). A test that needs R
// skips with the packages to install when R or one of them is missing, so
// that go test ./... passes on a fresh machine, and fails instead under
// CI=true, where .ci/run installs them.
package rclient

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Require returns the path of Rscript when it and the R packages given
// load; otherwise the test skips, or fails under CI=true.
func Require(t testing.TB, packages ...string) string {
	t.Helper()
	rscript, err := exec.LookPath("Rscript")
	if err == nil {
		var loads []string
		for _, p := range packages {
			loads = append(loads, fmt.Sprintf("suppressPackageStartupMessages(library(%s))", p))
		}
		var out []byte
		if out, err = exec.Command(rscript, "-e", strings.Join(loads, ";")).CombinedOutput(); err == nil {
			return rscript
		}
		err = fmt.Errorf("%v: %s", err, out)
	}
	var debs []string
	for _, p := range packages {
		debs = append(debs, "r-cran-"+strings.ToLower(p))
	}
	msg := fmt.Sprintf("R with %s is needed (apt-get install %s): %v", strings.Join(packages, " and "), strings.Join(debs, " "), err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Output runs an R script and returns its standard output; the test fails
// with R's standard error when the script fails. Notes R writes on
// standard error (rstan's, when the recommended package codetools is
// missing) are not results, so they stay out of what is returned.
func Output(t testing.TB, rscript, script string) string {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command(rscript, "-e", script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Rscript: %v\n%s%s", err, out, stderr.String())
	}
	return string(out)
}
