// Correlated varying intercepts and slopes, centred, with an LKJ prior on
// the Cholesky factor of their correlation: the Stan counterpart of
// model.ppl.
data {
  int<lower=1> N;
  int<lower=1> J;
  array[N] int<lower=1, upper=J> subject;
  vector[N] day;
  vector[N] y;
}
transformed data {
  real day_mean = mean(day);
  real y_mean = mean(y);
  real y_sd = sd(y);
  vector[N] t = day - day_mean;
  vector[N] yc = (y - y_mean) / y_sd;
}
parameters {
  vector[2] mu;
  vector<lower=0>[2] tau;
  cholesky_factor_corr[2] L;
  array[J] vector[2] ab;
  real<lower=0> sigma;
}
transformed parameters {
  corr_matrix[2] Omega = multiply_lower_tri_self_transpose(L);
}
model {
  mu ~ normal(0, 2);
  tau ~ normal(0, 1);
  L ~ lkj_corr_cholesky(2);
  ab ~ multi_normal_cholesky(mu, diag_pre_multiply(tau, L));
  sigma ~ normal(0, 1);
  for (n in 1:N)
    yc[n] ~ normal(ab[subject[n], 1] + ab[subject[n], 2] * t[n], sigma);
}
generated quantities {
  real slope = mu[2] * y_sd;
}
