package stdlib

import "github.com/temper-ppl/temper/autodiff"

// Stan's generalised linear models (Stan Functions Reference, "Bernoulli-logit
// generalized linear model (logistic regression)", "Poisson-log generalized
// linear model (Poisson regression)", "Normal-id generalized linear model
// (linear regression)"): the density of y given the linear predictor
// α + x·β, with x [..., D] rows of D predictors and β [D] their
// coefficients. The predictor is one matrix product of all rows of x by β
// (for the compiler's plates, the minibatch's rows [B, D]), then α is added
// and the existing elementwise density applied: so a GLM gives exactly the
// terms of the model written out with dot, and its gradients, at the cost of
// one GEMM.

// BernoulliLogitGLMLPMF is Stan's bernoulli_logit_glm_lpmf(y | x, alpha,
// beta) = bernoulli_logit(y | α + x·β).
func BernoulliLogitGLMLPMF(y, x, alpha, beta *autodiff.Node) *autodiff.Node {
	if g, stop := graphOf(y, x, alpha, beta); g != nil && stop == nil {
		if n, ok := fusedBernoulliLogitGLM(y, x, alpha, beta); ok {
			return n
		}
	}
	return bernoulliLogitDensity.apply(y, glmPredictor("bernoulli_logit_glm", x, alpha, beta))
}

// PoissonLogGLMLPMF is Stan's poisson_log_glm_lpmf(y | x, alpha, beta) =
// poisson_log(y | α + x·β).
func PoissonLogGLMLPMF(y, x, alpha, beta *autodiff.Node) *autodiff.Node {
	return poissonLogDensity.apply(y, glmPredictor("poisson_log_glm", x, alpha, beta))
}

// NormalIDGLMLPDF is Stan's normal_id_glm_lpdf(y | x, alpha, beta, sigma) =
// normal(y | α + x·β, σ).
func NormalIDGLMLPDF(y, x, alpha, beta, sigma *autodiff.Node) *autodiff.Node {
	return normalDensity.apply(y, glmPredictor("normal_id_glm", x, alpha, beta), sigma)
}

// glmPredictor is α + x·β, x's leading shape broadcast against α's.
func glmPredictor(name string, x, alpha, beta *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(x, alpha, beta)
	if g == nil || stop != nil {
		return stop
	}
	xs, bs := x.Shape(), beta.Shape()
	if len(bs) != 1 || len(xs) == 0 || xs[len(xs)-1] != bs[0] {
		return g.Fail(nil, "%s: x %v and beta %v: beta must be a vector as long as x's last axis", name, xs, bs)
	}
	return autodiff.Add(alpha, autodiff.Matmul(x, beta))
}
