package repl

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeedsMore reports whether text is an unfinished input: a bracket ({, (
// or [) still open, or a block comment or string not closed. The REPL then
// reads another line with the continuation prompt. Brackets inside
// comments and strings do not count, and a closing bracket too many ends
// the input (the parser reports it). A command (a line starting with ':')
// is always complete.
func NeedsMore(text string) bool {
	if strings.HasPrefix(strings.TrimSpace(text), ":") {
		return false
	}
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return depth > 0
			}
			i += j
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return true
			}
			i += j + 3
		case c == '"':
			for i++; i < len(text) && text[i] != '"' && text[i] != '\n'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == '}' || c == ')' || c == ']':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth > 0
}

// blockKeywords start the blocks of a program ("transformed" is followed
// by data or param).
var blockKeywords = []string{"functions", "data", "transformed", "param", "model", "generated", "predict", "infer"}

// isBlockInput reports whether an input is one or more blocks (it starts
// with a block keyword and a '{'), as opposed to an expression.
func isBlockInput(text string) bool {
	rest := skipSpaceAndComments(text)
	word, after := leadingIdent(rest)
	if word == "transformed" {
		word, after = leadingIdent(skipSpaceAndComments(after))
		if word != "data" && word != "param" {
			return false
		}
	}
	if slices.Contains(blockKeywords, word) {
		return strings.HasPrefix(skipSpaceAndComments(after), "{")
	}
	return false
}

// isDefinition reports whether an input reads `name = ...`, a definition,
// which belongs in a model block.
func isDefinition(text string) bool {
	word, after := leadingIdent(skipSpaceAndComments(text))
	after = strings.TrimLeft(after, " \t")
	return word != "" && strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==")
}

func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "//"):
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return ""
			}
			s = s[j:]
		case strings.HasPrefix(s, "/*"):
			j := strings.Index(s, "*/")
			if j < 0 {
				return ""
			}
			s = s[j+2:]
		default:
			return s
		}
	}
}

// leadingIdent splits off the identifier s starts with ("" if none).
func leadingIdent(s string) (ident, rest string) {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isIdentRune(r, i == 0) {
			break
		}
		i += size
	}
	return s[:i], s[i:]
}

func isIdentRune(r rune, first bool) bool {
	return r == '_' || unicode.IsLetter(r) || !first && unicode.IsDigit(r)
}
