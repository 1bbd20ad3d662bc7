package temper

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/rclient"
)

// TestLogZAgreesWithBridgesampling hands the target level's draws of two
// power-path runs to R's bridgesampling (Gronau et al. 2017, the warp-free
// bridge sampler with a normal proposal), with the model's log posterior
// written out in R, and compares its log marginal likelihood with temper's
// stepping stones. Both estimate the same number from different
// information (bridge sampling from the posterior draws and the density's
// formula, the stepping stones from the ladder's likelihoods), so they
// must agree within 0.1 (the bar; each is within a few hundredths
// of the exact value, TestLogZKnownEvidence). The half-normal scale checks
// that temper's prior carries the mass 1/2 of its bounded normal: without
// it the two would differ by log 2.
func TestLogZAgreesWithBridgesampling(t *testing.T) {
	rscript := rclient.Require(t, "bridgesampling", "jsonlite")
	for _, c := range []struct{ name, logPosterior, bounds string }{
		{"normal_mean", "dnorm(p[['mu']], 0, 2, log = TRUE) + sum(dnorm(d$y, p[['mu']], 1, log = TRUE))", "lb = c(mu = -Inf), ub = c(mu = Inf)"},
		{"scale", "log(2) + dnorm(p[['sigma']], 0, 1, log = TRUE) + sum(dnorm(d$y, 0, p[['sigma']], log = TRUE))", "lb = c(sigma = 0), ub = c(sigma = Inf)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("examples", "evidence")
			m, err := CompileFile(filepath.Join(dir, c.name+".ppl"), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Sample(context.Background(), Options{Sampler: "pt", Settings: map[string]any{"path": "power"}, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Evidence == nil {
				t.Fatal("no log Z")
			}
			out := t.TempDir()
			if err := res.Save(out); err != nil {
				t.Fatal(err)
			}
			script := fmt.Sprintf(`
set.seed(1)
d <- jsonlite::fromJSON(%q)
draws <- read.csv(%q, comment.char = "#")
draws <- as.matrix(draws[, !(names(draws) %%in%% c("chain", "iter", "lp__")) & !grepl("__$", names(draws)), drop = FALSE])
lp <- function(p, data) { d <- data; %s }
bs <- bridgesampling::bridge_sampler(samples = draws, log_posterior = lp, data = d, %s, silent = TRUE)
cat("logml", sprintf("%%.10f", bs$logml), "\n")
`, filepath.Join(dir, c.name+".json"), filepath.Join(out, "draws.csv"), c.logPosterior, c.bounds)
			raw, err := exec.Command(rscript, "-e", script).CombinedOutput()
			if err != nil {
				t.Fatalf("R: %v\n%s", err, raw)
			}
			var bridge float64
			for _, line := range strings.Split(string(raw), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "logml" {
					bridge, err = strconv.ParseFloat(f[1], 64)
				}
			}
			if err != nil || bridge == 0 {
				t.Fatalf("no logml from R: %v\n%s", err, raw)
			}
			t.Logf("temper %v; bridgesampling %.4f", *res.Evidence, bridge)
			if math.Abs(res.Evidence.LogZ-bridge) > 0.1 {
				t.Errorf("log Z: temper %.4f ± %.4f, bridgesampling %.4f", res.Evidence.LogZ, res.Evidence.LogZSE, bridge)
			}
		})
	}
}
