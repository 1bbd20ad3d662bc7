package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// keywords are the language's reserved words (lang.IsKeyword).
var keywords = []string{"data", "param", "model", "predict", "infer", "real", "int", "for", "in", "plate", "target", "lower", "upper", "transformed", "generated", "functions", "if", "else", "return", "while", "break"}

// Complete returns the completions of the word that ends line (the text
// before the cursor) and that word's length in bytes. At the start of a
// line a ':' word completes to a command; after :run, to a sampler, then
// to keys (with their '='); after :load, :data, :save and :plot's second
// word, to file names; after :summary, :plot and :help, to parameter
// names and topics; anywhere else, to keywords, functions, distributions,
// sampler names and the names the program declares.
func (s *Session) Complete(line string) (candidates []string, wordLen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	trimmed := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(trimmed, ":") {
		fields := strings.Fields(trimmed)
		word := ""
		if !strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\t") {
			word = fields[len(fields)-1]
			fields = fields[:len(fields)-1]
		}
		if len(fields) == 0 { // the command itself
			var names []string
			for _, c := range commands {
				names = append(names, ":"+c.name)
			}
			return withPrefix(names, word), len(word)
		}
		c, err := findCommand(strings.TrimPrefix(fields[0], ":"))
		if err != nil {
			return nil, 0
		}
		arg := len(fields) - 1 // the argument being completed, from 0
		var pool []string
		switch c.name {
		case "run":
			if arg == 0 && !strings.Contains(word, "=") {
				pool = append(pool, settings.SamplerNames()...)
			}
			for _, k := range append(settings.Names(settings.InREPL), infer.SettingNames()...) {
				pool = append(pool, k+"=")
			}
			if k, v, ok := strings.Cut(word, "="); ok {
				return withPrefix(settingValues(k), v), len(v)
			}
		case "load", "data", "save":
			return completeFile(word, c.name == "save"), len(word)
		case "plot":
			if arg == 1 {
				return completeFile(word, false), len(word)
			}
			pool = s.columnNames()
		case "summary":
			pool = s.columnNames()
		case "help":
			pool = append(pool, helpTopics...)
			for _, c := range commands {
				pool = append(pool, c.name)
			}
			pool = append(pool, settings.SamplerNames()...)
			pool = append(pool, infer.SettingNames()...)
			pool = append(pool, stdlib.Names()...)
			pool = append(pool, sortedKeys(s.env.Functions)...)
			pool = append(pool, lang.ODESolvers()...)
			for _, st := range statementHelp {
				pool = append(pool, st.name)
			}
		}
		return withPrefix(pool, word), len(word)
	}
	word := trailingIdent(line)
	if word == "" {
		return nil, 0
	}
	pool := slices.Clone(keywords)
	pool = append(pool, sortedKeys(s.env.Functions)...)
	pool = append(pool, lang.ODESolvers()...)
	pool = append(pool, stdlib.Names()...)
	pool = append(pool, settings.SamplerNames()...)
	for _, k := range lang.TypeKinds {
		pool = append(pool, string(k))
	}
	data, params, defines := declared(s.file)
	pool = append(append(append(pool, data...), params...), defines...)
	return withPrefix(pool, word), len(word)
}

// settingValues are the values worth offering for a key of :run.
func settingValues(key string) []string {
	if k, ok := settings.Lookup(key); ok {
		return k.Choices
	}
	switch key {
	case "dynamics":
		return []string{"langevin", "hamiltonian", "preconditioned", "fast_langevin", "nose_hoover", "adaptive_langevin"}
	case "exchange":
		return []string{"none", "metropolis", "multi_variance", "deterministic"}
	case "scheme":
		return []string{"adj", "seo", "deo"}
	case "ladder":
		return []string{"temperature", "lr", "adaptive_temperature", "adaptive_lr"}
	case "schedule":
		return []string{"polynomial", "cyclical"}
	case "correction":
		return []string{"none", "model", "running"}
	case "window", "grad_var", "intensity", "buffer", "schedule_iterations":
		return []string{"auto"}
	}
	return nil
}

// columnNames are the parameters and columns of the last run's draws.
func (s *Session) columnNames() []string {
	var out []string
	_, params, _ := declared(s.runFile)
	out = append(out, params...)
	if s.result != nil {
		for _, c := range s.result.Columns {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// withPrefix keeps the distinct candidates that start with prefix, sorted.
func withPrefix(pool []string, prefix string) []string {
	var out []string
	for _, c := range pool {
		if strings.HasPrefix(c, prefix) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// trailingIdent is the identifier (or its beginning) that ends line.
func trailingIdent(line string) string {
	i := len(line)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:i])
		if !isIdentRune(r, false) {
			break
		}
		i -= size
	}
	word := line[i:]
	if word != "" {
		if r, _ := utf8.DecodeRuneInString(word); !isIdentRune(r, true) {
			return ""
		}
	}
	return word
}

// completeFile completes a path: files and folders (with a trailing
// slash) in the word's folder; dirsOnly for :save.
func completeFile(word string, dirsOnly bool) []string {
	dir, base := filepath.Split(word)
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, dir+name+string(filepath.Separator))
		} else if !dirsOnly {
			out = append(out, dir+name)
		}
	}
	slices.Sort(out)
	return out
}
