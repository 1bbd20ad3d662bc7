package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Result says what the tests made of one mutation.
type Result int

const (
	// Caught: a test failed (or the test binary did) with the mutation in.
	Caught Result = iota
	// TimedOut: the tests ran past the timeout. Counted as caught, since a
	// bug that hangs a test is noticed, but reported apart: a slow suite
	// can time out without noticing anything.
	TimedOut
	// Survived: every selected test passed with the bug in.
	Survived
	// Equivalent: survived, and the list says why it cannot be caught.
	Equivalent
	// Broken: the mutation measures nothing: its find does not name one
	// place, the mutated code does not compile, or its tests do not run.
	// The list needs fixing; it is not a catch.
	Broken
	// Unmeasured: the selected tests fail without the mutation, so a
	// failure with it would prove nothing.
	Unmeasured
)

func (r Result) String() string {
	return [...]string{"caught", "caught (timed out)", "survived", "equivalent", "broken", "unmeasured"}[r]
}

// Outcome is one mutation's row of the table.
type Outcome struct {
	Mutation Mutation
	Result   Result
	Seconds  float64
	// Detail is the first failing test, or why a mutation is broken or
	// unmeasured.
	Detail string
	Output []byte // go test's output
}

// gitFiles lists the files git tracks in the repository at root.
func gitFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", commandError(err))
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// copyTracked copies the files git tracks, as they are in root's working
// tree, into dst: the scratch copy holds the code under test and nothing
// else (no build outputs, no other people's untracked files). Tracked
// files deleted from the working tree are left out, as a build there
// would not see them either.
func copyTracked(root, dst string) error {
	files, err := gitFiles(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, to); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			data, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
				return err
			}
		}
		// A tracked directory is a submodule, whose files git does not list.
	}
	return nil
}

// extractRevision writes the tree of commit rev into dst (git archive),
// so that a measurement need not depend on the working tree's state.
func extractRevision(root, rev, dst string) error {
	cmd := exec.Command("git", "-C", root, "archive", "--format=tar", rev)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	readErr := untar(out, dst)
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	return readErr
}

// untar writes a tar stream's regular files, directories and links under
// dst.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(filepath.FromSlash(h.Name)) {
			return fmt.Errorf("git archive: entry %q is outside the tree", h.Name)
		}
		to := filepath.Join(dst, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(to, 0o755)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
				err = os.Symlink(h.Linkname, to)
			}
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
				var f *os.File
				if f, err = os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm()); err == nil {
					_, err = io.Copy(f, tr)
					err = errors.Join(err, f.Close())
				}
			}
		}
		if err != nil {
			return err
		}
	}
}

// commandError adds a failed command's stderr to its error.
func commandError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// testRun is what one go test command did.
type testRun struct {
	out      []byte // stdout and stderr, interleaved
	err      error  // from exec: nil when every test passed
	timedOut bool   // killed at the hard stop
}

// goTest runs one selection of tests in dir: every selected test,
// stopping a package at its first failure (-failfast: a caught mutation
// need not run the rest), with go test's own timeout so that a hung test
// names itself, and a hard stop a minute later that kills the whole
// process group (go test's test binaries included).
func goTest(ctx context.Context, dir string, sel Selection, timeout time.Duration) testRun {
	args := []string{"test", "-count=1", "-failfast", "-timeout", timeout.Round(time.Second).String()}
	if sel.Run != "" {
		args = append(args, "-run", sel.Run)
	}
	args = append(args, sel.Packages...)
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	ownProcessGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	return testRun{out: buf.Bytes(), err: err, timedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}
}

var (
	failLine     = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	buildFailed  = regexp.MustCompile(`(?m)^FAIL\s+\S+\s+\[(build|setup) failed\]`)
	compileError = regexp.MustCompile(`(?m)^(\S+\.go:\d+(:\d+)?: .*)$`)
	goError      = regexp.MustCompile(`(?m)^(go: .*|.*matched no packages.*|.*: no Go files in .*)$`)
	timeoutPanic = regexp.MustCompile(`(?m)^panic: test timed out after .*\n(?:.*\n)*?\s*running tests:\n\s*(\S+)`)
	panicLine    = regexp.MustCompile(`(?m)^(panic: .*|fatal error: .*)$`)
	noTests      = regexp.MustCompile(`(?m)^testing: warning: no tests to run`)
)

