// Package hook reaches the parts of package temper that its command, its
// REPL and its tests use but an embedder does not: the root package sets
// these variables when it is initialised, and its callers type-assert the
// results (a *temper.Model, a *temper.Result). The root package cannot
// import the packages that would own this code (they need its unexported
// fields), so the functions stay there and only their names move here,
// out of the root package's API.
package hook

import (
	"io"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/runfiles"
	"github.com/temper-ppl/temper/lang"
)

var (
	// NewModel makes a *temper.Model of a model compiled with package
	// compile, for the command and the REPL, which read programs and data
	// their own way. Its InferOptions are the defaults.
	NewModel func(cm *compile.Model) any

	// MergeRuns joins the output folders of runs of some of one run's
	// chains into out (temper merge) and returns their *temper.Result.
	MergeRuns func(out string, dirs ...string) (any, error)

	// DrawsWriter writes the header of a draws file for a run of m (a
	// *temper.Model) with opts (a temper.Options) to w, the comments
	// first, and returns the writer of its rows.
	DrawsWriter func(m any, w io.Writer, opts any, comments ...string) (*runfiles.Writer, error)

	// CreateDrawsFile creates the draws file at path, as DrawsWriter;
	// the writer's Close closes it.
	CreateDrawsFile func(m any, path string, opts any, comments ...string) (*runfiles.Writer, error)

	// ResumeDrawsFile readies the draws file at path for the run that
	// resumes opts.Resume, and returns its writer with the rows it keeps.
	ResumeDrawsFile func(m any, path string, opts any, comments ...string) (*runfiles.Writer, *draws.Table, error)

	// ParseCheck parses and checks the model source src, named name in
	// diagnostics; its errors are a *temper.Error.
	ParseCheck func(name string, src []byte) (*lang.File, error)

	// SourceError is err, where it is a lang.ErrorList, as the *temper.Error
	// that shows each diagnostic under its line of src.
	SourceError func(err error, src []byte) error

	// CompileFile compiles f, parsed from src, with data into a
	// *temper.Model, for package sbc, which parses a model once and binds
	// each replication's data.
	CompileFile func(f *lang.File, src []byte, data compile.Data) (any, error)

	// WithDefaults is o, a temper.Options, with its zero fields given
	// their defaults (4 chains, 2000 iterations, ...).
	WithDefaults func(o any) any

	// ReadInferBlock sets the fields of o, a *temper.Options, that the
	// infer block of f gives (temper.Model.InferOptions for a parsed file).
	ReadInferBlock func(o any, f *lang.File) error

	// CheckData reports run options o (a temper.Options) that a model's
	// numData rows make impossible: a minibatch larger than the data.
	CheckData func(o any, numData int) error

	// MemoryWarning says, for a run of m (a *temper.Model) with opts,
	// when its memory-mapped data would be read a page per row.
	MemoryWarning func(m any, opts any) string

	// WriteExact writes an exact sampler's adaptation and transitions of
	// r, a *temper.Result (the REPL's :exact).
	WriteExact func(r any, w io.Writer) error

	// InferDraw is a temper.Draw as infer's, the draw a runfiles.Writer
	// writes.
	InferDraw func(d any) infer.Draw

	// Prepend puts the draws of t, the rows ResumeDrawsFile kept, before
	// those of r, a *temper.Result, so that its summaries are the whole
	// run's.
	Prepend func(r any, t *draws.Table)
)
