package compile

import (
	"github.com/temper-ppl/temper/lang"
)

// Generator is a program that simulates rather than scores: a data block,
// optionally transformed data, and a generated block whose _rng calls draw
// parameters from their prior and data given them, as simulation-based
// calibration needs (Talts et al. 2018, Algorithm 1). It has no
// parameters to sample, so Compile refuses it; CompileGenerator compiles
// it. It is not safe for concurrent use.
type Generator struct {
	m *Model
}

// CompileGenerator binds data to the generator program f (already checked
// by lang.Check). f may have no param, model or predict block, and must
// have a generated block: its definitions are the columns Draw computes.
func CompileGenerator(f *lang.File, data Data) (*Generator, error) {
	var errs lang.ErrorList
	for _, b := range []struct {
		blk  *lang.Block
		name string
	}{{f.Param, "param"}, {f.TransformedParam, "transformed param"}, {f.Model, "model"}, {f.Predict, "predict"}} {
		if b.blk != nil {
			errs.Add(b.blk.Pos, "a generator has no %s block: its generated block draws the parameters with _rng functions", b.name)
		}
	}
	if f.Generated == nil {
		errs.Add(lang.Pos{File: f.Name, Line: 1, Col: 1}, "a generator needs a generated block, whose _rng calls draw the parameters and the data")
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	m := &Model{file: f, data: Data{}}
	if err := m.bind(data); err != nil {
		return nil, err
	}
	out, names, err := m.newOutputs()
	if err != nil {
		return nil, err
	}
	m.out, m.derived = out, names
	return &Generator{m: m}, nil
}

// Columns are the generated block's columns, flattened as a model's
// (y.1, ..., y.N for a definition in a plate body).
func (g *Generator) Columns() []string { return append([]string(nil), g.m.derived...) }

// Name is the name the program was parsed under (its file's path).
func (g *Generator) Name() string { return g.m.file.Name }

// Data are the generator's data fields, its transformed data's
// definitions included.
func (g *Generator) Data() Data { return g.m.data }

// Draw computes the columns into dst (length len(Columns())), the _rng
// calls drawing from the stream seed.
func (g *Generator) Draw(dst []float64, seed uint64) { g.m.out.apply(dst, nil, seed) }

// DomainErrors lists the _rng calls that got arguments outside their
// domain in some draw so far (their values are NaN there).
func (g *Generator) DomainErrors() []DomainError { return g.m.out.domainErrors() }
