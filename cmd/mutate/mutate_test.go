package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestMutationsApply is -verify on the repository's list: every mutation's
// find occurs exactly once in its file and the mutated file parses. A code
// change that moves or rewrites a seeded place fails here, in seconds,
// rather than turning the mutation into a silent "broken" row of the next
// measurement.
func TestMutationsApply(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(listFile)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := parseMutations(f, listFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range verify(os.DirFS(root), ms) {
		t.Error(err)
	}
	for _, m := range ms {
		for _, sel := range m.Tests {
			for _, p := range sel.Packages {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s: tests: %s: %v", m.Name, p, err)
				}
			}
		}
	}
	t.Logf("%d mutations apply", len(ms))
}

const sample = `# a header, ignored
## flip-sign
what: a sign flipped
file: a/x.go
tests: ./a
tests: .
run: TestX|TestY
find:
	y := -x
replace:
	y := x

## drop-line
what: a line dropped
file: a/x.go
tests: ./a
find:
	z := 2
	_ = z
replace:
`

func TestParseMutations(t *testing.T) {
	ms, err := parseMutations(strings.NewReader(sample), "sample")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("got %d mutations, want 2", len(ms))
	}
	m := ms[0]
	if m.Name != "flip-sign" || m.What != "a sign flipped" || m.File != "a/x.go" || m.Find != "\ty := -x" || m.Replace != "\ty := x" {
		t.Errorf("first mutation: %+v", m)
	}
	if len(m.Tests) != 2 || m.Tests[0].String() != "./a" || m.Tests[1].String() != ". -run 'TestX|TestY'" {
		t.Errorf("tests: %v", m.Tests)
	}
	if ms[1].Find != "\tz := 2\n\t_ = z" || ms[1].Replace != "" {
		t.Errorf("second mutation: find %q, replace %q", ms[1].Find, ms[1].Replace)
	}
}

// TestParseErrors has a bad list per case and the message it must give.
func TestParseErrors(t *testing.T) {
	block := "## m\nwhat: w\nfile: a.go\ntests: ./a\nfind:\nx\nreplace:\ny\n"
	for _, c := range []struct{ list, want string }{
		{"# only a header\n", "no mutations"},
		{"## Bad_Name\n", "mutation name"},
		{block + block, "already defined at line 1"},
		{strings.Replace(block, "what: w\n", "", 1), "no what:"},
		{strings.Replace(block, "file: a.go\n", "", 1), "no file:"},
		{strings.Replace(block, "file: a.go", "file: ../a.go", 1), "not a slash-separated path inside"},
		{strings.Replace(block, "tests: ./a\n", "", 1), "no tests:"},
		{strings.Replace(block, "tests: ./a", "tests: infer", 1), "not a package pattern"},
		{strings.Replace(block, "tests: ./a", "run: X\ntests: ./a", 1), "run: must follow"},
		{strings.Replace(block, "tests: ./a", "tests: ./a\nrun: (", 1), "run: error parsing regexp"},
		{strings.Replace(block, "replace:\ny\n", "", 1), "needs find: and replace:"},
		{strings.Replace(block, "replace:\ny", "replace:\nx", 1), "the same as find:"},
		{strings.Replace(block, "what: w", "colour: red", 1), `unknown field "colour"`},
		{strings.Replace(block, "what: w", "what: w\nwhat: v", 1), "what given twice"},
		{strings.Replace(block, "what: w", "just words", 1), "expected key: value"},
	} {
		_, err := parseMutations(strings.NewReader(c.list), "list")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.list, err, c.want)
		}
	}
}

