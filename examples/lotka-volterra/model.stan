// The Lotka-Volterra model of model.ppl, as a Stan user writes it (the
// shape of Carpenter's case study, with the four rates as scalars).
functions {
  vector dz_dt(real t, vector z, real alpha, real beta, real gamma, real delta) {
    vector[2] dz;
    dz[1] = (alpha - beta * z[2]) * z[1];
    dz[2] = (-gamma + delta * z[1]) * z[2];
    return dz;
  }
}
data {
  int<lower=0> N;
  array[N] real ts;
  array[2] real y_init;
  array[N, 2] real<lower=0> y;
}
parameters {
  real<lower=0> alpha;
  real<lower=0> beta;
  real<lower=0> gamma;
  real<lower=0> delta;
  array[2] real<lower=0> z_init;
  array[2] real<lower=0> sigma;
}
model {
  array[N] vector[2] z = ode_rk45(dz_dt, to_vector(z_init), 0, ts, alpha, beta, gamma, delta);
  alpha ~ normal(1, 0.5);
  gamma ~ normal(1, 0.5);
  beta ~ normal(0.05, 0.05);
  delta ~ normal(0.05, 0.05);
  sigma ~ lognormal(-1, 1);
  z_init ~ lognormal(log(10), 1);
  y_init ~ lognormal(log(z_init), sigma);
  for (k in 1:2)
    y[, k] ~ lognormal(log(z[, k]), sigma[k]);
}
