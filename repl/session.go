// Package repl is temper's interactive session (temper repl): a program
// entered block by block, data loaded from files, runs started and
// stopped, and their draws summarised, diagnosed, plotted and saved.
//
// Session is the REPL without a terminal: it takes one complete input at
// a time (Eval) and writes everything it has to say to one io.Writer, so
// tests drive it with strings. Run puts it on a terminal with line
// editing, history and completion (github.com/chzyer/readline), or reads
// a script from a pipe.
//
// An input is one of:
//
//   - blocks, as a .ppl file has them (data { ... }, param, model, predict,
//     infer): each replaces the session's block of its kind. A block is
//     accepted when it checks; an error in it is shown with a caret under
//     the input and the session keeps what it had.
//   - an expression, evaluated and printed: log_sum_exp([1, 2, 3]) at once,
//     one of data at once, and one of the parameters over the draws of the
//     last run (a summary of its posterior).
//   - a command: :load, :data, :run, :summary, :diag, :plot, :save,
//     :reset, :help, :quit (:help lists them).
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/lang"
)

// Session is the state of one REPL session. Its methods may be called
// from several goroutines (the terminal's completion runs on its own), but
// inputs are evaluated one at a time.
type Session struct {
	mu  sync.Mutex
	out io.Writer
	env *lang.Env

	inputs   int               // inputs read so far, to name their sources
	failures int               // inputs whose evaluation printed an error
	sources  map[string][]byte // the text behind every file name in a position

	blocks map[lang.BlockKind]*lang.Block
	file   *lang.File   // the blocks as one checked program; nil before any
	data   compile.Data // by field name; a later file replaces a field
	loaded string       // the file :load read last

	model *temper.Model // compiled from file and data; nil when stale

	// The last run, with the program and data it ran.
	result  *temper.Result
	runFile *lang.File
	runData compile.Data

	// Progress, if set, is called during :run after every iteration with
	// the number done and the total, and with (0, 0) when the run ends.
	Progress func(temper.Progress)
}

// NewSession starts an empty session writing to out.
func NewSession(out io.Writer) *Session {
	s := &Session{out: out, env: compile.Env()}
	s.reset()
	return s
}

func (s *Session) reset() {
	s.sources = map[string][]byte{}
	s.blocks = map[lang.BlockKind]*lang.Block{}
	s.file, s.data, s.loaded, s.model = nil, compile.Data{}, "", nil
	s.result, s.runFile, s.runData = nil, nil, nil
}

func (s *Session) printf(format string, args ...any) { fmt.Fprintf(s.out, format, args...) }

// errorf prints a message about an input that failed and counts it
// (Failures).
func (s *Session) errorf(format string, args ...any) {
	s.failures++
	s.printf(format, args...)
}

// Failures is the number of inputs so far whose evaluation printed an
// error: a script that had any is a script that failed.
func (s *Session) Failures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures
}

// Eval evaluates one complete input (see NeedsMore) and reports whether
// the session should end (:quit). Cancelling ctx stops a :run, whose draws
// so far are kept and summarised. Errors are printed, and the session goes
// on.
func (s *Session) Eval(ctx context.Context, input string) (quit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := strings.TrimSpace(input)
	if text == "" {
		return false
	}
	if strings.HasPrefix(text, ":") {
		return s.command(ctx, text)
	}
	s.inputs++
	name := fmt.Sprintf("<input %d>", s.inputs)
	src := []byte(strings.TrimRight(input, "\n"))
	s.sources[name] = src
	switch {
	case isBlockInput(input):
		s.enterBlocks(name, src)
	case isDefinition(input):
		s.errorf("a definition belongs in a model or predict block (model { %s }); at the prompt, an expression is evaluated\n", text)
	default:
		s.evalExpr(name, src)
	}
	return false
}

