// The 100,000 × 20 logistic regression of compare.sh, in Stan's GLM form
// (one fused bernoulli_logit_glm: Stan's fastest way to write it).
data {
  int<lower=0> N;
  int<lower=1> D;
  matrix[N, D] X;
  int<lower=0, upper=1> y[N]; // rstan 2.21's syntax (Debian's)
}
parameters {
  real alpha;
  vector[D] beta;
}
model {
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit_glm(X, alpha, beta);
}