func TestApply(t *testing.T) {
	fsys := fstest.MapFS{
		"a/x.go":   {Data: []byte("package a\n\nfunc f(x int) int {\n\ty := -x\n\treturn y\n}\n")},
		"a/two.go": {Data: []byte("package a\n\nvar a, b = -1, -1\n")},
	}
	ok := Mutation{Name: "ok", File: "a/x.go", Find: "y := -x", Replace: "y := x"}
	errs := verify(fsys, []Mutation{
		ok,
		{Name: "missing", File: "a/x.go", Find: "y := x + 1", Replace: "y := x"},
		{Name: "twice", File: "a/two.go", Find: "-1", Replace: "1"},
		{Name: "unparsable", File: "a/x.go", Find: "y := -x", Replace: "y := -x +"},
		{Name: "nofile", File: "a/none.go", Find: "x", Replace: "y"},
	})
	want := []string{"missing: find: does not occur", "twice: find: occurs 2 times", "unparsable: the mutated file does not parse", "nofile:"}
	if len(errs) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(errs), len(want), errs)
	}
	for i, err := range errs {
		if !strings.HasPrefix(err.Error(), want[i]) {
			t.Errorf("problem %d: %v, want it to start %q", i, err, want[i])
		}
	}
	out, err := ok.apply(fsys["a/x.go"].Data)
	if err != nil || !strings.Contains(string(out), "\ty := x\n") {
		t.Errorf("apply: %v\n%s", err, out)
	}
}

func TestSelectMutations(t *testing.T) {
	ms := []Mutation{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got, err := selectMutations(ms, "c, a")
	if err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Errorf("-only c,a: %v, %v", got, err)
	}
	if _, err := selectMutations(ms, "a,zz,yy"); err == nil || !strings.Contains(err.Error(), "no mutation named yy, zz") {
		t.Errorf("-only with unknown names: %v", err)
	}
}

// TestClassify reads go test outputs of each kind.
func TestClassify(t *testing.T) {
	failed := &exec.ExitError{}
	for _, c := range []struct {
		name   string
		out    string
		err    error
		hung   bool
		want   Result
		detail string
	}{
		{"pass", "ok  \tm/a\t0.1s\n", nil, false, Survived, ""},
		{"no tests run", "testing: warning: no tests to run\nPASS\nok  \tm/a\t0.1s [no tests to run]\n", nil, false, Broken, "run: matches no test"},
		{"test fails", "--- FAIL: TestOuter (0.00s)\n    --- FAIL: TestOuter/inner (0.00s)\nFAIL\nFAIL\tm/a\t0.1s\n", failed, false, Caught, "TestOuter"},
		{"compile error", "# m/a\na/x.go:4:2: declared and not used: y\nFAIL\tm/a [build failed]\n", failed, false, Broken, "does not compile: a/x.go:4:2: declared and not used: y"},
		{"vet", "# m/a\n# [m/a]\na/x_test.go:9:3: fmt.Sprintf format %d has arg s of wrong type string\nFAIL\tm/a [build failed]\n", failed, false, Broken, "does not compile: a/x_test.go:9:3"},
		{"bad pattern", "go: pattern ./nothere: directory prefix nothere does not contain main module\n", failed, false, Broken, "go: pattern ./nothere"},
		{"timeout panic", "panic: test timed out after 10s\n\trunning tests:\n\t\tTestSlow (10s)\n\ngoroutine 1 [running]:\nFAIL\tm/a\t10.1s\n", failed, false, TimedOut, "TestSlow"},
		{"killed", "", failed, true, TimedOut, "killed at the hard stop"},
		{"init panic", "panic: boom\n\ngoroutine 1 [running]:\nFAIL\tm/a\t0.01s\n", failed, false, Caught, "the test binary: panic: boom"},
		{"did not start", "", errors.New(`exec: "go": executable file not found in $PATH`), false, Broken, "go test did not run"},
	} {
		r, detail := classify(testRun{out: []byte(c.out), err: c.err, timedOut: c.hung})
		if r != c.want || !strings.HasPrefix(detail, c.detail) {
			t.Errorf("%s: got %v %q, want %v %q", c.name, r, detail, c.want, c.detail)
		}
	}
}
