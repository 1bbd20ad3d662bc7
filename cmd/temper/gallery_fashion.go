package main

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	fashionmnist "github.com/temper-ppl/temper/examples/fashion-mnist"
)

// The Fashion-MNIST pages: seed 001's Table 1 (an LSTM, RENHD against
// its baselines, with 0% and 20% of the training labels permuted) at a
// reduced size, and the same comparison on a small CNN. Each run is the
// example's program (examples/fashion-mnist/run), which writes
// result.json beside the run's draws.

// fashionPermuted are the permuted shares of the training labels, in
// percent: two of seed 001's three columns (0%, 20%, 30%).
var fashionPermuted = []int{0, 20}

// fashionProgram is the example's program as the gallery runs it.
var fashionProgram = &galleryProgram{path: "run", sources: []string{"data.go", "experiment.go"}, main: fashionmnist.Main}

// fashionRuns are a page's runs: every sampler of fashionmnist.Samplers
// at every permuted share, each with the flags common to the page.
func fashionRuns(common []string, eps float64, rungs, every int) []galleryRun {
	var runs []galleryRun
	for _, pct := range fashionPermuted {
		for _, s := range fashionmnist.Samplers(eps, rungs, every) {
			args := append(slices.Clone(common), s.Args...)
			args = append(args, "--permuted", strconv.FormatFloat(float64(pct)/100, 'g', -1, 64))
			runs = append(runs, galleryRun{label: fashionLabel(s.Label, pct), model: modelOf(common), args: args, program: fashionProgram})
		}
	}
	return runs
}

// modelOf is the model file the --model flag of common names.
func modelOf(common []string) string {
	if i := slices.Index(common, "--model"); i >= 0 && i+1 < len(common) {
		return common[i+1] + ".ppl"
	}
	return "lstm.ppl"
}

func fashionLabel(sampler string, pct int) string { return fmt.Sprintf("%s, %d%%", sampler, pct) }

// fashionLSTMArgs, fashionLSTMRungs and fashionLSTMEvery are the LSTM
// page's size: 10,240 training images (40 chunks of RENHD's exchange
// minibatch of 256, which grows to the whole set), 2,000 test images,
// H = 32, 10 epochs, ladders of 4 rungs exchanging every 50 iterations.
var fashionLSTMArgs = []string{"--model", "lstm", "--data", "../shared/data/fashion-mnist", "--train", "10240", "--test", "2000",
	"--hidden", "32", "--epochs", "10", "--draws", "10"}

const (
	fashionRungs = 4
	fashionEvery = 50
)

// fashionCNNArgs are the CNN page's: 4 channels, 5 epochs; the other
// sizes as the LSTM's.
var fashionCNNArgs = []string{"--model", "cnn", "--data", "../shared/data/fashion-mnist", "--train", "10240", "--test", "2000",
	"--channels", "4", "--epochs", "5", "--draws", "10"}

// fashionReduced makes a run of the Fashion-MNIST pages a few seconds'
// for their reduced check: 512 training and 100 test images of the shipped
// subset, two epochs (8 iterations), 4 draws, H = 8 LSTM units or C = 2
// channels, and the ladders exchanging every 2 iterations, so that their
// exchange runs in so short a run.
func fashionReduced(r galleryRun) []string {
	args := []string{"--data", "{dir}/data", "--train", "512", "--test", "100", "--epochs", "2", "--draws", "4", "--hidden", "8", "--channels", "2"}
	if slices.Contains(r.args, "every="+strconv.Itoa(fashionEvery)) {
		args = append(args, "--set", "every=2")
	}
	return args
}

// fashionPaper is seed 001's Table 1, the RNN on Fashion-MNIST: the test
// accuracy in percent (mean ± sd over 10 runs) at 0% and 20% permuted
// labels, for the samplers this comparison shares with it.
var fashionPaper = map[string][2]string{
	"RENHD": {"90.87 ± 0.12", "89.45 ± 0.17"},
	"RELD":  {"89.05 ± 0.13", "88.31 ± 0.14"},
	"SGNHT": {"89.33 ± 0.18", "88.76 ± 0.22"},
	"SGHMC": {"89.12 ± 0.12", "88.23 ± 0.16"},
}

// fashionOutcomes reads every run's result.json, by sampler label and
// permuted share.
func fashionOutcomes(g *galleryRuns) ([]string, map[string]*fashionmnist.Outcome, error) {
	var samplers []string
	out := map[string]*fashionmnist.Outcome{}
	for _, s := range fashionmnist.Samplers(1, 1, 1) {
		samplers = append(samplers, s.Label)
		for _, pct := range fashionPermuted {
			r, err := g.get(fashionLabel(s.Label, pct))
			if err != nil {
				return nil, nil, err
			}
			var o fashionmnist.Outcome
			if err := jsonFile(filepath.Join(r.dirs[0], fashionmnist.ResultFile), &o); err != nil {
				return nil, nil, err
			}
			out[fashionLabel(s.Label, pct)] = &o
			g.headline(fashionLabel(s.Label, pct)+": test accuracy", o.Accuracy, tolShare)
			g.headline(fashionLabel(s.Label, pct)+": NLL", o.NLL, tolNLL)
		}
	}
	return samplers, out, nil
}

