package lang

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Limits on the input, so that no source can exhaust the stack or memory.
const (
	// MaxSourceSize is the largest source Parse accepts, in bytes.
	MaxSourceSize = 10 << 20
	// MaxNesting is the deepest nesting Parse accepts: brackets of any kind
	// ({ ( [), and inside an expression also unary minus and ^ chains.
	MaxNesting = 200
	// maxExprDepth bounds the height of one expression tree, so that the
	// recursive walks of the checker and the compiler stay shallow even on
	// an expression like a+a+...+a with a million terms.
	maxExprDepth = 1000
	// maxLexErrors stops the scanner on a binary file instead of reporting
	// every byte.
	maxLexErrors = 10
)

// byteOrderMark may start a source; it is not part of the text.
const byteOrderMark = "\uFEFF"

// Token types of the scanner. Keywords are scanned as identifiers: the
// grammar matches them by their text, and the checker rejects a keyword
// used as a name (a clearer message than a syntax error).
const (
	tokIdent lexer.TokenType = iota + 1
	tokNumber
	tokString
	tokPunct
)

// Keywords lists the reserved words; none may name a data field, parameter,
// definition or plate index.
var keywords = map[string]bool{
	"data": true, "param": true, "model": true, "predict": true, "infer": true,
	"real": true, "int": true, "for": true, "in": true, "plate": true,
	"target": true, "lower": true, "upper": true,
	"transformed": true, "generated": true,
	"functions": true, "if": true, "else": true, "return": true,
	"while": true, "break": true,
}

// IsKeyword reports whether name is a reserved word of the language.
func IsKeyword(name string) bool { return keywords[name] }

// definition is the participle lexer.Definition of the language. Parse does
// not go through it (it scans first, to report every lexical error with its
// position, then hands the tokens to the parser), but participle needs the
// symbol table to build the grammar.
type definition struct{}

// Symbols returns a new map each time: the parser is built during package
// initialisation, possibly before any package-level map would be.
func (definition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF":    lexer.EOF,
		"Ident":  tokIdent,
		"Number": tokNumber,
		"String": tokString,
		"Punct":  tokPunct,
	}
}

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return definition{}.LexBytes(filename, src)
}

func (definition) LexBytes(filename string, src []byte) (lexer.Lexer, error) {
	toks, errs := scan(filename, src)
	if len(errs) > 0 {
		return nil, errs
	}
	return &sliceLexer{tokens: toks}, nil
}

// sliceLexer hands out already scanned tokens.
type sliceLexer struct {
	tokens []lexer.Token
	next   int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	t := l.tokens[l.next]
	if l.next < len(l.tokens)-1 {
		l.next++
	}
	return t, nil
}

// scanner turns source text into tokens. It tracks line and column (in
// runes) itself: positions are exact for any input, including invalid
// UTF-8.
type scanner struct {
	file   string
	src    []byte
	off    int // byte offset of the next rune
	line   int
	col    int
	depth  int // open brackets
	tokens []lexer.Token
	errs   ErrorList
}

// scan returns the tokens of src, ending with an EOF token, or the lexical
// errors found (at most maxLexErrors; scanning stops at a nesting error).
func scan(file string, src []byte) ([]lexer.Token, ErrorList) {
	s := &scanner{file: file, src: src, line: 1, col: 1}
	// Programs average about one token per 4 bytes; guessing low only
	// costs a few slice growths.
	s.tokens = make([]lexer.Token, 0, len(src)/8+16)
	if bytes.HasPrefix(src, []byte(byteOrderMark)) {
		// Ignored, as editors do: the next character is at column 1.
		s.off = len(byteOrderMark)
	}
	for len(s.errs) < maxLexErrors {
		s.skipSpace()
		if s.off >= len(s.src) {
			break
		}
		if !s.token() {
			break
		}
	}
	s.tokens = append(s.tokens, lexer.Token{Type: lexer.EOF, Pos: s.pos()})
	return s.tokens, s.errs
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.file, Offset: s.off, Line: s.line, Column: s.col}
}

func (s *scanner) errorf(p lexer.Position, format string, args ...any) {
	s.errs.Add(toPos(p), format, args...)
}

// peek returns the rune at the current offset (utf8.RuneError with size 1
// for an invalid byte, size 0 at the end).
func (s *scanner) peek() (rune, int) {
	if s.off >= len(s.src) {
		return 0, 0
	}
	if c := s.src[s.off]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRune(s.src[s.off:])
}

func (s *scanner) byteAt(off int) byte {
	if off < len(s.src) {
		return s.src[off]
	}
	return 0
}

// advance consumes one rune.
func (s *scanner) advance() {
	r, n := s.peek()
	if n == 0 {
		return
	}
	s.off += n
	if r == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
}

