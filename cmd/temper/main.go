// Command temper checks and samples .ppl models.
//
//	temper check MODEL.ppl [--data FILE]...
//	temper run MODEL.ppl [--data FILE]... [--sampler NAME] [--set key=value]... [flags]
//	    (temper run -h; the flags are settings.Keys())
//	temper summary DRAWS.csv|RUN_DIR|CHAIN.csv... [--replica N]
//	temper merge OUT_DIR RUN_DIR...
//	temper compare RUN_DIR RUN_DIR...
//	temper loo RUN_DIR
//	temper predict MODEL.ppl --draws DRAWS.csv [--data FILE]... [--out FILE]
//	temper sbc MODEL.ppl --generator GEN.ppl [--data FILE]... [flags]
//	temper repl [MODEL.ppl] [--data FILE]...
//	temper bench [--replicas 1,4,16] [--threads N] [--epochs E] [--data DIR] [--json]
//	temper bench data [--rows N] [--cols D] [--formats csv,npy,parquet] [--dir DIR] [--repeat K] [--json]
//
// Exit codes: 0 ok, 1 the run failed (or was interrupted; the draws so far
// are kept), 2 bad input (a diagnostic says where), 3 temper run --strict
// and the run has warnings (its files are written), or temper sbc
// --strict and a parameter's ranks reject uniformity.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailure  = 1
	exitBadInput = 2
	exitWarnings = 3 // --strict, and the run has warnings (temper run) or the ranks reject uniformity (temper sbc)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `temper: probabilistic programs sampled by stochastic-gradient MCMC

usage:
  temper check MODEL.ppl [--data FILE]...     parse and check a model (and its data)
  temper translate MODEL.stan [-o MODEL.ppl]  a Stan program as a .ppl model, its gaps listed (help translate)
  temper run MODEL.ppl [flags]                sample a model; temper run -h lists the flags
                                              (--strict: exit 3 when the run has warnings)
                                              (--chain-id K: chain K alone of the --chains C run, an array job's task)
  temper merge OUT_DIR RUN_DIR...             join runs of one run's chains (--chain-id tasks) into one run folder
  temper summary DRAWS.csv|RUN_DIR|CHAINS...  summarise draws (temper's file, a run folder, per-chain files)
  temper plot RUN_DIR [--kind KIND] [--params a,b] [--out FILE]
                                              trace, density, rank, acf or pair plots of the draws
  temper loo RUN_DIR                          PSIS-LOO and WAIC of a run written with --log-lik
  temper compare RUN_DIR RUN_DIR...           runs ranked by elpd_loo (with --log-lik) and by log Z (pt --set path=power)
  temper export RUN_DIR [--out DIR.zarr]      the draws as ArviZ's InferenceData (Zarr)
  temper predict MODEL.ppl --draws DRAWS.csv [--data FILE]... [--out FILE]
                                              posterior predictive: NLL, accuracy, means
  temper sbc MODEL.ppl --generator GEN.ppl [flags]
                                              simulation-based calibration of a sampler: ranks of
                                              simulated truths among posterior draws, χ² per parameter
  temper samplers                             list the samplers and their options
  temper repl [MODEL.ppl] [--data FILE]...    an interactive session (:help inside lists its commands)
  temper gallery [--check] [--slow]           make examples/index.md and the gallery's fast pages (go run -tags purego);
                                              --slow: its slow pages, the papers' experiments (minutes)
  temper bench [--replicas 1,4,16] [flags]    SGLD on a Bayesian MLP for MNIST: steps/s, GFLOP/s, accuracy
  temper bench data [--rows N] [--cols D]     load an N × D table as CSV, .npy and Parquet: MB/s, peak RSS
`

// run is the whole command, for tests: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadInput
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "check":
		err = checkCommand(rest, stdout, stderr)
	case "run":
		err = runCommand(ctx, rest, stdout, stderr)
	case "summary":
		err = summaryCommand(rest, stdout, stderr)
	case "merge":
		err = mergeCommand(rest, stdout, stderr)
	case "predict":
		err = predictCommand(rest, stdout, stderr)
	case "plot":
		err = plotCommand(rest, stdout, stderr)
	case "compare":
		err = compareCommand(rest, stdout, stderr)
	case "loo":
		err = looCommand(rest, stdout, stderr)
	case "export":
		err = exportCommand(rest, stdout, stderr)
	case "sbc":
		err = sbcCommand(ctx, rest, stdout, stderr)
	case "samplers":
		err = samplersCommand(stdout)
	case "repl":
		err = replCommand(rest, stdout, stderr)
	case "bench":
		err = benchCommand(ctx, rest, stdout, stderr)
	case "gallery":
		err = galleryCommand(ctx, rest, stdout, stderr)
	case "translate":
		err = translateCommand(rest, stdout, stderr)
	case "help", "-h", "--help":
		if len(rest) > 0 && rest[0] == "translate" {
			fmt.Fprint(stdout, translateHelp)
			return exitOK
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "temper: unknown command %q\n\n%s", cmd, usage)
		return exitBadInput
	}
	if err == nil {
		return exitOK
	}
	var strict strictFailure
	if errors.As(err, &strict) {
		fmt.Fprintf(stderr, "temper %s: %v\n", cmd, err)
		return exitWarnings
	}
	var bad badInput
	if errors.As(err, &bad) {
		fmt.Fprintln(stderr, strings.TrimRight(bad.Error(), "\n"))
		return exitBadInput
	}
	fmt.Fprintf(stderr, "temper %s: %v\n", cmd, err)
	return exitFailure
}

// badInput is an error in what the user gave (a model, data, flags): exit 2.
type badInput struct{ msg string }

func (b badInput) Error() string { return b.msg }

func badf(format string, args ...any) error { return badInput{fmt.Sprintf(format, args...)} }

// reorderFlags moves positional arguments after the flags, so that
// `temper run model.ppl --chains 2` parses as users expect.
func reorderFlags(args []string, boolFlags ...string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && !slices.Contains(boolFlags, name) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return flags, positional
}