// classify reads go test's exit and output: a compile error or a bad
// package pattern makes the mutation broken; a test (or the test binary)
// that fails, or a timeout, catches it; a clean pass lets it survive,
// unless some package ran no test at all, which means the run: pattern
// selects nothing there.
func classify(run testRun) (Result, string) {
	out, runErr := run.out, run.err
	if run.timedOut {
		return TimedOut, "killed at the hard stop"
	}
	if runErr == nil {
		if noTests.Match(out) {
			return Broken, "run: matches no test in some package of tests:"
		}
		return Survived, ""
	}
	var ee *exec.ExitError
	if !errors.As(runErr, &ee) {
		return Broken, "go test did not run: " + runErr.Error()
	}
	if m := timeoutPanic.FindSubmatch(out); m != nil {
		return TimedOut, string(m[1])
	}
	if m := failLine.FindSubmatch(out); m != nil {
		return Caught, string(m[1])
	}
	if buildFailed.Match(out) {
		detail := "does not compile"
		if m := compileError.FindSubmatch(out); m != nil {
			detail += ": " + string(m[1])
		}
		return Broken, detail
	}
	if m := goError.FindSubmatch(out); m != nil {
		return Broken, string(m[1])
	}
	if m := panicLine.FindSubmatch(out); m != nil {
		return Caught, "the test binary: " + string(m[1])
	}
	return Caught, "go test failed without naming a test"
}

// runOne applies m in the scratch tree at dir, runs its tests, restores
// the file whatever happened, and classifies the result.
func runOne(ctx context.Context, dir string, m Mutation, timeout time.Duration) (Outcome, error) {
	o := Outcome{Mutation: m}
	path := filepath.Join(dir, filepath.FromSlash(m.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		o.Result, o.Detail = Broken, fmt.Sprintf("file: %v", err)
		return o, nil
	}
	mutated, err := m.apply(orig)
	if err != nil {
		o.Result, o.Detail = Broken, err.Error()
		return o, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return o, err
	}
	if err := os.WriteFile(path, mutated, info.Mode().Perm()); err != nil {
		return o, err
	}
	start := time.Now()
	o.Result, o.Detail, o.Output = runSelections(ctx, dir, m.Tests, start.Add(timeout))
	o.Seconds = time.Since(start).Seconds()
	if err := os.WriteFile(path, orig, info.Mode().Perm()); err != nil {
		return o, fmt.Errorf("restoring %s in the scratch copy: %w", m.File, err)
	}
	if err := ctx.Err(); err != nil {
		return o, err // interrupted: nothing was measured
	}
	if o.Result == Survived && m.Equivalent != "" {
		o.Result, o.Detail = Equivalent, m.Equivalent
	}
	return o, nil
}

// runSelections runs a mutation's go test commands one after another
// until one does not pass, all before deadline, and classifies the first
// that does not (Survived when all pass). The output is every command's.
func runSelections(ctx context.Context, dir string, sels []Selection, deadline time.Time) (Result, string, []byte) {
	var out []byte
	for _, sel := range sels {
		left := time.Until(deadline)
		if left < time.Second {
			return TimedOut, "no time left for go test " + sel.String(), out
		}
		run := goTest(ctx, dir, sel, left)
		out = append(out, "$ go test "+sel.String()+"\n"...)
		out = append(out, run.out...)
		if r, detail := classify(run); r != Survived || ctx.Err() != nil {
			return r, detail, out
		}
	}
	return Survived, "", out
}

// baseline runs a selection's tests on the unmutated scratch tree: a
// selection that passes there can measure mutations (Survived), one that
// selects no test is Broken, and one that fails is Unmeasured.
func baseline(ctx context.Context, dir string, sel Selection, timeout time.Duration) (Result, string, []byte, error) {
	run := goTest(ctx, dir, sel, timeout)
	if err := ctx.Err(); err != nil {
		return 0, "", run.out, err
	}
	r, detail := classify(run)
	switch r {
	case Survived:
		return Survived, "", run.out, nil
	case Broken:
		return Broken, "before any mutation: " + detail, run.out, nil
	}
	return Unmeasured, fmt.Sprintf("its tests fail without the mutation (%s: %s)", r, detail), run.out, nil
}
