package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/cmd/temper/internal/mnist"
	"github.com/temper-ppl/temper/compile"
	example "github.com/temper-ppl/temper/examples/mnist"
	"github.com/temper-ppl/temper/examples/mnist/idx"
	"github.com/temper-ppl/temper/infer"
)

const benchUsage = `usage: temper bench [--net mlp|lstm|cnn] [--replicas 1,4,16] [--threads N] [--epochs E] [--data DIR] [--batch B]
    [--precision float32|float64] [--seed S] [--lr η] [--thin n] [--repeat K]
    [--limit-train N] [--limit-test N] [--hidden H] [--device cpu|cuda] [--json] [--out DIR]`

// benchSharedData is where the full MNIST lies beside a checkout of the
// project; without it the bench uses the subset shipped in examples/mnist.
const benchSharedData = "../shared/data/mnist"

// benchWarmup is the number of steps left out of the timing, as in the peer:
// the first steps pay for allocations, page faults and cold caches.
const benchWarmup = 50

// benchConfig is what the flags ask for, then what follows from it.
type benchConfig struct {
	replicas               []int
	threads, epochs, batch int
	repeat, thin           int
	limitTrain, limitTest  int
	precision, data        string
	device                 string
	cpuProfile             string
	out                    string // the run's folder: draws, summary.csv and diagnostics.json, as temper run writes them
	lr                     float64
	seed                   uint64
	json                   bool
	stderr                 io.Writer // progress, one line per epoch; nil with --json

	train, test             *idx.Set
	dataLabel               string // where the data came from, for the output
	stepsPerEpoch, numSteps int
	model                   *temper.Model
	predictor               *compile.Predictor // the test set through the model's predict block
	net                     *benchNet          // --net
	hidden                  int                // H of the network (--hidden), 0 for one without
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, benchUsage); fs.PrintDefaults() }
	c := &benchConfig{}
	replicas := fs.String("replicas", "1,4,16", "comma-separated numbers of independent chains P, each batched in one evaluation")
	fs.IntVar(&c.threads, "threads", 0, "GOMAXPROCS and the sampler's threads (default GOMAXPROCS)")
	fs.IntVar(&c.epochs, "epochs", 10, "passes over the training set; the first half is burn-in")
	fs.StringVar(&c.data, "data", "", "folder of the four MNIST IDX files, raw or .gz (default "+benchSharedData+" if it exists, else the subset in "+example.SubsetDir+")")
	fs.IntVar(&c.batch, "batch", 128, "minibatch rows per chain")
	fs.StringVar(&c.precision, "precision", "float32", "float32 or float64: the type the model is computed in")
	seed := fs.Int64("seed", 1, "random seed (initial points, minibatches, noise)")
	fs.Float64Var(&c.lr, "lr", 1e-5, "SGLD step size on the N/B-scaled potential")
	fs.IntVar(&c.thin, "thin", 100, "after burn-in, a draw every thin steps feeds the test-set predictive")
	fs.IntVar(&c.repeat, "repeat", 1, "runs of each configuration; the median by speed is reported")
	fs.IntVar(&c.limitTrain, "limit-train", 0, "use only the first N training images (0: all)")
	fs.IntVar(&c.limitTest, "limit-test", 0, "use only the first N test images (0: all)")
	net := fs.String("net", "mlp", "the network: mlp (examples/mnist/model.ppl), lstm (lstm.ppl) or cnn (cnn.ppl)")
	fs.IntVar(&c.hidden, "hidden", 0, "hidden units of the MLP (default 100; 1200 is the wide network) or of the LSTM (default 128); the peers' --hidden")
	fs.StringVar(&c.device, "device", "cpu", "where the model is computed: cpu or cuda (a build with -tags cuda)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the runs to this file (go tool pprof reads it)")
	fs.StringVar(&c.out, "out", "", "save the run's draws, summary.csv and diagnostics.json in this folder, as temper run does, for temper summary and temper plot (one --replicas value, --repeat 1)")
	fs.BoolVar(&c.json, "json", false, "print a JSON array, one object per replica count, and no progress")
	flags, pos := reorderFlags(args, "json")
	if err := fs.Parse(flags); err != nil {
		return nil, badf("temper bench: %v", err)
	}
	if len(pos) > 0 {
		return nil, badf("temper bench: unexpected argument %q\n%s", pos[0], benchUsage)
	}
	var err error
	if c.replicas, err = parseReplicas(*replicas); err != nil {
		return nil, err
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{c.threads < 0, fmt.Sprintf("--threads must be at least 1 (or 0 for GOMAXPROCS), got %d", c.threads)},
		{c.epochs < 1, fmt.Sprintf("--epochs must be at least 1, got %d", c.epochs)},
		{c.batch < 1, fmt.Sprintf("--batch must be at least 1, got %d", c.batch)},
		{c.repeat < 1, fmt.Sprintf("--repeat must be at least 1, got %d", c.repeat)},
		{c.thin < 1, fmt.Sprintf("--thin must be at least 1, got %d", c.thin)},
		{c.limitTrain < 0 || c.limitTest < 0, "--limit-train and --limit-test must be ≥ 0"},
		{!(c.lr > 0) || math.IsInf(c.lr, 0), fmt.Sprintf("--lr must be a positive number, got %g", c.lr)},
		{*seed < 0, fmt.Sprintf("--seed must be ≥ 0, got %d", *seed)},
		{c.precision != "float32" && c.precision != "float64", fmt.Sprintf("--precision must be float32 or float64, got %q", c.precision)},
		{c.hidden < 0, fmt.Sprintf("--hidden must be at least 1, got %d", c.hidden)},
		{c.device != "cpu" && c.device != "cuda", fmt.Sprintf("--device must be cpu or cuda, got %q", c.device)},
		{c.out != "" && (len(c.replicas) != 1 || c.repeat != 1), "--out saves one run: give one --replicas value and --repeat 1"},
	}
	for _, ch := range checks {
		if ch.bad {
			return nil, badf("temper bench: %s", ch.msg)
		}
	}
	c.seed = uint64(*seed)
	if c.net = benchNetNamed(*net); c.net == nil {
		return nil, badf("temper bench: --net must be mlp, lstm or cnn, got %q", *net)
	}
	switch {
	case c.hidden > 0 && c.net.hidden == 0:
		return nil, badf("temper bench: --hidden sets the units of the mlp or the lstm; the %s has none to set", c.net.name)
	case c.hidden == 0:
		c.hidden = c.net.hidden
	}
	if !c.json {
		c.stderr = stderr
	}
	return c, nil
}

