package lang

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/format")

// TestFormat renders the errors of each testdata/format/*.ppl and compares
// them with the .golden file beside it (go test -run TestFormat -update
// rewrites them).
func TestFormat(t *testing.T) {
	for name, src := range readFiles(t, "testdata/format/*.ppl") {
		f, err := Parse(name, src)
		if err == nil {
			_, err = Check(f, testEnv())
		}
		if err == nil {
			t.Errorf("%s: no errors", name)
			continue
		}
		got := Format(err, src)
		golden := strings.TrimSuffix(name, ".ppl") + ".golden"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: Format gave\n%s\nwant\n%s", name, got, want)
		}
	}
}

func TestFormatSingleAndForeign(t *testing.T) {
	src := []byte("a\n\tbc d\n")
	e := &Error{Pos: Pos{File: "f", Line: 2, Col: 4}, Msg: "bad"}
	if got, want := Format(e, src), "f:2:4: bad\n\tbc d\n\t  ^\n"; got != want {
		t.Errorf("Format(*Error) = %q, want %q", got, want)
	}
	if got := Format(os.ErrNotExist, src); got != "file does not exist\n" {
		t.Errorf("Format(other error) = %q", got)
	}
	if got := Format(nil, src); got != "" {
		t.Errorf("Format(nil) = %q", got)
	}
	// A position past the end of the source shows no line.
	e = &Error{Pos: Pos{File: "f", Line: 9, Col: 1}, Msg: "far"}
	if got := Format(e, src); got != "f:9:1: far\n" {
		t.Errorf("Format(past the end) = %q", got)
	}
}

// TestByteOrderMark: a leading byte order mark is not part of the text, so
// the first character is at column 1 and the caret lines up under it (a
// crasher of FuzzParseCheck, kept in testdata/fuzz).
func TestByteOrderMark(t *testing.T) {
	src := []byte("\uFEFFfoo {}\n")
	_, err := Parse("bom", src)
	want := "bom:1:1: expected a block (functions, data, transformed data, param, transformed param, model, generated, predict or infer), found \"foo\"\nfoo {}\n^\n"
	if got := Format(err, src); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if e := err.(ErrorList)[0]; e.Pos.Offset != 3 {
		t.Errorf("offset %d, want 3", e.Pos.Offset)
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Error("empty list gave a non-nil error")
	}
	if l.Error() != "no errors" {
		t.Errorf("empty list: %q", l.Error())
	}
	l.Add(Pos{File: "b", Line: 1, Col: 1}, "in b")
	l.Add(Pos{File: "a", Line: 3, Col: 2}, "second %d", 2)
	e := l.Add(Pos{File: "a", Line: 3, Col: 1}, "first")
	e.Notes = append(e.Notes, Note{Pos: Pos{File: "a", Line: 1, Col: 1}, Msg: "declared here"})
	l.Add(Pos{File: "a", Line: 1, Col: 9}, "zeroth")
	l.Sort()
	var got []string
	for _, e := range l {
		got = append(got, e.Error())
	}
	if strings.Join(got, "|") != "a:1:9: zeroth|a:3:1: first|a:3:2: second 2|b:1:1: in b" {
		t.Errorf("sorted: %v", got)
	}
	if l.Error() != "a:1:9: zeroth (and 3 more errors)" {
		t.Errorf("Error() = %q", l.Error())
	}
	if l[:2].Error() != "a:1:9: zeroth (and 1 more error)" {
		t.Errorf("Error() of two = %q", l[:2].Error())
	}
	if err := l.Err(); err == nil {
		t.Error("Err() of a full list is nil")
	}
	if (&Error{Msg: "no position"}).Error() != "no position" {
		t.Error("an error without a position")
	}
}
