// The two-component normal mixture of model.ppl, as a Stan user writes it.
data {
  int<lower=0> N;
  array[N] real y;
}
parameters {
  real<lower=0, upper=1> theta;
  ordered[2] mu;
  array[2] real<lower=0> sigma;
}
model {
  theta ~ beta(2, 2);
  mu ~ normal(0, 5);
  sigma ~ normal(0, 2);
  for (n in 1:N)
    target += log_mix(theta, normal_lpdf(y[n] | mu[1], sigma[1]),
                      normal_lpdf(y[n] | mu[2], sigma[2]));
}
