package temper

import (
	"io"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/runfiles"
	"github.com/temper-ppl/temper/lang"
)

// init gives the command and the REPL, through package hook, what they use
// and an embedder does not.
func init() {
	hook.NewModel = func(cm *compile.Model) any { return newModel(cm) }
	hook.MergeRuns = func(out string, dirs ...string) (any, error) { return mergeRuns(out, dirs...) }
	hook.DrawsWriter = func(m any, w io.Writer, opts any, comments ...string) (*runfiles.Writer, error) {
		return m.(*Model).drawsWriter(w, opts.(Options), comments...)
	}
	hook.CreateDrawsFile = func(m any, path string, opts any, comments ...string) (*runfiles.Writer, error) {
		return m.(*Model).createDrawsFile(path, opts.(Options), comments...)
	}
	hook.ResumeDrawsFile = func(m any, path string, opts any, comments ...string) (*runfiles.Writer, *draws.Table, error) {
		return m.(*Model).resumeDrawsFile(path, opts.(Options), comments...)
	}
	hook.ParseCheck = parseCheck
	hook.SourceError = sourceError
	hook.CompileFile = func(f *lang.File, src []byte, data compile.Data) (any, error) { return compileFile(f, src, data) }
	hook.WithDefaults = func(o any) any { return o.(Options).withDefaults() }
	hook.ReadInferBlock = func(o any, f *lang.File) error { return o.(*Options).readInferBlock(f) }
	hook.CheckData = func(o any, numData int) error { return o.(Options).checkData(numData) }
	hook.MemoryWarning = func(m any, opts any) string { return m.(*Model).memoryWarning(opts.(Options)) }
	hook.WriteExact = func(r any, w io.Writer) error { return r.(*Result).writeExact(w) }
	hook.InferDraw = func(d any) infer.Draw {
		x := d.(Draw)
		return infer.Draw{Chain: x.Chain, Iter: x.Iter, Level: x.Level, LR: x.LR, Temperature: x.Temperature, Cycle: x.Cycle, Values: x.Values, Stats: x.Stats}
	}
	hook.Prepend = func(r any, t *draws.Table) { r.(*Result).prepend(t) }
}