// printError prints an error: diagnostics with their source lines and
// carets, anything else as its message.
func (s *Session) printError(err error) {
	s.failures++
	var list lang.ErrorList
	if !errors.As(err, &list) {
		var one *lang.Error
		if !errors.As(err, &one) {
			s.printf("error: %v\n", err)
			return
		}
		list = lang.ErrorList{one}
	}
	list = slices.Clone(list)
	list.Sort()
	for _, e := range list {
		io.WriteString(s.out, lang.Format(&lang.Error{Pos: e.Pos, Msg: e.Msg}, s.sources[e.Pos.File]))
		for _, n := range e.Notes {
			io.WriteString(s.out, lang.Format(&lang.Error{Pos: n.Pos, Msg: "note: " + n.Msg}, s.sources[n.Pos.File]))
		}
	}
}

// merged is the program the blocks make, in the canonical block order.
func merged(name string, blocks map[lang.BlockKind]*lang.Block) *lang.File {
	f := &lang.File{Name: name}
	for _, k := range lang.BlockKinds {
		if b := blocks[k]; b != nil {
			f.AddBlock(b)
		}
	}
	return f
}

// enterBlocks checks the blocks of one input within the session's program
// and, if they check, puts them in place of the blocks of their kinds.
func (s *Session) enterBlocks(name string, src []byte) {
	f, err := lang.Parse(name, src)
	if err != nil {
		s.printError(err)
		return
	}
	blocks := maps.Clone(s.blocks)
	var errs lang.ErrorList
	seen := map[lang.BlockKind]bool{}
	for _, b := range f.Blocks {
		if seen[b.Kind] {
			errs.Add(b.Pos, "a second %s block in one input", b.Kind)
		}
		seen[b.Kind] = true
		blocks[b.Kind] = b
	}
	if len(errs) > 0 {
		s.printError(errs)
		return
	}
	program := merged("repl", blocks)
	_, err = lang.Check(program, s.env)
	var list lang.ErrorList
	errors.As(err, &list)
	if err == nil && f.Infer != nil {
		// The infer block's sampler settings are checked by building it.
		var o temper.Options
		if err := hook.ReadInferBlock(&o, program); err != nil && !errors.As(err, &list) {
			s.printError(err)
			return
		}
	}
	var here, elsewhere lang.ErrorList
	for _, e := range list {
		if e.Pos.File == name {
			here = append(here, e)
		} else {
			elsewhere = append(elsewhere, e)
		}
	}
	if len(here) > 0 {
		s.printError(here)
		return
	}
	s.blocks, s.file, s.model = blocks, program, nil
	for _, b := range f.Blocks {
		s.printf("%s\n", describeBlock(b))
	}
	if len(elsewhere) > 0 {
		s.printf("the earlier blocks no longer check with this one:\n")
		s.printError(elsewhere)
		return
	}
	if f.Infer != nil {
		s.readInferData(f, ".")
	}
	s.compile(false)
}

// describeBlock is a one-line account of an accepted block.
func describeBlock(b *lang.Block) string {
	var names []string
	switch b.Kind {
	case lang.DataBlock, lang.ParamBlock:
		for _, d := range b.Decls {
			names = append(names, d.Name)
		}
		if len(names) == 0 {
			return fmt.Sprintf("%s: no declarations", b.Kind)
		}
		return fmt.Sprintf("%s: %s", b.Kind, strings.Join(names, ", "))
	case lang.InferBlock:
		for _, st := range b.Settings {
			names = append(names, st.Key)
		}
		return fmt.Sprintf("infer: %s", strings.Join(names, ", "))
	case lang.FunctionsBlock:
		for _, f := range b.Funcs {
			names = append(names, f.Name)
		}
		return fmt.Sprintf("functions: %s", strings.Join(names, ", "))
	}
	n := len(b.Stmts)
	if n == 1 {
		return fmt.Sprintf("%s: 1 statement", b.Kind)
	}
	return fmt.Sprintf("%s: %d statements", b.Kind, n)
}

// readInferData reads the data files that an infer block names, relative
// to dir.
func (s *Session) readInferData(f *lang.File, dir string) {
	for _, st := range f.Infer.Settings {
		str, ok := st.Value.(*lang.String)
		if st.Key != "data" || !ok {
			continue
		}
		p := str.Value
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		s.readData(p)
	}
}

