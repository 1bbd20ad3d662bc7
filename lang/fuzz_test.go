package lang

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseCheck feeds arbitrary sources to Parse and Check. They must not
// panic (Parse and Check recover, so an "internal error" counts as one),
// every error and note must point inside the input at a line and column
// that agree with its offset, every node of a parsed tree must too, and a
// parsed file printed back to source must parse to the same tree. The
// corpus (every testdata program, and the crashers found so far under
// testdata/fuzz) runs in plain `go test`.
func FuzzParseCheck(f *testing.F) {
	for _, pattern := range []string{"testdata/programs/*.ppl", "testdata/errors/*.ppl", "testdata/format/*.ppl"} {
		names, _ := filepath.Glob(pattern)
		for _, name := range names {
			f.Add(readFiles(f, name)[name])
		}
	}
	for _, s := range []string{"", "model{}", "infer { sampler = a(b = c(d = -1)) }", "model { x = -[1][:]^-f()[::] }"} {
		f.Add([]byte(s))
	}
	env := testEnv()
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.ppl", src)
		if err == nil {
			walk(file, func(n Node) { checkInside(t, src, "node", n.Position()) })
			_, err = Check(file, env)
			roundTrip(t, file)
		} else if file != nil {
			// A file that parsed with errors can still be checked.
			_, _ = Check(file, env)
		}
		if err == nil {
			return
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		for _, e := range list {
			if strings.Contains(e.Msg, "internal error") {
				t.Fatalf("%v", e)
			}
			checkInside(t, src, e.Msg, e.Pos)
			for _, n := range e.Notes {
				checkInside(t, src, "note of "+e.Msg, n.Pos)
			}
		}
		_ = Format(err, src)
	})
}

// checkInside fails unless pos is a position of src: a line at most one
// past the last, and line and column that agree with the offset.
func checkInside(t *testing.T, src []byte, what string, pos Pos) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	if pos.Line < 1 || pos.Line > lines+1 || pos.Col < 1 || pos.Offset < 0 || pos.Offset > len(src) {
		t.Fatalf("%s: position %+v outside the input (%d lines, %d bytes)", what, pos, lines, len(src))
	}
	if got, want := lineCol(src, pos.Offset), fmt.Sprintf("%d:%d", pos.Line, pos.Col); got != want {
		t.Fatalf("%s: position %s, but its offset %d is at %s", what, want, pos.Offset, got)
	}
}

// roundTrip prints f and parses it again: the tree must not change.
func roundTrip(t *testing.T, f *File) {
	t.Helper()
	printed := source(f)
	g, err := Parse("printed", []byte(printed))
	if err != nil {
		t.Fatalf("the printed file does not parse: %v\n%s", err, printed)
	}
	if a, b := sexpr(f), sexpr(g); a != b {
		t.Fatalf("round trip changed the tree:\n%s\n%s\n%s", a, b, printed)
	}
}
