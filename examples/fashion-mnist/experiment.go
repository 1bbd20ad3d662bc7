package fashionmnist

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
)

// Config is one run of the experiment: a network, the data, one sampler.
type Config struct {
	Model string // "lstm" (seed 001's network) or "cnn"
	// Data is a folder holding the four gzipped IDX files; empty means
	// the shipped subset (Subset).
	Data        string
	Train, Test int     // the first Train training and Test test images
	Permuted    float64 // the fraction of training labels permuted (PermuteLabels)
	// Sampler is a temper preset (temper samplers lists them), empty for
	// the model's infer block's; Settings override its settings (with a
	// Sampler, the infer block's settings are not used).
	Sampler  string
	Settings map[string]any
	// Epochs is the length of the run in passes over the training images
	// by each replica; the first half is burn-in, and Draws of the second
	// half's iterations, evenly spaced, are kept (fewer if a cyclical
	// schedule's sampling stages hold fewer).
	Epochs float64
	Draws  int
	Hidden int // the LSTM's units H (the paper's 128)
	// Channels is the CNN's channels C.
	Channels int
	Seed     uint64
	Threads  int // 0: every core
}

// Outcome is what a run measured.
type Outcome struct {
	Model      string         `json:"model"`
	Sampler    string         `json:"sampler"`
	Settings   map[string]any `json:"settings"`
	Params     int            `json:"params"`
	Train      int            `json:"train"`
	Test       int            `json:"test"`
	Permuted   float64        `json:"permuted"`
	Epochs     float64        `json:"epochs"`
	Batch      int            `json:"batch"`
	Iterations int            `json:"iterations"` // per replica, burn-in included
	Replicas   int            `json:"replicas"`
	Draws      int            `json:"draws"` // kept draws of the target level the model average is over
	// Accuracy and NLL are those of the model average on the test
	// images: the most probable label of (1/S) Σ_s p(y | x, θ_s), and
	// −(1/N) Σ_n log (1/S) Σ_s p(y_n | x_n, θ_s).
	Accuracy float64 `json:"accuracy"`
	NLL      float64 `json:"nll"`
	// SwapRate is each adjacent pair's share of accepted swaps (replica
	// exchange only).
	SwapRate []float64 `json:"swap_rate,omitempty"`
	Seconds  float64   `json:"seconds"` // the sampling's wall time
	Warnings []string  `json:"warnings,omitempty"`
}

// Sampler is one sampler of the comparison: its name in the tables and the
// flags of Main that choose it and set it up.
type Sampler struct {
	Label string
	Args  []string
}

// PaperStep is ε·60,000/train: seed 001's ε = 5e-6 on its 60,000
// training images (Section 4.2) rescaled to train images so that the step
// on the mean loss, ε·N, stays the paper's.
func PaperStep(train int) float64 { return 5e-6 * 60000 / float64(train) }

// Samplers are the six samplers of the comparison at the step size eps,
// replica exchange on ladders of rungs levels (the paper's 12). Seed 001
// sets ε = 5e-6 for its 60,000 rows (Section 4.2, with c = 0.1, τ = 1.2
// and exchange minibatches of 256); the energy's minibatch estimate is
// scaled by N/B, so the same ε on fewer rows is a smaller step on the mean
// loss, and PaperStep gives the paper's step on the mean loss for fewer
// rows. Every sampler steps eps, with the friction or background noise
// 0.1. Cyclical SGHMC starts each cosine cycle at twice that (η0 = 2ε, so that
// its mean step is the others'; seed 002's 4 cycles); DEO*-mSGD's
// exploring levels run momentum SGD on steps from ε up to 10ε, the ladder
// adapted toward the swap rate 0.4 during burn-in (seed 000, Algorithm 1).
// RENHD exchanges every trajectory of every iterations (the paper's
// N = 200).
func Samplers(eps float64, rungs, every int) []Sampler {
	lr := func(x float64) string { return strconv.FormatFloat(x, 'g', 2, 64) }
	ladder := []string{"--set", "replicas=" + strconv.Itoa(rungs)}
	renhd := append([]string{"--set", "lr=" + lr(eps), "--set", "c=0.1", "--set", "tau=1.2",
		"--set", "every=" + strconv.Itoa(every), "--set", "exchange_batch=256"}, ladder...)
	return []Sampler{
		{"RENHD", append([]string{"--sampler", "renhd"}, renhd...)},
		{"RELD", append([]string{"--sampler", "renhd_reld"}, renhd...)},
		{"SGNHT", []string{"--sampler", "sgnht", "--set", "lr=" + lr(eps), "--set", "c=0.1"}},
		{"SGHMC", []string{"--sampler", "sghmc", "--set", "lr=" + lr(eps), "--set", "friction=0.1"}},
		{"cSGHMC", []string{"--sampler", "cyclical_sghmc", "--set", "lr=" + lr(2*eps), "--set", "friction=0.1", "--set", "cycles=4"}},
		{"DEO*-mSGD", append([]string{"--sampler", "deo_msgd", "--set", "lr_min=" + lr(eps), "--set", "lr_max=" + lr(10*eps), "--set", "friction=0.1"}, ladder...)},
	}
}

