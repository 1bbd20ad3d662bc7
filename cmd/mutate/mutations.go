package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Mutation is one seeded bug: an exact piece of text of one file and what
// replaces it, with the tests that should notice. Exact text, not a diff:
// a diff's line numbers and context go stale with every nearby edit, while
// a find that still occurs exactly once still means the same place.
type Mutation struct {
	Name string
	What string // the bug, in a line, citing the paper's equation where there is one
	File string // slash-separated, relative to the repository root
	// Tests are the go test commands that should catch it, run one after
	// another until one fails: a slow package (the top level, ./cmd/temper)
	// gets a -run pattern of its own while a fast one runs whole.
	Tests []Selection
	// Equivalent, when set, says why the mutation cannot change what the
	// program computes: it is still run, but surviving is then expected.
	Equivalent    string
	Find, Replace string
	Line          int // where its block starts in the list, for messages
}

// Selection is one go test command: package patterns (./infer, .) and a
// -run regular expression ("" runs every test of those packages).
type Selection struct {
	Packages []string
	Run      string
}

func (s Selection) String() string {
	out := strings.Join(s.Packages, " ")
	if s.Run != "" {
		out += " -run '" + s.Run + "'"
	}
	return out
}

// validName is a mutation's name: what -only takes and the table shows.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// parseMutations reads the list's format (see mutations.txt's header): a
// block per mutation, opened by a line "## name", with one-line fields
// "key: value" and then the literal sections "find:" and "replace:", whose
// lines are taken as they are (tabs included) up to the next block. The
// blank lines that separate blocks are not part of a section. Each
// "tests:" line is a go test command; a "run:" line sets the -run pattern
// of the tests: line just before it.
func parseMutations(r io.Reader, source string) ([]Mutation, error) {
	var (
		ms      []Mutation
		cur     *Mutation
		section *[]string // the find or replace lines being read, or nil
		find    []string
		repl    []string
		inFind  bool
		inRepl  bool
	)
	seen := map[string]int{}
	finish := func() error {
		if cur == nil {
			return nil
		}
		cur.Find = strings.Join(trimBlank(find), "\n")
		cur.Replace = strings.Join(trimBlank(repl), "\n")
		if err := cur.check(inFind, inRepl); err != nil {
			return fmt.Errorf("%s:%d: mutation %q: %w", source, cur.Line, cur.Name, err)
		}
		ms = append(ms, *cur)
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "## "); ok {
			if err := finish(); err != nil {
				return nil, err
			}
			name = strings.TrimSpace(name)
			if !validName.MatchString(name) {
				return nil, fmt.Errorf("%s:%d: mutation name %q: use lower-case letters, digits and dashes", source, n, name)
			}
			if first, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s:%d: mutation %q is already defined at line %d", source, n, name, first)
			}
			seen[name] = n
			cur, section, find, repl, inFind, inRepl = &Mutation{Name: name, Line: n}, nil, nil, nil, false, false
			continue
		}
		switch {
		case cur == nil: // the header before the first block
		case line == "find:":
			if inFind || inRepl {
				return nil, fmt.Errorf("%s:%d: mutation %q: a second find, or find after replace", source, n, cur.Name)
			}
			section, inFind = &find, true
		case line == "replace:":
			if !inFind || inRepl {
				return nil, fmt.Errorf("%s:%d: mutation %q: replace must follow find, once", source, n, cur.Name)
			}
			section, inRepl = &repl, true
		case section != nil:
			*section = append(*section, line)
		case strings.TrimSpace(line) == "":
		default:
			key, value, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%s:%d: mutation %q: expected key: value, find: or replace:, found %q", source, n, cur.Name, line)
			}
			if err := cur.set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
				return nil, fmt.Errorf("%s:%d: mutation %q: %w", source, n, cur.Name, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s: no mutations (each block starts with a line \"## name\")", source)
	}
	return ms, nil
}

