// Command mutate measures how many seeded bugs the test suite catches.
//
//	go run ./cmd/mutate [-only a,b] [-timeout 10m] [-rev REV] [-logs DIR]
//	go run ./cmd/mutate -list
//	go run ./cmd/mutate -verify
//
// A passing suite says nothing about the bugs it would miss. Each
// mutation in cmd/mutate/mutations.txt is a bug a person could plausibly
// write (a sign, a dropped factor, the paper's equation misread), at one
// exact place of one file, with the tests that should notice it. mutate
// copies the files git tracks into a scratch folder once (the working
// tree's versions, or commit REV's with -rev), runs each selection of
// tests there unmutated (the baseline: a selection that already fails
// cannot measure anything), then for each mutation applies it, runs
// go test -count=1 -failfast [-run R] PKGS, and restores the file.
//
// A mutation is caught when a test fails, survived when every test
// passes, and broken when it measures nothing (its find does not occur
// exactly once, the mutated code does not compile, or its run: pattern
// selects no test): a broken mutation is a fault of the list, never a
// catch. A timeout counts as caught and is reported as such. The score is
// caught/measured; the exit status is 1 when any mutation survived or is
// broken (so that CI can run it), 2 when mutate itself could not run.
//
// -verify only checks that every mutation still applies (its find occurs
// exactly once and the mutated Go file parses), without building or
// testing anything; TestMutationsApply runs the same check in go test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
)

// listFile is the list of mutations, relative to the repository root.
const listFile = "cmd/mutate/mutations.txt"

// Exit codes.
const (
	exitOK       = 0
	exitSurvived = 1 // a mutation survived, is broken or unmeasured
	exitError    = 2 // bad flags, or the harness itself failed
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	list, verify bool
	only         string
	file         string
	rev          string
	logs         string
	timeout      time.Duration
	baseline     bool
	keep         bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fl := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.BoolVar(&o.list, "list", false, "print the mutations and exit")
	fl.BoolVar(&o.verify, "verify", false, "only check that every mutation applies (no builds, no tests)")
	fl.StringVar(&o.only, "only", "", "comma-separated names: run these mutations only")
	fl.StringVar(&o.file, "file", "", "the list of mutations (default: the repository's "+listFile+")")
	fl.StringVar(&o.rev, "rev", "", "measure commit REV (git archive) instead of the working tree's tracked files")
	fl.StringVar(&o.logs, "logs", "", "write each go test's output to DIR/NAME.log")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Minute, "time limit per mutation (all its go test commands), and per baseline command")
	fl.BoolVar(&o.baseline, "baseline", true, "first run each selection of tests without a mutation")
	fl.BoolVar(&o.keep, "keep", false, "keep the scratch copy (its path is printed)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: mutate [-only a,b] [-timeout 10m] [-rev REV] [-logs DIR] | -list | -verify")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "mutate: unexpected arguments %q\n", fl.Args())
		return exitError
	}
	if !(o.timeout > 0) {
		fmt.Fprintln(stderr, "mutate: -timeout must be positive")
		return exitError
	}
	code, err := mutate(ctx, o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return exitError
	}
	return code
}

// repoRoot is the top of the git checkout mutate runs in.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not inside a git checkout (git rev-parse: %w)", commandError(err))
	}
	return strings.TrimSpace(string(out)), nil
}

func mutate(ctx context.Context, o options, stdout, stderr io.Writer) (int, error) {
	root, err := repoRoot()
	if err != nil {
		return 0, err
	}
	file := o.file
	if file == "" {
		file = filepath.Join(root, filepath.FromSlash(listFile))
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	all, err := parseMutations(f, file)
	f.Close()
	if err != nil {
		return 0, err
	}
	ms, err := selectMutations(all, o.only)
	if err != nil {
		return 0, err
	}
	if o.list {
		printList(stdout, ms)
		return exitOK, nil
	}

	if o.verify && o.rev == "" {
		return verifyReport(stdout, os.DirFS(root), ms), nil
	}
	scratch, tree, err := scratchCopy(root, o.rev)
	if err != nil {
		return 0, err
	}
	if o.keep {
		fmt.Fprintf(stderr, "mutate: the scratch copy is %s\n", scratch)
	} else {
		defer os.RemoveAll(scratch)
	}
	if o.verify {
		return verifyReport(stdout, os.DirFS(scratch), ms), nil
	}
	if o.logs != "" {
		if err := os.MkdirAll(o.logs, 0o755); err != nil {
			return 0, err
		}
	}

	fmt.Fprintf(stdout, "mutations of %s\n\n", tree)
	start := time.Now()
	outcomes, err := measure(ctx, o, scratch, ms, stderr)
	if err != nil {
		if len(outcomes) > 0 {
			fmt.Fprintf(stdout, "interrupted after %d of %d mutations:\n\n", len(outcomes), len(ms))
			printTable(stdout, outcomes, time.Since(start))
		}
		if errors.Is(err, context.Canceled) {
			err = errors.New("interrupted")
		}
		return 0, err
	}
	printTable(stdout, outcomes, time.Since(start))
	for _, oc := range outcomes {
		if oc.Result == Survived || oc.Result == Broken || oc.Result == Unmeasured {
			return exitSurvived, nil
		}
	}
	return exitOK, nil
}

// scratchCopy writes the tree the mutations apply to into a new scratch
// folder: the working tree's tracked files, or commit rev's. It returns
// the folder and what it holds, in words.
func scratchCopy(root, rev string) (dir, tree string, err error) {
	dir, err = os.MkdirTemp("", "temper-mutate-")
	if err != nil {
		return "", "", err
	}
	if rev != "" {
		tree = "commit " + rev
		err = extractRevision(root, rev, dir)
	} else {
		tree = "the working tree's tracked files"
		if head, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
			tree += " (HEAD " + strings.TrimSpace(string(head)) + ")"
		}
		err = copyTracked(root, dir)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("the scratch copy: %w", err)
	}
	return dir, tree, nil
}

