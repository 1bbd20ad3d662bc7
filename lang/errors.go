package lang

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Note is a secondary position that contributed to an error, such as the
// earlier declaration of a redeclared name ("previously declared here").
type Note struct {
	Pos Pos
	Msg string
}

// Error is one diagnostic: a position, a message and optional notes.
type Error struct {
	Pos   Pos
	Msg   string
	Notes []Note
}

// Error returns "file:line:col: msg" (or just msg if the position is unset).
func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is a list of diagnostics. Parse and Check return one as their
// error; its zero value is an empty list.
type ErrorList []*Error

// Add appends an error at pos with a formatted message and returns it, so that
// the caller can attach notes.
func (l *ErrorList) Add(pos Pos, format string, args ...any) *Error {
	e := &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	*l = append(*l, e)
	return e
}

func (l ErrorList) Len() int      { return len(l) }
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return l[i].Msg < l[j].Msg
}

// Sort sorts the list by file, line, column and message. It is stable, so
// errors at the same position with the same message keep their order.
func (l ErrorList) Sort() { sort.Stable(l) }

// Error returns the first error's text and how many more there are:
// "a.ppl:3:5: unknown name "x" (and 2 more errors)".
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	case 2:
		return l[0].Error() + " (and 1 more error)"
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// Err returns nil if the list is empty and the list itself otherwise, so that
// `return l.Err()` never returns a non-nil interface holding an empty list.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Format renders err for a terminal: each error as "file:line:col: msg",
// followed by the source line it points into and a caret under the column,
// then each of its notes the same way with "note: " before the message.
// The errors of an ErrorList are all shown, sorted by position. The caret
// line copies the tabs of the source line so that the caret lines up
// whatever the tab width. src is the source the positions refer to; errors
// that are not *Error or ErrorList are rendered with their Error method.
func Format(err error, src []byte) string {
	if err == nil {
		return ""
	}
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
		list = append(ErrorList(nil), list...)
		list.Sort()
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return err.Error() + "\n"
	}
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error())
		b.WriteByte('\n')
		writeSourceLine(&b, src, e.Pos)
		for _, n := range e.Notes {
			if n.Pos.IsValid() {
				b.WriteString(n.Pos.String() + ": ")
			}
			b.WriteString("note: " + n.Msg + "\n")
			writeSourceLine(&b, src, n.Pos)
		}
	}
	return b.String()
}

// writeSourceLine writes the line of src that pos points into, then a caret
// line under pos's column. It writes nothing for an invalid position or one
// past the end of src.
func writeSourceLine(b *strings.Builder, src []byte, pos Pos) {
	if !pos.IsValid() {
		return
	}
	line, ok := sourceLine(src, pos.Line)
	if !ok {
		return
	}
	line = strings.TrimRight(line, "\r")
	if pos.Line == 1 {
		// A byte order mark is not part of the text: the scanner skips it
		// and columns count from the character after it.
		line = strings.TrimPrefix(line, byteOrderMark)
	}
	b.WriteString(line)
	b.WriteByte('\n')
	col := 1
	for _, r := range line {
		if col >= pos.Col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		col++
	}
	// A column past the end of the line (an error at the end of a line or
	// of the file) gets its caret right after the last character.
	for ; col < pos.Col && col <= len(line); col++ {
		b.WriteByte(' ')
	}
	b.WriteString("^\n")
}

// sourceLine returns the 1-based line n of src without its newline. The line
// after a final newline exists (it is empty); lines beyond it do not.
func sourceLine(src []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	start := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src[start:], '\n')
		if j < 0 {
			return "", false
		}
		start += j + 1
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		return string(src[start:]), true
	}
	return string(src[start : start+end]), true
}