// set fills in one "key: value" field.
func (m *Mutation) set(key, value string) error {
	var dst *string
	switch key {
	case "what":
		dst = &m.What
	case "file":
		dst = &m.File
	case "equivalent":
		dst = &m.Equivalent
	case "tests":
		pkgs := strings.Fields(value)
		if len(pkgs) == 0 {
			return fmt.Errorf("tests: is empty")
		}
		for _, p := range pkgs {
			if p != "." && !strings.HasPrefix(p, "./") {
				return fmt.Errorf("tests: %q is not a package pattern inside the repository (./infer, .)", p)
			}
		}
		m.Tests = append(m.Tests, Selection{Packages: pkgs})
		return nil
	case "run":
		if len(m.Tests) == 0 {
			return fmt.Errorf("run: must follow the tests: line it applies to")
		}
		dst = &m.Tests[len(m.Tests)-1].Run
		if _, err := regexp.Compile(value); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	default:
		return fmt.Errorf("unknown field %q (what, file, tests, run, equivalent, find, replace)", key)
	}
	if *dst != "" {
		return fmt.Errorf("%s given twice", key)
	}
	if value == "" {
		return fmt.Errorf("%s: is empty", key)
	}
	*dst = value
	return nil
}

// check reports a block that is missing something or cannot be run.
func (m *Mutation) check(hasFind, hasReplace bool) error {
	switch {
	case m.What == "":
		return fmt.Errorf("no what: (the bug it seeds, in a line)")
	case m.File == "":
		return fmt.Errorf("no file:")
	case !fs.ValidPath(m.File):
		return fmt.Errorf("file %q is not a slash-separated path inside the repository", m.File)
	case len(m.Tests) == 0:
		return fmt.Errorf("no tests: (go test package patterns)")
	case !hasFind || !hasReplace:
		return fmt.Errorf("needs find: and replace: sections")
	case m.Find == "":
		return fmt.Errorf("find: is empty")
	case m.Find == m.Replace:
		return fmt.Errorf("replace: is the same as find:")
	}
	return nil
}

// trimBlank drops a section's leading and trailing blank lines, which
// separate blocks in the list.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// apply returns src with the mutation's find replaced, or an error saying
// why the mutation does not apply: a find that occurs other than exactly
// once no longer names one place, and a Go file the replacement leaves
// unparsable would be reported as caught by the build, not by a test.
func (m *Mutation) apply(src []byte) ([]byte, error) {
	text := string(src)
	switch n := strings.Count(text, m.Find); n {
	case 1:
	case 0:
		return nil, fmt.Errorf("find: does not occur in %s (the code changed: update the mutation)", m.File)
	default:
		return nil, fmt.Errorf("find: occurs %d times in %s (add context to make it unique)", n, m.File)
	}
	out := strings.Replace(text, m.Find, m.Replace, 1)
	if strings.HasSuffix(m.File, ".go") {
		if _, err := parser.ParseFile(token.NewFileSet(), m.File, out, parser.SkipObjectResolution); err != nil {
			return nil, fmt.Errorf("the mutated file does not parse: %w", err)
		}
	}
	return []byte(out), nil
}

// verify checks that every mutation applies to the files of fsys (the
// repository's root), without building or testing anything, and returns a
// problem per mutation that does not.
func verify(fsys fs.FS, ms []Mutation) []error {
	var errs []error
	for _, m := range ms {
		src, err := fs.ReadFile(fsys, m.File)
		if err == nil {
			_, err = m.apply(src)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Name, err))
		}
	}
	return errs
}

// selectMutations keeps the mutations named in only (comma-separated; all
// when empty), in the list's order, and reports names it does not know.
func selectMutations(ms []Mutation, only string) ([]Mutation, error) {
	if strings.TrimSpace(only) == "" {
		return ms, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(only, ",") {
		if name = strings.TrimSpace(name); name != "" {
			want[name] = true
		}
	}
	var out []Mutation
	for _, m := range ms {
		if want[m.Name] {
			out = append(out, m)
			delete(want, m.Name)
		}
	}
	if len(want) > 0 {
		unknown := slices.Sorted(maps.Keys(want))
		return nil, fmt.Errorf("-only: no mutation named %s (mutate -list shows them)", strings.Join(unknown, ", "))
	}
	return out, nil
}
