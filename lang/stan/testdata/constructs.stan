// Constructs with a counterpart: user functions (an _lpdf among them),
// old and new declarations, constraints, offset and multiplier, loops,
// ifs, compound assignments, ?:, _lpdf and _lcdf calls, std_normal,
// gp_exp_quad_cov's cross-covariance.
functions {
  real garch_var(real omega, real alpha, real beta, real r, real prev) {
    return omega + alpha * r^2 + beta * prev;
  }
  real total(array[] real x, int n) {
    real acc = 0;
    for (i in 1:n) acc += x[i];
    return acc;
  }
  vector mu_g(vector b, matrix X) {
    return X * b;
  }
  real my_normal_lpdf(real y, real mu, real s) {
    return normal_lpdf(y | mu, s);
  }
}
data {
  int<lower=1> N;
  int<lower=1> K;
  vector[N] y;
  int<lower=1, upper=K> g[N];
  matrix[N, 2] X;
}
transformed data {
  real ybar = mean(y);
  vector[N] yc;
  for (n in 1:N) {
    if (y[n] > 0) yc[n] = y[n] - ybar;
    else if (y[n] < -1 && n > 1) yc[n] = ybar - y[n];
    else yc[n] = 0;
  }
}
parameters {
  real<offset=0, multiplier=2> m;
  real<lower=0> s;
  simplex[K] p;
  ordered[2] c;
  vector[2] b;
  real<lower=-1, upper=1> r;
}
transformed parameters {
  real tot = total({m, s}, 2);
}
model {
  vector[N] mu = X * b;
  real acc = 0;
  m ~ normal(0, 2);
  s ~ exponential(1);
  c ~ normal(0, 5);
  b ~ std_normal();
  r ~ uniform(-1, 1);
  target += dirichlet_lpdf(p | rep_vector(2, K));
  acc += garch_var(1, 0.1, 0.2, m, s);
  acc -= 0.5;
  acc *= 2;
  target += -square(acc) / 100 - 0.01 * dot_self(yc);
  for (n in 1:N) {
    real e = m + mu[n] + log(p[g[n]]);
    target += my_normal_lpdf(y[n] | e, s);
  }
  tot ~ normal(0, 10);
  m ~ my_normal(0, 3);
  target += r > 0 ? -r : r;
}
generated quantities {
  real yrep = normal_rng(m, s);
  array[N] real ys = normal_rng(mu_g(b, X), s);
  real lp = std_normal_lpdf(m) + normal_lupdf(m | 0, 1);
  matrix[2, 2] M = [[1, c[1]], [c[2], 1]];
  row_vector[2] v = b' * M;
  matrix[2, 2] Mt = M';
  real upper = fmax(c[2], 0) + (N > 2 ? 1 : 0);
  matrix[2, 3] Kx = gp_exp_quad_cov({m, s}, {0.5, 1.0, 1.5}, 1.0, 2.0);
  real tails = skew_normal_lccdf(m | 0, 1, 2) + von_mises_lcdf(r | 0, 1);
}
