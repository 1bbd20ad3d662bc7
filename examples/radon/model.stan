// The varying-intercept radon model with known scales: the Stan
// counterpart of model.ppl.
data {
  int<lower=1> N;
  int<lower=1> J;
  array[N] int<lower=1, upper=J> county;
  vector[N] x;
  vector[N] y;
}
parameters {
  real mu;
  vector[J] a;
  real b;
}
model {
  mu ~ normal(0, 10);
  b ~ normal(0, 10);
  a ~ normal(mu, 0.35);
  for (n in 1:N)
    y[n] ~ normal(a[county[n]] + b * x[n], 0.75);
}