// parseReplicas reads --replicas: whole numbers ≥ 1, comma-separated.
func parseReplicas(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 {
			return nil, badf("temper bench: --replicas wants numbers of chains ≥ 1 separated by commas, such as 1,4,16; got %q", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// loadData reads the MNIST files: from --data, else from the shared full
// copy if there is one, else the subset built into the command.
func (c *benchConfig) loadData() error {
	var d *idx.Data
	var err error
	switch info, statErr := os.Stat(benchSharedData); {
	case c.data != "":
		d, err = idx.Load(c.data)
		c.dataLabel = c.data
	case statErr == nil && info.IsDir():
		d, err = idx.Load(benchSharedData)
		c.dataLabel = benchSharedData
	default:
		d, err = idx.LoadFS(example.Subset(), example.SubsetDir)
		c.dataLabel = example.SubsetDir + " (the shipped subset)"
	}
	if err != nil {
		return badf("temper bench: MNIST %v", err)
	}
	c.train, c.test = d.Train.Head(c.limitTrain), d.Test.Head(c.limitTest)
	if c.train.Dim() != mnist.Net.D {
		return badf("temper bench: images of %d × %d pixels; the network takes 28 × 28", c.train.Rows, c.train.Cols)
	}
	if c.batch > c.train.N {
		return badf("temper bench: --batch %d is more than the %d training images", c.batch, c.train.N)
	}
	c.stepsPerEpoch = c.train.N / c.batch // the peer drops the last partial batch; so does the driver
	c.numSteps = c.epochs * c.stepsPerEpoch
	return nil
}

// compileOn binds set to the network's model.
func (c *benchConfig) compileOn(set *idx.Set) (*temper.Model, error) {
	labels := make([]float64, set.N)
	for i, y := range set.Labels {
		labels[i] = float64(y + 1) // categorical labels are 1-based
	}
	data := map[string]any{
		"X":     &compile.Value{Shape: append([]int{set.N}, c.net.image...), Values: set.Pixels, Source: c.dataLabel},
		"label": &compile.Value{Shape: []int{set.N}, Values: labels, Source: c.dataLabel},
	}
	if c.hidden > 0 {
		data["H"] = c.hidden
	}
	for k, v := range c.net.sizes {
		data[k] = v
	}
	return temper.Compile(c.net.file, c.net.source, data)
}

// compileModel binds the training set to the network's model, checks that
// a draw holds θ as it is, and prepares the test set's predictive.
func (c *benchConfig) compileModel() error {
	m, err := c.compileOn(c.train)
	if err != nil {
		return err
	}
	// Every parameter is unconstrained, so a draw's values after lp__ are
	// θ itself, in the same layout.
	cols := m.Columns()
	for _, p := range m.Params() {
		if p.Kind != "" || len(cols) != 1+m.Dim() || cols[1+p.Offset] != p.Name+strings.Repeat(".1", len(p.Shape)) {
			return fmt.Errorf("%s: parameter %s is not laid out in the draws as θ (%d columns for %d parameters)", c.net.file, p.Name, len(cols), m.Dim())
		}
	}
	c.model = m
	// The test set through the same model's predict block: the accuracy of
	// the posterior-mean predictive, argmax_k Σ_s p(k | θ_s), as the peer
	// computes it.
	tm, err := c.compileOn(c.test)
	if err != nil {
		return fmt.Errorf("%s with the test set: %v", c.net.file, err)
	}
	if c.predictor, err = tm.Compiled().Predictor(); err != nil {
		return fmt.Errorf("%s: %v", c.net.file, err)
	}
	return nil
}

// benchCommand is temper bench, issue 7's reproducible benchmark: SGLD on
// the Bayesian MLP of examples/mnist (or its LSTM or CNN, --net), set up as
// the PyTorch peers (cmd/temper/peers) set up the same experiment, so that
// the two print comparable steps/s and accuracies.
func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "data" {
		return benchDataCommand(ctx, args[1:], stdout, stderr)
	}
	c, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := c.loadData(); err != nil {
		return err
	}
	if c.threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.threads))
	}
	c.threads = runtime.GOMAXPROCS(0)
	if err := c.compileModel(); err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var results []benchResult
	for _, p := range c.replicas {
		r, err := c.measure(ctx, p)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if prof := autodiff.DeviceProfile(); prof != "" {
		fmt.Fprint(stderr, prof)
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	return c.writeTable(stdout, results)
}

// benchResult is one configuration's figures, the median run by speed of
// --repeat runs; it is what --json prints.
type benchResult struct {
	Net              string  `json:"net"`
	Replicas         int     `json:"replicas"`
	Threads          int     `json:"threads"`
	Precision        string  `json:"precision"`
	Device           string  `json:"device"`
	Batch            int     `json:"batch"`
	Epochs           int     `json:"epochs"`
	Steps            int     `json:"steps"` // update steps per chain
	BurnIn           int     `json:"burn_in_steps"`
	Thin             int     `json:"thin"`
	LR               float64 `json:"lr"`
	Seed             uint64  `json:"seed"`
	Data             string  `json:"data"`
	TrainRows        int     `json:"train_rows"`
	TestRows         int     `json:"test_rows"`
	ParamsPerReplica int     `json:"params_per_replica"`
	WarmupSteps      int     `json:"warmup_steps"`
	TimedSteps       int     `json:"timed_steps"`
	StepsPerS        float64 `json:"steps_per_s"` // steps of all replicas together
	ReplicaStepsPerS float64 `json:"replica_steps_per_s"`
	MFLOPPerStep     float64 `json:"mflop_per_replica_step"`
	GFLOPS           float64 `json:"gflops"`
	// NoiseUpdateNs is the driver's work per parameter and step besides
	// the model (the SGLD update and its Gaussian noise), timed apart.
	NoiseUpdateNs        float64   `json:"noise_update_ns_per_param"`
	PeakRSSMiB           *float64  `json:"peak_rss_mib,omitempty"`
	EvalS                float64   `json:"eval_s"` // test-set predictions, after the timed run
	SamplesPerChain      int       `json:"samples_per_chain"`
	TestAccuracy         float64   `json:"test_accuracy"`
	TestAccuracyPerChain []float64 `json:"test_accuracy_per_chain"`
	Repeat               int       `json:"repeat"`
	ReplicaStepsPerSRuns []float64 `json:"replica_steps_per_s_runs"`
}

// measure runs P chains --repeat times and keeps the run of median speed.
func (c *benchConfig) measure(ctx context.Context, p int) (benchResult, error) {
	var runs []benchResult
	for i := range c.repeat {
		if c.stderr != nil {
			fmt.Fprintf(c.stderr, "P = %d, run %d of %d\n", p, i+1, c.repeat)
		}
		r, err := c.runOnce(ctx, p)
		if err != nil {
			return r, err
		}
		runs = append(runs, r)
	}
	slices.SortStableFunc(runs, func(a, b benchResult) int { return cmpFloat(a.ReplicaStepsPerS, b.ReplicaStepsPerS) })
	r := runs[(len(runs)-1)/2]
	for _, x := range runs {
		r.ReplicaStepsPerSRuns = append(r.ReplicaStepsPerSRuns, x.ReplicaStepsPerS)
	}
	ns, err := updateCost(ctx, p, c.model.Dim(), c.lr, c.seed)
	if err != nil {
		return r, err
	}
	r.NoiseUpdateNs = ns
	if b, ok := mnist.PeakRSS(); ok {
		mib := float64(b) / (1 << 20)
		r.PeakRSSMiB = &mib
	}
	return r, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runOnce samples P chains for the configured epochs as the peer does: burn-in
// for half of them, then the predictive of the test set from a draw every
// thin steps.
func (c *benchConfig) runOnce(ctx context.Context, p int) (benchResult, error) {
	burn := int(math.RoundToEven(float64(c.epochs) / 2 * float64(c.stepsPerEpoch))) // Python's round, as in the peer
	// The peer collects the state after burn+thin, burn+2·thin, ... steps,
	// up to the last; iteration k of the driver records the state after k
	// steps, so the run starts keeping at k = burn+thin and goes one
	// iteration past the last step. A run too short for one collection
	// keeps the final state, as the peer then does.
	first := min(burn+c.thin, c.numSteps)
	warm := min(benchWarmup, c.numSteps/2)
	init := make([][]float64, p)
	for i := range init {
		init[i] = make([]float64, c.model.Dim())
		c.net.initialise(init[i], c.model.Params(), rand.New(rand.NewPCG(c.seed, 1<<32+uint64(i))))
	}
	clock := &stepClock{warm: warm}
	if warm == 0 { // a one-step run: time it from the start
		clock.start, clock.started = time.Now(), true
	}
	opts := temper.Options{
		Sampler:   "sgld",
		Settings:  map[string]any{"lr": c.lr, "temperature": 1},
		Chains:    p,
		Burn:      first,
		Iters:     c.numSteps - first + 1,
		Thin:      c.thin,
		Batch:     c.batch,
		Seed:      c.seed,
		Precision: c.precision,
		Device:    c.device,
		Threads:   c.threads,
		Init:      init,
		Progress: func(p infer.Progress) {
			done := p.Done
			clock.tick(done)
			if c.stderr != nil && done%c.stepsPerEpoch == 0 && done <= c.numSteps {
				fmt.Fprintf(c.stderr, "  epoch %d/%d: %s\n", done/c.stepsPerEpoch, c.epochs, clock)
			}
		},
	}
	res, err := c.model.Sample(ctx, opts)
	if err != nil {
		return benchResult{}, err
	}
	rate := clock.rate()
	if c.out != "" {
		if err := res.Save(c.out, "temper bench"); err != nil {
			return benchResult{}, err
		}
	}
	evalStart := time.Now()
	acc, perChain, err := c.accuracy(res.Draws)
	if err != nil {
		return benchResult{}, err
	}
	flops := c.net.flops(c.hidden, c.batch)
	return benchResult{
		Net: c.net.name, Replicas: p, Threads: c.threads, Precision: c.precision, Device: c.device, Batch: c.batch, Epochs: c.epochs,
		Steps: c.numSteps, BurnIn: burn, Thin: c.thin, LR: c.lr, Seed: c.seed, Data: c.dataLabel,
		TrainRows: c.train.N, TestRows: c.test.N, ParamsPerReplica: c.model.Dim(),
		WarmupSteps: warm, TimedSteps: clock.timed,
		StepsPerS: rate, ReplicaStepsPerS: rate * float64(p),
		MFLOPPerStep: flops / 1e6, GFLOPS: flops * rate * float64(p) / 1e9,
		EvalS: time.Since(evalStart).Seconds(), SamplesPerChain: len(res.Draws[0]),
		TestAccuracy: acc, TestAccuracyPerChain: perChain, Repeat: c.repeat,
	}, nil
}

// accuracy is the test accuracy of the posterior-mean predictive of each
// chain's draws (rows of lp__ then θ) and of all of them pooled.
func (c *benchConfig) accuracy(draws [][][]float64) (pooled float64, perChain []float64, err error) {
	var all [][]float64
	for _, chain := range draws {
		points := make([][]float64, len(chain))
		for i, row := range chain {
			points[i] = row[1:]
		}
		pr, err := c.predictor.Predict(points)
		if err != nil {
			return 0, nil, err
		}
		perChain = append(perChain, pr.Samples[0].Accuracy)
		all = append(all, points...)
	}
	if len(draws) == 1 {
		return perChain[0], perChain, nil
	}
	pr, err := c.predictor.Predict(all)
	if err != nil {
		return 0, nil, err
	}
	return pr.Samples[0].Accuracy, perChain, nil
}

// stepClock times the update steps from the end of the warm-up to the last
// step done (Progress is called at the end of each iteration).
type stepClock struct {
	warm        int
	start, last time.Time
	started     bool
	timed       int
}

func (c *stepClock) tick(done int) {
	now := time.Now()
	switch {
	case done == c.warm:
		c.start, c.started = now, true
	case done > c.warm && c.started:
		c.last, c.timed = now, done-c.warm
	}
}

// String is the speed so far, for the progress lines.
func (c *stepClock) String() string {
	if c.timed == 0 {
		return "warming up"
	}
	return fmt.Sprintf("%.1f steps/s", c.rate())
}

// rate is the update steps per second so far (0 before any is timed).
func (c *stepClock) rate() float64 {
	s := c.last.Sub(c.start).Seconds()
	if c.timed == 0 || s <= 0 {
		return 0
	}
	return float64(c.timed) / s
}

// updateCost is the driver's time per parameter and step besides the
// model's evaluation: the SGLD update θ ← θ − η∇Ũ + √(2ηT)ξ with its
// Gaussian draws, and the finiteness check. It runs the same sampler on P
// replicas of a target of dimension dim whose evaluation costs nothing.
func updateCost(ctx context.Context, p, dim int, lr float64, seed uint64) (float64, error) {
	s, err := infer.NewSampler("sgld", map[string]string{"lr": strconv.FormatFloat(lr, 'g', -1, 64), "temperature": "1"})
	if err != nil {
		return 0, err
	}
	const warm = 5
	iters := min(max(int(3e7/float64(p*dim)), 4*warm), 500) // about 0.1 s
	clock := &stepClock{warm: warm}
	_, err = infer.Run(ctx, freeTarget(dim), s, infer.Options{Chains: p, Iters: iters, Thin: iters, Seed: seed,
		Progress: func(p infer.Progress) { clock.tick(p.Done) }})
	if err != nil {
		return 0, err
	}
	if clock.rate() == 0 {
		return 0, nil // too fast to time; JSON has no infinity
	}
	return 1e9 / clock.rate() / float64(p*dim), nil
}

// freeTarget is a target of that many parameters whose energy and
// gradient are 0, evaluated for free.
type freeTarget int

func (t freeTarget) Dim() int                                                { return int(t) }
func (freeTarget) NumData() int                                              { return 0 }
func (freeTarget) Evaluator(_, _ int) (infer.Evaluator, error)               { return freeEvaluator{}, nil }
func (t freeTarget) Constrain(dst, theta []float64)                          { copy(dst, theta) }
func (t freeTarget) OutputNames() []string                                   { return make([]string, t) }
func (freeEvaluator) Evaluate(_ []float64, _ []int, _, _, _ []float64) error { return nil }
func (freeEvaluator) BatchSize() int                                         { return 0 }

type freeEvaluator struct{}

// writeTable prints the results for people: the settings, then a row per
// replica count.
func (c *benchConfig) writeTable(w io.Writer, results []benchResult) error {
	r0 := results[0]
	fmt.Fprintf(w, "temper bench: SGLD on %s (%d parameters per replica), MNIST\n", c.net.title(c.hidden), r0.ParamsPerReplica)
	fmt.Fprintf(w, "data: %s, %d training and %d test images\n", c.dataLabel, c.train.N, c.test.N)
	fmt.Fprintf(w, "lr %g, batch %d, %s of %d steps (burn-in %d, a draw every %d), %s, %s, %s, seed %d",
		c.lr, c.batch, plural(c.epochs, "epoch"), c.stepsPerEpoch, r0.BurnIn, c.thin, c.precision, c.device, plural(c.threads, "thread"), c.seed)
	if c.repeat > 1 {
		fmt.Fprintf(w, ", median of %d runs", c.repeat)
	}
	fmt.Fprintf(w, "\nsteps/s over %d of %d steps (the warm-up left out); %.1f MFLOP per replica-step\n\n",
		r0.TimedSteps, r0.Steps, r0.MFLOPPerStep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "replicas\tsteps/s\treplica-steps/s\tGFLOP/s\tupdate ns/param\tpeak RSS MiB\taccuracy\tchains\t")
	for _, r := range results {
		rss := "-"
		if r.PeakRSSMiB != nil {
			rss = fmt.Sprintf("%.0f", *r.PeakRSSMiB)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.2f\t%.2f\t%s\t%.4f\t%s\t\n", r.Replicas, r.StepsPerS, r.ReplicaStepsPerS, r.GFLOPS, r.NoiseUpdateNs, rss, r.TestAccuracy, chainRange(r.TestAccuracyPerChain))
	}
	return tw.Flush()
}

// chainRange is the accuracy of a single chain, or the lowest and highest
// of several.
func chainRange(acc []float64) string {
	if len(acc) == 1 {
		return fmt.Sprintf("%.4f", acc[0])
	}
	return fmt.Sprintf("%.4f-%.4f", slices.Min(acc), slices.Max(acc))
}

// plural is n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