// readData reads a data file into the session, its fields replacing any of
// the same names.
func (s *Session) readData(path string) bool {
	var decls []compile.FieldDecl
	if s.file != nil {
		decls = compile.DataDecls(s.file)
	}
	d, err := compile.ReadDataFile(path, decls)
	if err != nil {
		s.printError(err)
		return false
	}
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(d)) {
		s.data[k] = d[k]
		fields = append(fields, k+shapeString(d[k].Shape))
	}
	s.model = nil
	s.printf("data from %s: %s\n", path, strings.Join(fields, ", "))
	return true
}

func shapeString(shape []int) string {
	if len(shape) == 0 {
		return ""
	}
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// compile compiles the program with the data if it has a param and a model
// block and is not compiled yet, and says what came of it. Missing data
// is reported as a hint unless required (for :run), when it is an error.
func (s *Session) compile(required bool) *temper.Model {
	if s.model != nil {
		return s.model
	}
	if s.file == nil || s.file.Param == nil || s.file.Model == nil {
		if required {
			s.errorf("error: no model yet: enter param and model blocks, or :load FILE.ppl\n")
		}
		return nil
	}
	cm, err := compile.Compile(s.file, s.data)
	if err != nil {
		if missing := missingData(err); missing != nil && !required {
			s.printf("waiting for data: %s (:data FILE)\n", strings.Join(missing, ", "))
			return nil
		}
		s.printError(err)
		return nil
	}
	s.model = hook.NewModel(cm).(*temper.Model)
	if !required {
		s.printf("compiled: %d unconstrained parameters, %d observations\n", cm.Dim(), cm.NumData())
	}
	return s.model
}

// load replaces the session's program with a .ppl file and its infer
// block's data.
func (s *Session) load(path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		s.printError(err)
		return
	}
	s.sources[path] = src
	f, err := lang.Parse(path, src)
	if err == nil {
		_, err = lang.Check(f, s.env)
	}
	if err != nil {
		s.printError(err)
		return
	}
	sources := s.sources
	s.reset()
	s.sources = sources
	for _, b := range f.Blocks {
		s.blocks[b.Kind] = b
	}
	s.file, s.loaded = merged(path, s.blocks), path
	var kinds []string
	for _, b := range f.Blocks {
		kinds = append(kinds, string(b.Kind))
	}
	s.printf("loaded %s: %s\n", path, strings.Join(kinds, ", "))
	if f.Infer != nil {
		s.readInferData(f, filepath.Dir(path))
	}
	s.compile(false)
}

// declared lists the names the program declares or defines: data fields,
// parameters and the model's definitions.
func declared(f *lang.File) (data, params, defines []string) {
	if f == nil {
		return nil, nil, nil
	}
	if f.Data != nil {
		for _, d := range f.Data.Decls {
			data = append(data, d.Name)
		}
	}
	if f.TransformedData != nil { // computed from the data: data to an expression
		data = append(data, definedNames(f.TransformedData.Stmts)...)
	}
	if f.Param != nil {
		for _, d := range f.Param.Decls {
			params = append(params, d.Name)
		}
	}
	if f.TransformedParam != nil {
		defines = append(defines, definedNames(f.TransformedParam.Stmts)...)
	}
	for _, b := range []*lang.Block{f.Model, f.Predict} {
		if b == nil {
			continue
		}
		for _, st := range b.Stmts {
			if d, ok := st.(*lang.Define); ok {
				defines = append(defines, d.Name)
			}
		}
	}
	return data, params, defines
}

// definedNames are the names a list of statements defines, in its plates
// too.
func definedNames(stmts []lang.Stmt) []string {
	var names []string
	for _, st := range stmts {
		switch st := st.(type) {
		case *lang.Define:
			names = append(names, st.Name)
		case *lang.LocalDecl:
			names = append(names, st.Name)
		case *lang.Plate:
			names = append(names, definedNames(st.Body)...)
		}
	}
	return names
}

// missingData lists the fields of compile errors that are all "missing
// data for NAME"; nil if there are others.
func missingData(err error) []string {
	var list lang.ErrorList
	if !errors.As(err, &list) {
		return nil
	}
	var missing []string
	for _, e := range list {
		name, ok := strings.CutPrefix(e.Msg, "missing data for ")
		if !ok {
			return nil
		}
		missing = append(missing, strings.Fields(name)[0])
	}
	return missing
}