// fashionTable is temper's table: each sampler's accuracy and NLL of the
// model average at each permuted share, with its replicas and time.
func fashionTable(samplers []string, outs map[string]*fashionmnist.Outcome) string {
	header := []string{"sampler", "replicas"}
	for _, pct := range fashionPermuted {
		header = append(header, fmt.Sprintf("accuracy, %d%%", pct), fmt.Sprintf("NLL, %d%%", pct))
	}
	header = append(header, "draws", "sampling time")
	var rows [][]string
	for _, s := range samplers {
		first := outs[fashionLabel(s, 0)]
		row := []string{s, strconv.Itoa(first.Replicas)}
		seconds := 0.0
		for _, pct := range fashionPermuted {
			o := outs[fashionLabel(s, pct)]
			row = append(row, f2(100*o.Accuracy)+"%", f3(o.NLL))
			seconds += o.Seconds
		}
		rows = append(rows, append(row, strconv.Itoa(first.Draws), duration(seconds)))
	}
	return mdTable(header, rows)
}

// fashionRanking compares the order of the samplers the paper has by
// temper's accuracy with the paper's, at each permuted share, and names
// the pairs in the other order with their gap in standard errors of a
// test accuracy (√(p(1 − p)/n) for each, combined).
func fashionRanking(outs map[string]*fashionmnist.Outcome) string {
	shared := []string{"RENHD", "RELD", "SGNHT", "SGHMC"}
	var b strings.Builder
	for i, pct := range fashionPermuted {
		paper := func(s string) float64 {
			v, _ := strconv.ParseFloat(strings.Fields(fashionPaper[s][i])[0], 64)
			return v
		}
		acc := func(s string) float64 { return outs[fashionLabel(s, pct)].Accuracy }
		ours := slices.Clone(shared)
		slices.SortStableFunc(ours, func(a, b string) int { return cmp.Compare(acc(b), acc(a)) })
		theirs := slices.Clone(shared)
		slices.SortStableFunc(theirs, func(a, b string) int { return cmp.Compare(paper(b), paper(a)) })
		fmt.Fprintf(&b, "- **%d%% permuted.** temper: %s; the paper: %s.", pct, strings.Join(ours, " > "), strings.Join(theirs, " > "))
		var swapped []string
		for x, a := range shared {
			for _, c := range shared[x+1:] {
				if (acc(a) > acc(c)) == (paper(a) > paper(c)) {
					continue
				}
				hi, lo := a, c
				if acc(c) > acc(a) {
					hi, lo = c, a
				}
				n := float64(outs[fashionLabel(hi, pct)].Test)
				se := math.Sqrt((acc(hi)*(1-acc(hi)) + acc(lo)*(1-acc(lo))) / n)
				swapped = append(swapped, fmt.Sprintf("%s above %s by %s points (%.1f standard errors)", hi, lo, f2(100*(acc(hi)-acc(lo))), (acc(hi)-acc(lo))/se))
			}
		}
		if len(swapped) == 0 {
			b.WriteString(" The same order.\n")
		} else {
			fmt.Fprintf(&b, " In the other order: %s.\n", strings.Join(swapped, "; "))
		}
	}
	return b.String()
}

// fashionPaperTable is seed 001's numbers for the samplers of the
// comparison.
func fashionPaperTable(samplers []string) string {
	var rows [][]string
	for _, s := range samplers {
		p, ok := fashionPaper[s]
		if !ok {
			rows = append(rows, []string{s, "not in the paper", "not in the paper"})
			continue
		}
		rows = append(rows, []string{s, p[0] + "%", p[1] + "%"})
	}
	return mdTable([]string{"sampler", "accuracy, 0%", "accuracy, 20%"}, rows)
}

// fashionTestSize says on how many test images the accuracies are and
// their standard error at the runs' mean accuracy.
func fashionTestSize(samplers []string, outs map[string]*fashionmnist.Outcome) string {
	mean, n := 0.0, 0
	for _, o := range outs {
		mean += o.Accuracy / float64(len(outs))
		n = o.Test
	}
	se := math.Sqrt(mean * (1 - mean) / float64(n))
	return fmt.Sprintf("on the first %d test images. At the runs' mean accuracy, %s%%, the standard error of one accuracy is %s points, of a difference of two %s", n, f2(100*mean), f2(100*se), f2(100*se*math.Sqrt2))
}

// fashionLSTMResults is the LSTM page's tables: temper's and the paper's
// Table 1, then the rankings.
func fashionLSTMResults(g *galleryRuns) (string, error) {
	samplers, outs, err := fashionOutcomes(g)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`### temper

Test accuracy and NLL per image of each sampler's model average (the
posterior-mean predictive over its kept draws of the target level) %s.

%s
### Seed 001, Table 1 (RNN on Fashion-MNIST, mean ± sd of 10 runs)

The paper reports accuracy only, after 1,000 epochs of the 60,000
training images.

%s
### The rankings

%s`, fashionTestSize(samplers, outs), fashionTable(samplers, outs), fashionPaperTable(samplers), fashionRanking(outs)), nil
}

// fashionCNNResults is the CNN page's table and its rankings beside the
// paper's LSTM's (the paper trains no CNN on Fashion-MNIST).
func fashionCNNResults(g *galleryRuns) (string, error) {
	samplers, outs, err := fashionOutcomes(g)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`### temper

Test accuracy and NLL per image of each sampler's model average %s.

%s
### The rankings beside the paper's LSTM

Seed 001 has no CNN on Fashion-MNIST (its convolutional network is a
ResNet on CIFAR-10), so the order below is set against its LSTM's
(Table 1; [the LSTM page](gallery.md) has the numbers).

%s`, fashionTestSize(samplers, outs), fashionTable(samplers, outs), fashionRanking(outs)), nil
}
