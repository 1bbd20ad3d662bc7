// Eight schools, non-centred, as a Stan user writes it: the Stan
// counterpart of model.ppl (lang/stan's tests translate it with
// `temper translate` and check that the log densities agree).
data {
  int<lower=0> J;                // number of schools
  array[J] real y;               // estimated treatment effects
  array[J] real<lower=0> sigma;  // standard errors
}
parameters {
  real mu;
  real<lower=0> tau;
  vector[J] eta;
}
transformed parameters {
  vector[J] theta = mu + tau * eta;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  eta ~ std_normal();
  for (j in 1:J) {
    y[j] ~ normal(theta[j], sigma[j]);
  }
}
generated quantities {
  array[J] real y_rep;
  array[J] int exceeds;
  for (j in 1:J) {
    y_rep[j] = normal_rng(theta[j], sigma[j]);
    exceeds[j] = y_rep[j] > y[j];
  }
}