// skipSpace skips whitespace and comments. An unterminated block comment is
// reported at its "/*" and ends the input.
func (s *scanner) skipSpace() {
	for s.off < len(s.src) {
		switch c := s.src[s.off]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.advance()
		case c == '/' && s.byteAt(s.off+1) == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance()
			}
		case c == '/' && s.byteAt(s.off+1) == '*':
			start := s.pos()
			s.advance()
			s.advance()
			for {
				if s.off >= len(s.src) {
					s.errorf(start, "comment not terminated")
					return
				}
				if s.src[s.off] == '*' && s.byteAt(s.off+1) == '/' {
					s.advance()
					s.advance()
					break
				}
				s.advance()
			}
		default:
			return
		}
	}
}

func isLetter(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' ||
		r >= utf8.RuneSelf && unicode.IsLetter(r)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// token scans one token at the current offset. It returns false when
// scanning must stop (nesting too deep).
func (s *scanner) token() bool {
	start := s.pos()
	r, n := s.peek()
	switch {
	case r == utf8.RuneError && n == 1:
		s.advance()
		s.errorf(start, "invalid UTF-8 encoding")
	case isLetter(r):
		for {
			r, _ := s.peek()
			if !isLetter(r) && !isDigit(r) && !(r >= utf8.RuneSelf && unicode.IsDigit(r)) {
				break
			}
			s.advance()
		}
		s.emit(tokIdent, start)
	case isDigit(r) || r == '.' && isDigit(rune(s.byteAt(s.off+1))):
		s.number(start)
	case r == '"':
		s.string(start)
	default:
		s.advance()
		switch r {
		case '+':
			if s.byteAt(s.off) == '=' {
				s.advance()
			}
		case '<', '>', '=', '!':
			if s.byteAt(s.off) == '=' { // <= >= == !=
				s.advance()
			}
		case '&', '|':
			if s.byteAt(s.off) == byte(r) {
				s.advance()
			} else if r == '&' {
				s.errorf(start, "invalid character %q; the logical operators are && and ||", string(r))
				return true
			} // a single | separates a density's first argument: normal_lpdf(y | mu, sigma)
		case '{', '(', '[':
			s.depth++
			if s.depth > MaxNesting {
				s.errorf(start, "nesting too deep: more than %d levels of brackets", MaxNesting)
				return false
			}
		case '}', ')', ']':
			if s.depth > 0 {
				s.depth--
			}
		case ',', ':', ';', '~', '-', '*', '/', '@', '^':
		default:
			if unicode.IsPrint(r) {
				s.errorf(start, "invalid character %q", string(r))
			} else {
				s.errorf(start, "invalid character %U", r)
			}
			return true
		}
		s.emit(tokPunct, start)
	}
	return true
}

func (s *scanner) emit(typ lexer.TokenType, start lexer.Position) {
	s.tokens = append(s.tokens, lexer.Token{Type: typ, Value: string(s.src[start.Offset:s.off]), Pos: start})
}

func (s *scanner) digits() int {
	n := 0
	for isDigit(rune(s.byteAt(s.off))) {
		s.advance()
		n++
	}
	return n
}

// number scans 12, 1.5, .5, 3., 1e-3 or 2.5E+10.
func (s *scanner) number(start lexer.Position) {
	s.digits()
	if s.byteAt(s.off) == '.' {
		s.advance()
		s.digits()
	}
	if c := s.byteAt(s.off); c == 'e' || c == 'E' {
		s.advance()
		if c := s.byteAt(s.off); c == '+' || c == '-' {
			s.advance()
		}
		if s.digits() == 0 {
			s.errorf(start, "exponent has no digits")
			return
		}
	}
	s.emit(tokNumber, start)
}

// string scans a double-quoted literal with Go's escapes; it may not span
// lines.
func (s *scanner) string(start lexer.Position) {
	s.advance() // opening quote
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			s.errorf(start, "string literal not terminated")
			return
		}
		c := s.src[s.off]
		s.advance()
		if c == '"' {
			break
		}
		if c == '\\' && s.off < len(s.src) && s.src[s.off] != '\n' {
			s.advance()
		}
	}
	text := string(s.src[start.Offset:s.off])
	if _, err := strconv.Unquote(text); err != nil {
		s.errorf(start, "invalid string literal %s", text)
		return
	}
	s.emit(tokString, start)
}

// toPos converts a participle position.
func toPos(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// describe names a token for "found ..." in messages.
func describe(t *lexer.Token) string {
	v := t.Value
	if utf8.RuneCountInString(v) > 32 {
		v = string([]rune(v)[:32]) + "..."
	}
	switch {
	case t.EOF():
		return "end of file"
	case t.Type == tokString:
		return "string " + v
	}
	return fmt.Sprintf("%q", v)
}
