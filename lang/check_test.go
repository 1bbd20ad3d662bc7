package lang

import (
	"strings"
	"testing"
)

func TestCheckPrograms(t *testing.T) {
	for name, src := range readFiles(t, "testdata/programs/*.ppl") {
		f, err := Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(f, testEnv()); err != nil {
			t.Errorf("%s:\n%s", name, Format(err, src))
		}
	}
}

// identsIn collects the identifiers of a statement list by name, in order.
func identsIn(stmts []Stmt) map[string][]*Ident {
	out := map[string][]*Ident{}
	f := &File{Blocks: []*Block{{Kind: ModelBlock, Stmts: stmts}}}
	walk(f, func(n Node) {
		if id, ok := n.(*Ident); ok {
			out[id.Name] = append(out[id.Name], id)
		}
	})
	return out
}

func TestCheckInfo(t *testing.T) {
	f, _ := mustParse(t, "logreg.ppl")
	info, err := Check(f, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	model := identsIn(f.Model.Stmts)
	predict := identsIn(f.Predict.Stmts)
	plate := f.Model.Stmts[3].(*Plate)
	eta := plate.Body[0].(*Define)

	sym := func(id *Ident) *Symbol {
		t.Helper()
		s := info.Symbols[id]
		if s == nil {
			t.Fatalf("%s at %v is not resolved", id.Name, id.Pos)
		}
		return s
	}
	if s := sym(model["tau"][1]); s.Kind != ParamSym || s.Decl != f.Param.Decls[2] || s.Name != "tau" {
		t.Errorf("tau: %+v", s)
	}
	if s := sym(model["N"][0]); s.Kind != DataSym || s.Decl != f.Data.Decls[0] {
		t.Errorf("N: %+v", s)
	}
	if s := sym(model["n"][0]); s.Kind != IndexSym || s.Plate != plate || s.Pos() != plate.IndexPos {
		t.Errorf("n: %+v", s)
	}
	if s := sym(model["eta"][0]); s.Kind != DefineSym || s.Define != eta || s.Plate != plate {
		t.Errorf("eta: %+v", s)
	}
	// One symbol per declaration, shared by every use, across blocks.
	if sym(model["y"][0]) != sym(predict["y"][0]) || sym(model["w"][0]) != sym(model["w"][1]) {
		t.Error("uses of one declaration have different symbols")
	}
	// Each plate has its own index symbol.
	if sym(model["n"][0]) == sym(predict["n"][0]) {
		t.Error("the plate indices of model and predict share a symbol")
	}
	if info.Defs[f.Param.Decls[2]] != sym(model["tau"][1]) || info.Defs[eta] != sym(model["eta"][0]) || info.Defs[plate] != sym(model["n"][0]) {
		t.Error("Defs do not match the symbols of the uses")
	}

	// Integer-valued expressions.
	ynSample := plate.Body[1].(*Sample)
	for _, c := range []struct {
		e    Expr
		want bool
	}{
		{ynSample.Lhs, true},                           // y[n]: int data, indexed
		{model["n"][0], true},                          // a plate index
		{model["N"][0], true},                          // int data
		{eta.Value, false},                             // dot(...) + b
		{eta.Value.(*Binary).L.(*Call).Args[0], false}, // X[n]
		{model["eta"][0], false},
		{f.Model.Stmts[0].(*Sample).Args[0], true},               // 2
		{f.Model.Stmts[4].(*TargetAdd).Value.(*Binary).L, false}, // -0.5
		{f.Model.Stmts[4].(*TargetAdd).Value.(*Binary).R, false}, // sum(...)
	} {
		got, ok := info.IsInt[c.e]
		if !ok || got != c.want {
			t.Errorf("IsInt[%s] = %v, %v; want %v", ExprString(c.e), got, ok, c.want)
		}
	}

	// Statements of plate bodies, and only those, are in InPlate.
	for _, s := range plate.Body {
		if info.InPlate[s] != plate {
			t.Errorf("%s: InPlate = %v", sexpr(s), info.InPlate[s])
		}
	}
	for _, s := range f.Model.Stmts {
		if _, ok := info.InPlate[s]; ok {
			t.Errorf("%s is in a plate", sexpr(s))
		}
	}
	predPlate := f.Predict.Stmts[0].(*Plate)
	if info.InPlate[predPlate.Body[0]] != predPlate {
		t.Error("the predict plate's statement is not in it")
	}
}

func TestCheckIntPropagation(t *testing.T) {
	src := `data {
  N: int
  y: int[N]
}
model {
  for n in plate(N) {
    k = y[n] * 2 + n - 1
    r = k / 2
    v = [k, 1]
    u = [k, 1.5]
    m = -k
    p = k ^ 2
  }
}`
	f, err := Parse("int", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := Check(f, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"k": true, "r": false, "v": true, "u": false, "m": true, "p": false}
	for _, s := range f.Model.Stmts[0].(*Plate).Body {
		d := s.(*Define)
		if info.IsInt[d.Value] != want[d.Name] {
			t.Errorf("%s = %s: IsInt %v", d.Name, ExprString(d.Value), info.IsInt[d.Value])
		}
	}
}

func TestCheckNilAndEmpty(t *testing.T) {
	if info, err := Check(nil, nil); err != nil || info == nil {
		t.Errorf("Check(nil, nil) = %v, %v", info, err)
	}
	f, err := Parse("e", []byte("param { mu: real }\nmodel { mu ~ normal(0, 1) }"))
	if err != nil {
		t.Fatal(err)
	}
	// A nil Env knows no distributions.
	_, err = Check(f, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown distribution "normal"`) {
		t.Errorf("Check with a nil Env: %v", err)
	}
}

func TestSignatureIntAt(t *testing.T) {
	sig := Signature{Params: []string{"y", "n"}, Int: []bool{false, true}, Variadic: true}
	for i, want := range []bool{false, true, true, true} {
		if got := sig.intAt(i); got != want {
			t.Errorf("intAt(%d) = %v", i, got)
		}
	}
	if (Signature{Params: []string{"x"}}).intAt(0) {
		t.Error("a missing Int entry is integer")
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"sigma", "mu", "nu", "normal", "X"}
	for _, c := range []struct{ name, want string }{
		{"sigm", "sigma"},
		{"sgima", "sigma"}, // a transposition is one edit
		{"nromal", "normal"},
		{"mo", "mu"},
		{"x", ""},     // one letter: never corrected
		{"tau", ""},   // too far
		{"sigma", ""}, // not a typo of itself
	} {
		if got := Suggest(c.name, names); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
