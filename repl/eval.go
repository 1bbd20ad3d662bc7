package repl

import (
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/lang"
)

// valueName is the definition an expression is evaluated as, and
// placeholder the parameter of a program that has none of its own.
const (
	valueName   = "value__"
	placeholder = "placeholder__"
)

// evalExpr evaluates an expression and prints its value: at once when it
// uses numbers and data only, and over the draws of the last run (a
// posterior summary per element) when it uses parameters or the model's
// definitions.
//
// The expression is compiled as the one definition of a predict block
// (after the model's top-level definitions, which it may use), in a
// program with the data and param blocks it needs, and evaluated by the
// compiler's Predictor: the REPL computes what a model computes, with the
// same functions, broadcasting and errors.
func (s *Session) evalExpr(name string, src []byte) {
	x, err := lang.ParseExpr(name, src)
	if err != nil {
		s.printError(err)
		return
	}
	data, params, defines := declared(s.file)
	var usesData, usesParams bool
	for _, id := range identifiers(x) {
		usesData = usesData || slices.Contains(data, id)
		usesParams = usesParams || slices.Contains(params, id) || slices.Contains(defines, id)
	}
	program, values := s.file, s.data
	if usesParams {
		if s.result == nil {
			s.errorf("%s depends on the parameters: :run first, then it is evaluated over the draws\n", strings.TrimSpace(string(src)))
			return
		}
		program, values = s.runFile, s.runData
	}
	f := &lang.File{Name: name}
	var stmts []lang.Stmt
	if (usesData || usesParams) && program.Data != nil {
		f.Data, f.TransformedData = program.Data, program.TransformedData
	}
	if usesParams {
		f.Param, f.TransformedParam = program.Param, program.TransformedParam
		if program.Model != nil {
			for _, st := range program.Model.Stmts {
				if d, ok := st.(*lang.Define); ok {
					stmts = append(stmts, d)
				}
			}
		}
	} else {
		values = compile.Data{}
		if f.Data != nil {
			values = s.data
		}
		pos := lang.Pos{File: name, Line: 1, Col: 1}
		f.Param = &lang.Block{Pos: pos, Kind: lang.ParamBlock, Decls: []*lang.Decl{{Pos: pos, Name: placeholder, Type: &lang.Type{Pos: pos}}}}
	}
	pos := lang.StartPos(x)
	f.Predict = &lang.Block{Pos: pos, Kind: lang.PredictBlock, Stmts: append(stmts, &lang.Define{Pos: pos, Name: valueName, Value: x})}
	for _, b := range []*lang.Block{f.Data, f.TransformedData, f.Param, f.TransformedParam, f.Predict} {
		if b != nil {
			f.Blocks = append(f.Blocks, b)
		}
	}
	if _, err := lang.Check(f, s.env); err != nil {
		s.printError(err)
		return
	}
	cm, err := compile.Compile(f, values)
	if err != nil {
		if missing := missingData(err); missing != nil {
			s.printf("the data block's fields need values first: %s (:data FILE)\n", strings.Join(missing, ", "))
			return
		}
		s.printError(err)
		return
	}
	p, err := cm.Predictor()
	if err != nil {
		s.printError(err)
		return
	}
	label := strings.Join(strings.Fields(string(src)), " ")
	if !usesParams {
		pred, err := p.Predict([][]float64{make([]float64, len(cm.ParamNames()))})
		if err != nil {
			s.printError(err)
			return
		}
		d := pred.Defines[len(pred.Defines)-1]
		s.printf("%s\n", formatValue(d.Mean, d.Shape))
		return
	}
	s.evalOverDraws(label, cm, p)
}

// evalOverDraws evaluates the expression at every draw of the last run and
// prints a posterior summary of each element.
func (s *Session) evalOverDraws(label string, cm *compile.Model, p *compile.Predictor) {
	res := s.result
	// The draws' columns are lp__, the parameters in the order the program
	// declares them, as the predictor takes them, then the derived ones.
	nParams := len(cm.ParamNames())
	if len(res.Columns) < 1+nParams || !slices.Equal(res.Columns[1:1+nParams], cm.ParamNames()) {
		s.errorf("error: the draws do not match the parameters of the program they were run with\n")
		return
	}
	var columns []string
	var values [][][]float64 // [element][chain][draw], over the chains that finished
	finished := res.Finished()
	for c, chain := range finished {
		for _, draw := range res.Draws[chain] {
			pred, err := p.Predict([][]float64{draw[1 : 1+nParams]})
			if err != nil {
				s.printError(err)
				return
			}
			d := pred.Defines[len(pred.Defines)-1]
			if values == nil {
				columns = d.Columns()
				values = make([][][]float64, len(d.Mean))
				for e := range values {
					values[e] = make([][]float64, len(finished))
				}
			}
			for e, v := range d.Mean {
				if values[e][c] == nil {
					values[e][c] = make([]float64, 0, len(res.Draws[chain]))
				}
				values[e][c] = append(values[e][c], v)
			}
		}
	}
	if values == nil {
		s.printf("no draws to evaluate over\n")
		return
	}
	var stats []summary.Stats
	for e, col := range columns {
		stats = append(stats, summary.Summarize(label+strings.TrimPrefix(col, valueName), values[e]))
	}
	s.printf("over %d draws of %d chains:\n", res.DrawsPerChain(), len(res.Finished()))
	summary.Table(s.out, stats)
}

// identifiers lists the names an expression uses.
func identifiers(x lang.Expr) []string {
	var out []string
	lang.WalkExpr(x, func(e lang.Expr) {
		if id, ok := e.(*lang.Ident); ok {
			out = append(out, id.Name)
		}
	})
	return out
}

// formatValue writes a value as a number or nested brackets, rows of a
// matrix on lines of their own.
func formatValue(v []float64, shape []int) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	if len(shape) == 0 {
		return num(v[0])
	}
	var b strings.Builder
	var write func(v []float64, shape []int, indent string)
	write = func(v []float64, shape []int, indent string) {
		b.WriteByte('[')
		if len(shape) == 1 {
			for i, x := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(num(x))
			}
			b.WriteByte(']')
			return
		}
		step := len(v) / shape[0]
		for i := range shape[0] {
			if i > 0 {
				b.WriteString(",\n" + indent + " ")
			}
			write(v[i*step:(i+1)*step], shape[1:], indent+" ")
		}
		b.WriteByte(']')
	}
	write(v, shape, "")
	return b.String()
}
