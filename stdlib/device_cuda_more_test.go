//go:build cuda

package stdlib_test

import (
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

// TestDeviceRefusesMultivariateMore: multivariate_more.go's densities have
// no CUDA kernel, so compiling one for the device is an error that names
// it and says to run on the CPU (in float32 the missing float32 kernel may
// be named first), never a wrong answer: the Student-t's Cholesky form is
// multi_normal_cholesky's op, a DeviceOp, under a kernel name no backend
// has. The error comes before the GPU is opened, so this runs on any
// machine built with the cuda tag.
func TestDeviceRefusesMultivariateMore(t *testing.T) {
	mat := func(g *ad.Graph, name string) *ad.Node { return g.Input(name, ad.Param, 2, 2) }
	vec := func(g *ad.Graph, name string) *ad.Node { return g.Input(name, ad.Param, 2) }
	counts := func(g *ad.Graph) *ad.Node { return g.Input("y", ad.Data, 2) }
	nu := func(g *ad.Graph) *ad.Node { return g.Input("nu", ad.Param) }
	for name, build := range map[string]func(g *ad.Graph) *ad.Node{
		"multi_student_t": func(g *ad.Graph) *ad.Node {
			return stdlib.MultiStudentTLPDF(vec(g, "y"), nu(g), vec(g, "mu"), mat(g, "S"))
		},
		"multi_student_t_cholesky": func(g *ad.Graph) *ad.Node {
			return stdlib.MultiStudentTCholeskyLPDF(vec(g, "y"), nu(g), vec(g, "mu"), mat(g, "L"))
		},
		"multinomial":          func(g *ad.Graph) *ad.Node { return stdlib.MultinomialLPMF(counts(g), vec(g, "theta")) },
		"multinomial_logit":    func(g *ad.Graph) *ad.Node { return stdlib.MultinomialLogitLPMF(counts(g), vec(g, "gamma")) },
		"wishart":              func(g *ad.Graph) *ad.Node { return stdlib.WishartLPDF(mat(g, "W"), nu(g), mat(g, "S")) },
		"inv_wishart":          func(g *ad.Graph) *ad.Node { return stdlib.InvWishartLPDF(mat(g, "W"), nu(g), mat(g, "S")) },
		"wishart_cholesky":     func(g *ad.Graph) *ad.Node { return stdlib.WishartCholeskyLPDF(mat(g, "W"), nu(g), mat(g, "S")) },
		"inv_wishart_cholesky": func(g *ad.Graph) *ad.Node { return stdlib.InvWishartCholeskyLPDF(mat(g, "W"), nu(g), mat(g, "S")) },
		"lkj_corr":             func(g *ad.Graph) *ad.Node { return stdlib.LKJCorrLPDF(mat(g, "Omega"), nu(g)) },
	} {
		g := ad.NewGraph(2)
		out := ad.SumAll(build(g))
		if g.Err() != nil {
			t.Fatal(g.Err())
		}
		for _, f32 := range []bool{false, true} {
			_, err := g.CompileOn("cuda", f32, out)
			refused := err != nil && strings.Contains(err.Error(), name+" has no CUDA kernel yet") && strings.Contains(err.Error(), "--device cpu")
			if f32 && err != nil && strings.Contains(err.Error(), name+": no float32 kernel") {
				refused = true
			}
			if !refused {
				t.Errorf("compiling %s for cuda (float32 %v): got %v, want an error naming it", name, f32, err)
			}
		}
	}
}
