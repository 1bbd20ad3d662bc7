package lang

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"unicode/utf8"
)

// The files of testdata/errors are malformed programs. Each error they must
// produce is written in a comment right before the token it is reported at:
//
//	y ~ normal(mu, /* ERROR "unknown name \"sigma\"" */ sigma)
//
// The quoted text is a Go string holding a regular expression the message
// must match; the error's position must be the first non-blank character
// after the comment and any ERROR or NOTE comments that follow it (the end
// of the file for errors there). The test fails on an expected error that is
// missing and on an error that is not expected. A file is parsed and, if
// that succeeds, checked against testEnv.
//
// A file may also hold NOTE comments, written the same way before the
// position of a note ("previously declared here"); the notes of a file
// that has any are checked the same way, all of them.

var errorCommentRE = regexp.MustCompile(`/\* (ERROR|NOTE) ("(?:[^"\\]|\\.)*") \*/`)

// expectation is one expected error: where, and a pattern for the message.
type expectation struct {
	pos string // line:col
	rx  *regexp.Regexp
}

// expectedErrors reads the ERROR (or NOTE) comments of src.
func expectedErrors(t *testing.T, name string, src []byte, kind string) []expectation {
	t.Helper()
	var out []expectation
	for _, m := range errorCommentRE.FindAllSubmatchIndex(src, -1) {
		if string(src[m[2]:m[3]]) != kind {
			continue
		}
		text, err := strconv.Unquote(string(src[m[4]:m[5]]))
		if err != nil {
			t.Fatalf("%s: bad %s comment %s: %v", name, kind, src[m[4]:m[5]], err)
		}
		rx, err := regexp.Compile(text)
		if err != nil {
			t.Fatalf("%s: bad pattern %q: %v", name, text, err)
		}
		// The position is that of the next token: skip blanks and further
		// ERROR and NOTE comments.
		off := m[1]
		for {
			for off < len(src) && (src[off] == ' ' || src[off] == '\t' || src[off] == '\n' || src[off] == '\r') {
				off++
			}
			next := errorCommentRE.FindIndex(src[off:])
			if next == nil || next[0] != 0 {
				break
			}
			off += next[1]
		}
		out = append(out, expectation{pos: lineCol(src, off), rx: rx})
	}
	return out
}

// lineCol returns the "line:col" of a byte offset, counting columns in runes
// (an invalid byte counts as one) and not counting a leading byte order mark.
func lineCol(src []byte, off int) string {
	line, col := 1, 1
	i := 0
	if bytes.HasPrefix(src, []byte(byteOrderMark)) && off >= len(byteOrderMark) {
		i = len(byteOrderMark)
	}
	for i < off {
		r, n := utf8.DecodeRune(src[i:])
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return fmt.Sprintf("%d:%d", line, col)
}

// match removes from *list the first expectation that pos and msg meet, and
// reports whether there was one.
func match(list *[]expectation, pos Pos, msg string) bool {
	got := fmt.Sprintf("%d:%d", pos.Line, pos.Col)
	for i, x := range *list {
		if x.pos == got && x.rx.MatchString(msg) {
			*list = append((*list)[:i], (*list)[i+1:]...)
			return true
		}
	}
	return false
}

func TestErrors(t *testing.T) {
	files := readFiles(t, "testdata/errors/*.ppl")
	if len(files) < 20 {
		t.Errorf("only %d error programs", len(files))
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := files[name]
		t.Run(filepath.Base(name), func(t *testing.T) {
			expected := expectedErrors(t, name, src, "ERROR")
			if len(expected) == 0 {
				t.Fatal("no ERROR comments")
			}
			notes := expectedErrors(t, name, src, "NOTE")
			checkNotes := len(notes) > 0
			f, err := Parse(name, src)
			if err == nil {
				_, err = Check(f, testEnv())
			}
			var list ErrorList
			if err != nil {
				list = err.(ErrorList)
			}
			for _, e := range list {
				if e.Pos.File != name {
					t.Errorf("error in file %q: %v", e.Pos.File, e)
				}
				if !match(&expected, e.Pos, e.Msg) {
					t.Errorf("unexpected error %d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
				}
				for _, n := range e.Notes {
					if checkNotes && !match(&notes, n.Pos, n.Msg) {
						t.Errorf("unexpected note %d:%d: %s (of %s)", n.Pos.Line, n.Pos.Col, n.Msg, e.Msg)
					}
				}
			}
			for _, x := range expected {
				t.Errorf("missing error at %s matching %q", x.pos, x.rx)
			}
			for _, x := range notes {
				t.Errorf("missing note at %s matching %q", x.pos, x.rx)
			}
		})
	}
}