// ResultFile is the file Main writes an Outcome to, in its --out folder
// beside the run's draws.
const ResultFile = "result.json"

// Run compiles the model on the training images, samples it, and scores the
// model average of the kept draws on the test images. The run's Result is
// returned too, for its draws and diagnostics.
func Run(ctx context.Context, cfg Config) (*Outcome, *temper.Result, error) {
	src, extra, image, err := cfg.model()
	if err != nil {
		return nil, nil, err
	}
	d, err := Load(cfg.Data, cfg.Train, cfg.Test)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Join("examples", "fashion-mnist", cfg.Model+".ppl")
	train := bind(d.Train, PermuteLabels(d.Train.Labels, cfg.Permuted, cfg.Seed), image, extra)
	m, err := temper.Compile(name, src, train)
	if err != nil {
		return nil, nil, err
	}
	opts, err := m.InferOptions()
	if err != nil {
		return nil, nil, err
	}
	if cfg.Sampler != "" {
		opts.Sampler, opts.Settings = cfg.Sampler, nil
	}
	opts.Settings = mergeSettings(opts.Settings, cfg.Settings)
	if opts.Batch <= 0 || opts.Batch > cfg.Train {
		return nil, nil, fmt.Errorf("%s: minibatches of %d rows from %d training images", name, opts.Batch, cfg.Train)
	}
	if cfg.Epochs <= 0 || cfg.Draws <= 0 {
		return nil, nil, fmt.Errorf("a run needs epochs and draws above 0 (got %v and %d)", cfg.Epochs, cfg.Draws)
	}
	iters := int(math.Round(cfg.Epochs * float64(cfg.Train) / float64(opts.Batch)))
	opts.Burn = iters / 2
	opts.Thin = max((iters-opts.Burn)/cfg.Draws, 1)
	opts.Iters = opts.Thin * cfg.Draws
	opts.Chains, opts.Seed, opts.Threads = 1, cfg.Seed, cfg.Threads
	opts.Init = [][]float64{fanInStart(m, cfg.Seed)}
	start := time.Now()
	res, err := m.Sample(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	if res.Stopped != nil {
		return nil, res, fmt.Errorf("the run stopped: %v", res.Stopped)
	}
	seconds := time.Since(start).Seconds()
	test, err := temper.Compile(name, src, bind(d.Test, d.Test.Labels, image, extra))
	if err != nil {
		return nil, nil, err
	}
	pred, err := modelAverage(test, res)
	if err != nil {
		return nil, res, err
	}
	out := &Outcome{
		Model: cfg.Model, Sampler: opts.Sampler, Settings: opts.Settings, Params: m.Dim(),
		Train: cfg.Train, Test: cfg.Test, Permuted: cfg.Permuted, Epochs: cfg.Epochs, Batch: opts.Batch,
		Iterations: res.Iterations, Replicas: max(res.Replicas, 1), Draws: pred.Draws,
		Accuracy: pred.Samples[0].Accuracy, NLL: pred.Samples[0].NLL, Seconds: seconds, Warnings: res.Warnings,
	}
	if len(res.Exchange) > 0 {
		x := res.Exchange[0]
		for p := range x.Attempts {
			out.SwapRate = append(out.SwapRate, float64(x.Accepts[p])/float64(max(x.Attempts[p], 1)))
		}
	}
	return out, res, nil
}

// model is the configuration's model source, its size fields and the
// shape of one image.
func (cfg Config) model() (src string, extra map[string]any, image []int, err error) {
	switch cfg.Model {
	case "lstm":
		return LSTM, map[string]any{"H": cfg.Hidden}, []int{28, 28}, nil
	case "cnn":
		return CNN, map[string]any{"C": cfg.Channels}, []int{28, 28, 1}, nil
	}
	return "", nil, nil, fmt.Errorf("unknown model %q: lstm or cnn", cfg.Model)
}

// bind is a set's images and the given labels as the models' data.
func bind(s *Set, labels []int, image []int, extra map[string]any) map[string]any {
	labelValues := make([]float64, len(labels))
	for i, l := range labels {
		labelValues[i] = float64(l)
	}
	data := map[string]any{
		"X":     &compile.Value{Shape: append([]int{s.N}, image...), Values: s.Pixels, Source: "Fashion-MNIST"},
		"label": &compile.Value{Shape: []int{s.N}, Values: labelValues, Source: "Fashion-MNIST"},
	}
	maps.Copy(data, extra)
	return data
}

// mergeSettings is base with over's settings on top, in a new map.
func mergeSettings(base, over map[string]any) map[string]any {
	out := map[string]any{}
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// fanInStart is PyTorch's default initialisation, every weight and bias
// uniform in ±1/√fan_in with fan_in the rows of its block (a filter's
// KH·KW·C_in; a bias's layer is its own block here, so a bias gets ±1):
// a network started at the prior's scale, N(0, 1) per weight, saturates
// the LSTM's gates and the softmax at once.
func fanInStart(m *temper.Model, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	start := make([]float64, m.Dim())
	for _, p := range m.Params() {
		rows := 1
		for _, d := range p.Shape[:max(len(p.Shape)-1, 0)] {
			rows *= d
		}
		bound := 1 / math.Sqrt(float64(rows))
		for i := p.Offset; i < p.Offset+p.Size; i++ {
			start[i] = bound * (2*rng.Float64() - 1)
		}
	}
	return start
}

// modelAverage scores the run's kept draws of the target level with the
// predict block of test, the model bound to the test images.
func modelAverage(test *temper.Model, res *temper.Result) (*compile.Prediction, error) {
	p, err := test.Compiled().Predictor()
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(test.ParamColumns()))
	for i, name := range test.ParamColumns() {
		if cols[i] = slices.Index(res.Columns, name); cols[i] < 0 {
			return nil, fmt.Errorf("the draws have no column %s", name)
		}
	}
	var points [][]float64
	for _, chain := range res.Draws {
		for _, d := range chain {
			point := make([]float64, len(cols))
			for i, c := range cols {
				point[i] = d[c]
			}
			points = append(points, point)
		}
	}
	pred, err := p.Predict(points)
	if err != nil {
		return nil, err
	}
	if len(pred.Samples) != 1 {
		return nil, errors.New("the predict block must score the test labels once")
	}
	return pred, nil
}

const usage = `usage: go run ./examples/fashion-mnist/run [flags]

Runs one sampler on a Bayesian network for Fashion-MNIST and prints the
test accuracy and NLL of the model average. Flags:`

// Main is the command of ./run: it parses args, runs, prints the outcome
// to stdout and, with --out, saves the run's draws (as temper run --out
// does) and result.json in that folder.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fashion-mnist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	cfg := Config{Settings: map[string]any{}}
	fs.StringVar(&cfg.Model, "model", "lstm", "the network: lstm or cnn")
	fs.StringVar(&cfg.Data, "data", "", "a folder of the four gzipped IDX files (default: the shipped subset, "+SubsetDir+")")
	fs.IntVar(&cfg.Train, "train", 1024, "training images: the first N")
	fs.IntVar(&cfg.Test, "test", 500, "test images: the first N")
	fs.Float64Var(&cfg.Permuted, "permuted", 0, "the fraction of training labels permuted, in [0, 1]")
	fs.StringVar(&cfg.Sampler, "sampler", "", "a temper sampler (default: the model's infer block's, RENHD)")
	fs.Func("set", "a sampler setting key=value over the sampler's; repeatable", func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("want key=value, got %q", kv)
		}
		cfg.Settings[k] = v
		return nil
	})
	fs.Float64Var(&cfg.Epochs, "epochs", 2, "passes over the training images by each replica; the first half is burn-in")
	fs.IntVar(&cfg.Draws, "draws", 10, "draws of the target level kept for the model average")
	fs.IntVar(&cfg.Hidden, "hidden", 128, "the LSTM's units H")
	fs.IntVar(&cfg.Channels, "channels", 8, "the CNN's channels C")
	var seed uint
	fs.UintVar(&seed, "seed", 1, "the seed of the permutation, the start and the sampler")
	fs.IntVar(&cfg.Threads, "threads", 0, "threads (0: every core)")
	outDir := fs.String("out", "", "save the draws and result.json in this folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), usage)
	}
	if !(cfg.Permuted >= 0 && cfg.Permuted <= 1) {
		return fmt.Errorf("--permuted %v is not a fraction in [0, 1]", cfg.Permuted)
	}
	cfg.Seed = uint64(seed)
	out, res, err := Run(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s, %s: %d draws of %d parameters, test accuracy %.4f, NLL %.4f (%.0f s)\n",
		cfg.Model, out.Sampler, out.Draws, out.Params, out.Accuracy, out.NLL, out.Seconds)
	for _, w := range out.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if *outDir == "" {
		return nil
	}
	if err := res.Save(*outDir); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*outDir, ResultFile), append(raw, '\n'), 0o644)
}