// measure runs the baselines and then every mutation in the scratch tree,
// reporting progress on stderr as it goes.
func measure(ctx context.Context, o options, scratch string, ms []Mutation, stderr io.Writer) ([]Outcome, error) {
	type verdict struct {
		result Result
		detail string
	}
	base := map[string]verdict{}
	if o.baseline {
		for _, m := range ms {
			for _, sel := range m.Tests {
				key := sel.String()
				if _, done := base[key]; done {
					continue
				}
				fmt.Fprintf(stderr, "baseline: go test %s ... ", key)
				t := time.Now()
				r, detail, out, err := baseline(ctx, scratch, sel, o.timeout)
				if err != nil {
					fmt.Fprintln(stderr, "interrupted")
					return nil, err
				}
				base[key] = verdict{r, detail + " [go test " + key + "]"}
				if r == Survived {
					fmt.Fprintf(stderr, "ok (%.0f s)\n", time.Since(t).Seconds())
				} else {
					fmt.Fprintf(stderr, "%s (%.0f s)\n", detail, time.Since(t).Seconds())
					writeLog(o.logs, "baseline-"+m.Name, out, stderr)
				}
			}
		}
	}
	var outcomes []Outcome
mutations:
	for i, m := range ms {
		fmt.Fprintf(stderr, "[%d/%d] %s ... ", i+1, len(ms), m.Name)
		for _, sel := range m.Tests {
			if b, ok := base[sel.String()]; ok && b.result != Survived {
				outcomes = append(outcomes, Outcome{Mutation: m, Result: b.result, Detail: b.detail})
				fmt.Fprintf(stderr, "%s: %s\n", b.result, b.detail)
				continue mutations
			}
		}
		oc, err := runOne(ctx, scratch, m, o.timeout)
		if err != nil {
			fmt.Fprintln(stderr, "interrupted")
			return outcomes, err
		}
		outcomes = append(outcomes, oc)
		fmt.Fprintf(stderr, "%s %s(%.0f s)\n", oc.Result, bracket(oc.Detail), oc.Seconds)
		writeLog(o.logs, m.Name, oc.Output, stderr)
	}
	return outcomes, nil
}

func bracket(s string) string {
	if s == "" {
		return ""
	}
	return "[" + s + "] "
}

// writeLog keeps a go test's output for reading later; a failure to write
// it is reported and the measurement goes on.
func writeLog(dir, name string, out []byte, stderr io.Writer) {
	if dir == "" || out == nil {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".log"), out, 0o644); err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
	}
}

// verifyReport prints each mutation that does not apply and returns the
// exit status.
func verifyReport(stdout io.Writer, fsys fs.FS, ms []Mutation) int {
	errs := verify(fsys, ms)
	for _, err := range errs {
		fmt.Fprintln(stdout, err)
	}
	if len(errs) > 0 {
		fmt.Fprintf(stdout, "%d of %d mutations do not apply\n", len(errs), len(ms))
		return exitSurvived
	}
	fmt.Fprintf(stdout, "all %d mutations apply\n", len(ms))
	return exitOK
}

func printList(w io.Writer, ms []Mutation) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "mutation\tfile\twhat\ttests")
	for _, m := range ms {
		var sels []string
		for _, sel := range m.Tests {
			sels = append(sels, sel.String())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, m.File, m.What, strings.Join(sels, "; "))
	}
	tw.Flush()
}

// printTable prints a row per mutation and the score: caught (timed-out
// runs included) over the mutations measured, which leaves out the broken
// and unmeasured ones and the survivors the list shows to be equivalent.
func printTable(w io.Writer, outcomes []Outcome, elapsed time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "mutation\tresult\tseconds\tfirst failing test / detail")
	count := map[Result]int{}
	for _, oc := range outcomes {
		count[oc.Result]++
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\n", oc.Mutation.Name, oc.Result, oc.Seconds, oneLine(oc.Detail))
	}
	tw.Flush()
	caught := count[Caught] + count[TimedOut]
	measured := caught + count[Survived]
	fmt.Fprintf(w, "\nscore: %d/%d caught", caught, measured)
	if count[TimedOut] > 0 {
		fmt.Fprintf(w, " (%d of them by timing out)", count[TimedOut])
	}
	fmt.Fprintf(w, "; %d survived", count[Survived])
	for _, r := range []Result{Equivalent, Broken, Unmeasured} {
		if count[r] > 0 {
			fmt.Fprintf(w, "; %d %s (not counted)", count[r], r)
		}
	}
	fmt.Fprintf(w, "\nwall time: %s\n", elapsed.Round(time.Second))
}

var spaces = regexp.MustCompile(`\s+`)

// oneLine keeps a table cell on one line.
func oneLine(s string) string { return spaces.ReplaceAllString(strings.TrimSpace(s), " ") }
