// A latent Gaussian process Poisson regression, non-centred, in the form
// of the Stan User's Guide ("Gaussian processes"): the Stan counterpart
// of model.ppl.
data {
  int<lower=1> N;
  array[N] real x;
  array[N] int<lower=0> y;
}
transformed data {
  real delta = 1e-9;
}
parameters {
  real<lower=0> rho;
  real<lower=0> alpha;
  vector[N] eta;
}
transformed parameters {
  vector[N] f;
  {
    matrix[N, N] L_K;
    matrix[N, N] K = gp_exp_quad_cov(x, alpha, rho);
    // diagonal elements
    for (n in 1:N) {
      K[n, n] = K[n, n] + delta;
    }
    L_K = cholesky_decompose(K);
    f = L_K * eta;
  }
}
model {
  rho ~ inv_gamma(5, 5);
  alpha ~ normal(0, 2);
  eta ~ std_normal();
  y ~ poisson_log(f);
}
