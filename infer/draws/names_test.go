package draws_test

import (
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer/draws"
)

func TestFlatNames(t *testing.T) {
	cases := []struct {
		name  string
		shape []int
		want  []string
	}{
		{"sigma", nil, []string{"sigma"}},
		{"w", []int{3}, []string{"w.1", "w.2", "w.3"}},
		// Row-major: the last index varies fastest (Stan would list W.1.1,
		// W.2.1, W.1.2, …).
		{"W", []int{2, 3}, []string{"W.1.1", "W.1.2", "W.1.3", "W.2.1", "W.2.2", "W.2.3"}},
		{"A", []int{2, 1, 2}, []string{"A.1.1.1", "A.1.1.2", "A.2.1.1", "A.2.1.2"}},
		{"v", []int{12}, []string{"v.1", "v.2", "v.3", "v.4", "v.5", "v.6", "v.7", "v.8", "v.9", "v.10", "v.11", "v.12"}},
		{"empty", []int{3, 0}, []string{}},
	}
	for _, c := range cases {
		if got := draws.FlatNames(c.name, c.shape); !slices.Equal(got, c.want) {
			t.Errorf("FlatNames(%q, %v) = %v, want %v", c.name, c.shape, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("FlatNames with a negative dimension did not panic")
		}
	}()
	draws.FlatNames("x", []int{2, -1})
}

func TestIsDiagnostic(t *testing.T) {
	for name, want := range map[string]bool{
		"lp__": true, "accept_stat__": true, "temperature__": true, "cycle__": true,
		"mu": false, "w.1": false, "a_b": false, "x_": false,
	} {
		if got := draws.IsDiagnostic(name); got != want {
			t.Errorf("IsDiagnostic(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestColumnMajor checks CmdStan's order: the first index fastest within a
// variable, the variables and the scalars and vectors in place.
func TestColumnMajor(t *testing.T) {
	columns := append([]string{"lp__", "mu"}, draws.FlatNames("W", []int{2, 3})...)
	columns = append(columns, "v.1", "v.2")
	columns = append(columns, draws.FlatNames("A", []int{2, 1, 2})...)
	perm := draws.ColumnMajor(columns)
	got := make([]string, len(perm))
	for i, p := range perm {
		got[i] = columns[p]
	}
	want := []string{"lp__", "mu", "W.1.1", "W.2.1", "W.1.2", "W.2.2", "W.1.3", "W.2.3", "v.1", "v.2",
		"A.1.1.1", "A.2.1.1", "A.1.1.2", "A.2.1.2"}
	if !slices.Equal(got, want) {
		t.Errorf("ColumnMajor order %v, want %v", got, want)
	}
}
